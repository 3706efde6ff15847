/*
 * Read through my browser (docs/api.md `browser_may_read`): which sources qualify, the host
 * permission patterns to ask for, and which URLs are never read, by the shared private_hosts
 * rules of url-rules.json (the companion applies the same ones to what the browser sends).
 *
 * Runs in: content scripts (which sources qualify), the service worker and the permit page
 * (origins, refusals). Pure; a classic script on globalThis for the reason messages.js gives.
 * Needs shared/url-rules.js first.
 */
'use strict';
(function (CL) {
  /**
   * The sources the companion could not read but the reader's browser may: inaccessible, marked
   * `browser_may_read`, and not already read through the browser. Given the statement lines, only
   * those a statement could not be judged for because they were unread (a per_citation
   * `inaccessible`): a page cited only by sentences left unchecked for their language would be
   * read for nothing (issue 60: offer the browser only where it can help).
   * @param {Iterable<{url: string, status: string, browser_may_read?: boolean, via?: string}>} sources
   * @param {Iterable<{per_citation?: {url: string, judgment: string}[]}>} [lines]
   * @returns {string[]}
   */
  function browserReadable(sources, lines) {
    /** @type {Set<string>|null} */
    let wanted = null;
    if (lines) {
      wanted = new Set();
      for (const line of lines) for (const pc of line.per_citation || []) if (pc.judgment === 'inaccessible') wanted.add(pc.url);
    }
    const urls = [];
    for (const s of sources) {
      if (s.status !== 'inaccessible' || s.browser_may_read !== true || s.via === 'browser' || urls.includes(s.url)) continue;
      if (!wanted || wanted.has(s.url)) urls.push(s.url);
    }
    return urls;
  }

  /**
   * The host permission pattern for a page: its scheme and host, any path. Match patterns carry
   * no port, so a grant is for the host on every port (as the browser shows it to the reader).
   * @param {string} url
   */
  function originPattern(url) {
    const u = new URL(url);
    return `${u.protocol}//${u.hostname}/*`;
  }

  /** The patterns for some pages, each once, sorted. @param {string[]} urls */
  function originPatterns(urls) {
    return [...new Set(urls.map(originPattern))].sort();
  }

  /**
   * Why the browser must not read this URL for CiteLens, or '' when it may: not http(s), a user
   * name in it, or a host that is this machine or its network, unless the companion runs with
   * `--allow-private` for exactly that host:port (the test switch, read from its health).
   * @param {string} url
   * @param {string[]} [allowPrivate]  host:port pairs, as the companion's health lists them
   */
  function refusal(url, allowPrivate = []) {
    let u;
    try {
      u = new URL(url);
    } catch {
      return 'not a valid address';
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return `only http and https pages are read (not ${u.protocol})`;
    if (u.username || u.password) return 'a user name or password in the link';
    const port = u.port || (u.protocol === 'https:' ? '443' : '80');
    if (allowPrivate.includes(`${u.hostname}:${port}`)) return '';
    const why = privateHost(u.hostname);
    return why ? `blocked address: ${u.hostname} is ${why}` : '';
  }

  /**
   * Why a host (as URL.hostname writes it: lower case, IPv4 dotted, IPv6 in brackets) is this
   * machine or its network, or ''.
   * @param {string} host
   */
  function privateHost(host) {
    const rules = CL.urlRules.private_hosts;
    const name = host.replace(/\.$/, '');
    if (name.startsWith('[')) return privateIPv6(parseIPv6(name.slice(1, -1)), rules);
    const v4 = parseIPv4(name);
    if (v4 !== null) return privateIPv4(v4, rules);
    if (rules.names.includes(name) || rules.suffixes.some((/** @type {string} */ s) => name.endsWith(s))) {
      return 'a name for this machine or its local network';
    }
    return '';
  }

  /** @param {number} ip @param {any} rules */
  function privateIPv4(ip, rules) {
    for (const cidr of rules.ipv4) {
      const [base, bits] = cidr.split('/');
      const size = Number(bits);
      const mask = size === 0 ? 0 : (~0 << (32 - size)) >>> 0;
      if (((ip & mask) >>> 0) === ((/** @type {number} */ (parseIPv4(base)) & mask) >>> 0)) return 'not a public address';
    }
    return '';
  }

  /** @param {bigint|null} ip @param {any} rules */
  function privateIPv6(ip, rules) {
    if (ip === null) return 'not a valid address';
    // IPv6 forms that carry an IPv4 address are judged as that address (as companion/sources/addresses.py does).
    for (const form of rules.ipv6_embedded) {
      if (inV6(ip, form.prefix)) {
        const [from, to] = form.bits;
        let v4 = Number((ip >> BigInt(128 - to)) & ((1n << BigInt(to - from)) - 1n));
        if (form.inverted) v4 = (~v4) >>> 0;
        return privateIPv4(v4 >>> 0, rules);
      }
    }
    if (!inV6(ip, rules.ipv6_global)) return 'not a public address';
    return rules.ipv6.some((/** @type {string} */ cidr) => inV6(ip, cidr)) ? 'not a public address' : '';
  }

  /** @param {bigint} ip @param {string} cidr */
  function inV6(ip, cidr) {
    const [base, bits] = cidr.split('/');
    const shift = BigInt(128 - Number(bits));
    return ip >> shift === /** @type {bigint} */ (parseIPv6(base)) >> shift;
  }

  /** Dotted IPv4 (the URL parser has already rewritten 0x7f.1, 2130706433…) to a number, else null. @param {string} host */
  function parseIPv4(host) {
    const parts = host.split('.');
    if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return null;
    return parts.reduce((n, p) => n * 256 + Number(p), 0);
  }

  /** An IPv6 address (without brackets) to a 128-bit number, else null. @param {string} text */
  function parseIPv6(text) {
    let groups = text.split('::');
    if (groups.length > 2) return null;
    const head = groups[0] ? groups[0].split(':') : [];
    const tail = groups.length === 2 && groups[1] ? groups[1].split(':') : [];
    const last = tail.length ? tail : head;
    if (last.length && last[last.length - 1].includes('.')) {
      const v4 = parseIPv4(/** @type {string} */ (last.pop()));
      if (v4 === null) return null;
      last.push((v4 >>> 16).toString(16), (v4 & 0xffff).toString(16));
    }
    const missing = 8 - head.length - tail.length;
    if (groups.length === 1 ? missing !== 0 : missing < 1) return null;
    groups = [...head, ...Array(groups.length === 2 ? missing : 0).fill('0'), ...tail];
    let n = 0n;
    for (const g of groups) {
      if (!/^[0-9a-f]{1,4}$/i.test(g)) return null;
      n = (n << 16n) | BigInt(parseInt(g, 16));
    }
    return n;
  }

  CL.browserRead = Object.freeze({ browserReadable, originPattern, originPatterns, refusal, privateHost });
})((globalThis.CiteLens ??= {}));
