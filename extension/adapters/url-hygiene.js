/*
 * Citation URL hygiene (docs/engines.md), by the rules of shared/url-rules.json that the companion
 * applies too: unwrap redirectors, drop tracking parameters and fragments, keep the textStart of
 * a `#:~:text=` directive as the citation's hint. Pure functions over strings; the URL class
 * parses and serializes (the WHATWG URL Standard, which companion/text/urls.py follows).
 *
 * Runs in: content scripts (and the unit tests, in jsdom), after shared/url-rules.js.
 */
'use strict';
(function (CL) {
  const RULES = CL.urlRules;
  const DECODERS = { 'bing-a1': decodeBingParam };

  /** @typedef {{host?: RegExp, origin?: string, path: RegExp, params: string[], decode?: (v: string) => string|null}} Redirector */

  /** @type {Redirector[]} */
  const REDIRECTORS = RULES.redirectors.map((/** @type {any} */ rule) => {
    if (rule.decode && !DECODERS[rule.decode]) throw new Error(`url-rules.json: unknown decode ${rule.decode} for ${rule.name}`);
    return { host: new RegExp(rule.host), path: new RegExp(rule.path), params: rule.params, decode: DECODERS[rule.decode] };
  });
  const TRACKING = RULES.tracking;

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

  /** application/x-www-form-urlencoded decoding of one name or value, as URLSearchParams does it. */
  function formDecode(/** @type {string} */ s) {
    return new URLSearchParams('x=' + s).get('x') || '';
  }

  /** Whether one raw `key=value` piece of a query only tracks the reader. @param {string} piece */
  function isTracking(piece) {
    const eq = piece.indexOf('=');
    const key = formDecode(eq < 0 ? piece : piece.slice(0, eq)).toLowerCase();
    if (TRACKING.keys.includes(key) || TRACKING.prefixes.some((/** @type {string} */ p) => key.startsWith(p))) return true;
    if (!TRACKING.engine_valued_keys.includes(key)) return false;
    const value = formDecode(eq < 0 ? '' : piece.slice(eq + 1)).toLowerCase();
    return TRACKING.engine_values.some((/** @type {string} */ name) => value === name || value.endsWith('.' + name));
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
    const text = String(raw).trim();
    let url;
    try {
      // An absolute address is read without the base, as the companion reads it: with a base of
      // the same scheme, "https:/x.org/a" would be a path on the page's own site.
      url = /^[a-z][a-z0-9+.-]*:/i.test(text) ? new URL(text) : new URL(text, base);
    } catch {
      return null;
    }
    const origin = new URL(base).origin;
    const rules = REDIRECTORS.concat(ownRedirectors.map((r) => ({ ...r, origin })));
    for (let hops = 0; hops < RULES.max_redirects; hops++) {
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
    // Chromium lets a space into a host as "%20"; the URL Standard (and the companion) refuse it.
    if (url.hostname.includes('%')) return null;
    const hint = textFragmentOf(url.hash);
    // The raw pieces are kept as they are: going through searchParams would re-encode them all.
    const query = url.search.slice(1).split('&').filter((piece) => piece && !isTracking(piece)).join('&');
    // The setter drops one leading "?", which may be the query's own first character.
    url.search = query && `?${query}`;
    url.hash = RULES.fragment.keep_plain ? url.hash.slice(1).split(':~:')[0] : '';
    return { url: url.href, hint };
  }

  /**
   * @param {URL} url
   * @param {Redirector[]} rules
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
