/*
 * Citation URL hygiene: unwrap redirectors, drop tracking parameters, split off the text
 * fragment (engines.md). Pure functions over strings.
 *
 * Runs in: content scripts (and the unit tests, in jsdom).
 */
'use strict';
(function (CL) {
  /**
   * Redirectors whose target sits in a query parameter. `decode` handles Bing's
   * `u=a1<base64url>` form; the others carry the URL percent-encoded.
   */
  const REDIRECTORS = [
    { host: /(^|\.)google\.[a-z.]+$/, path: /^\/url$/, params: ['q', 'url'] },
    { host: /(^|\.)bing\.com$/, path: /^\/ck\/a$/, params: ['u'], decode: decodeBingParam },
    { host: /(^|\.)duckduckgo\.com$/, path: /^\/l\/?$/, params: ['uddg'] },
    { host: /(^|\.)facebook\.com$/, path: /^\/l\.php$/, params: ['u'] },
    { host: /(^|\.)(l\.)?instagram\.com$/, path: /^\/$/, params: ['u'] },
  ];

  // Parameters that say who sent the reader, never what the page is. utm_source=chatgpt.com,
  // copilot.com and openai are how engines tag their outbound links.
  const TRACKING_PARAMS = new Set([
    'fbclid', 'gclid', 'dclid', 'gbraid', 'wbraid', 'msclkid', 'yclid', 'mc_cid', 'mc_eid',
    'igshid', '_hsenc', '_hsmi', 'srsltid', 'ref_src', 'oly_enc_id', 'oly_anon_id', 'vero_id',
  ]);
  const TRACKING_PREFIXES = ['utm_', 'pk_', 'mtm_'];
  const TRACKING_SOURCES = /(^|\.)(chatgpt\.com|openai(\.com)?|copilot\.(com|microsoft\.com)|perplexity(\.ai)?|bing\.com)$/i;

  /**
   * Bing's `u` parameter: "a1" then URL-safe base64 of the target, usually without padding.
   * @param {string} value
   * @returns {string|null}
   */
  function decodeBingParam(value) {
    if (!value.startsWith('a1')) return value;
    let b64 = value.slice(2).replace(/-/g, '+').replace(/_/g, '/');
    b64 += '='.repeat((4 - (b64.length % 4)) % 4);
    try {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      return new TextDecoder().decode(bytes);
    } catch {
      return null;
    }
  }

  /**
   * The textStart of a `#:~:text=[prefix-,]textStart[,textEnd][,-suffix]` directive, decoded,
   * or ''. Only textStart is sure to be one unbroken run of the page's text.
   * @param {string} hash
   */
  function textFragmentOf(hash) {
    const at = hash.indexOf(':~:');
    if (at < 0) return '';
    for (const directive of hash.slice(at + 3).split('&')) {
      if (!directive.startsWith('text=')) continue;
      const parts = directive.slice(5).split(',').filter((p) => p && !p.endsWith('-') && !p.startsWith('-'));
      if (!parts.length) return '';
      try {
        return decodeURIComponent(parts[0]);
      } catch {
        return parts[0];
      }
    }
    return '';
  }

  /**
   * @typedef {object} CleanUrl
   * @property {string} url    what to cite and fetch: http(s), unwrapped, no tracking, no text fragment
   * @property {string} hint   the engine's text-fragment sentence, '' when none
   */

  /**
   * @param {string} raw   an href or data-*-url as found in the page
   * @param {string} base  the page URL, for relative links
   * @param {{path: RegExp, params: string[]}[]} [ownRedirectors]  redirectors of the page's own
   *   origin: an engine's relative `/url?q=` resolves against wherever the page is served
   * @returns {CleanUrl|null} null for anything that is not an http(s) page
   */
  function normalizeUrl(raw, base, ownRedirectors = []) {
    let url;
    try {
      url = new URL(String(raw).trim(), base);
    } catch {
      return null;
    }
    const origin = new URL(base).origin;
    const rules = REDIRECTORS.concat(ownRedirectors.map((r) => ({ ...r, origin })));
    for (let hops = 0; hops < 3; hops++) {
      const target = unwrapOnce(url, rules);
      if (!target) break;
      try {
        url = new URL(target, url);
      } catch {
        return null;
      }
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    if (url.username || url.password) return null;
    const hint = textFragmentOf(url.hash);
    // forEach, not an iterator: Firefox's content-script Xrays refuse URLSearchParams iterators.
    const keys = /** @type {string[]} */ ([]);
    url.searchParams.forEach((_value, key) => keys.push(key));
    for (const key of keys) {
      const lower = key.toLowerCase();
      if (TRACKING_PARAMS.has(lower) || TRACKING_PREFIXES.some((p) => lower.startsWith(p))) {
        url.searchParams.delete(key);
      }
    }
    // `ref=chatgpt.com` style tags: only when the value names an engine, ref is a real key elsewhere.
    for (const key of ['ref', 'source', 'src']) {
      const value = url.searchParams.get(key);
      if (value && TRACKING_SOURCES.test(value)) url.searchParams.delete(key);
    }
    const at = url.hash.indexOf(':~:');
    if (at >= 0) url.hash = url.hash.slice(0, at).replace(/^#$/, '');
    let out = url.href;
    if (out.endsWith('?')) out = out.slice(0, -1);
    if (out.endsWith('#')) out = out.slice(0, -1);
    return { url: out, hint };
  }

  /**
   * @param {URL} url
   * @param {{host?: RegExp, origin?: string, path: RegExp, params: string[], decode?: (v: string) => string|null}[]} rules
   */
  function unwrapOnce(url, rules) {
    for (const rule of rules) {
      const here = rule.origin ? url.origin === rule.origin : rule.host && rule.host.test(url.hostname);
      if (!here || !rule.path.test(url.pathname)) continue;
      for (const name of rule.params) {
        const value = url.searchParams.get(name);
        if (!value) continue;
        const target = rule.decode ? rule.decode(value) : value;
        if (target && /^https?:\/\//i.test(target)) return target;
      }
    }
    return null;
  }

  /**
   * Whether `url` belongs to one of `hosts` (the engine's own pages are not sources).
   * @param {string} url
   * @param {(string|RegExp)[]} hosts  registrable names such as "perplexity.ai", or a pattern
   *   for engines with many country domains
   */
  function isOwnHost(url, hosts) {
    let host;
    try {
      host = new URL(url).hostname;
    } catch {
      return false;
    }
    return hosts.some((own) =>
      typeof own === 'string' ? host === own || host.endsWith('.' + own) : own.test(host),
    );
  }

  CL.urls = { normalizeUrl, decodeBingParam, textFragmentOf, isOwnHost };
})((globalThis.CiteLens ??= {}));
