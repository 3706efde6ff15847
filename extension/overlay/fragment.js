/*
 * Links that open a cited page scrolled to the quote: URL Fragment Text Directives
 * (`#:~:text=`, WICG scroll-to-text-fragment), by the fragment rules of shared/url-rules.json;
 * the companion's text_fragment (companion/text/urls.py) gives the same link. Runs in: content
 * scripts. Pure.
 */
'use strict';
(function (CL) {
  const RULES = CL.urlRules.fragment;

  /**
   * encodeURIComponent leaves "-" alone, but in a text directive "-" marks prefix/suffix, and
   * "," and "&" separate parts and directives: all three must be escaped.
   * @param {string} s
   */
  function encodePart(s) {
    return encodeURIComponent(s).replace(/-/g, '%2D').replace(/,/g, '%2C').replace(/&/g, '%26');
  }

  /**
   * @param {string} url    the cited page
   * @param {string} quote  the evidence sentence
   * @returns {string}
   */
  function fragmentUrl(url, quote) {
    // A lone surrogate (a cut emoji) would make encodeURIComponent throw.
    const text = quote.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
    const words = text.split(/\s+/).filter(Boolean);
    const hashAt = url.indexOf('#');
    const plain = hashAt < 0 ? '' : url.slice(hashAt + 1).split(':~:')[0];
    let base = hashAt < 0 ? url : url.slice(0, hashAt);
    if (RULES.keep_plain && plain) base += `#${plain}`;
    if (!words.length) return base;
    const edge = RULES.edge_words;
    const directive =
      words.length <= RULES.whole_quote_max_words
        ? encodePart(words.join(' '))
        : `${encodePart(words.slice(0, edge).join(' '))},${encodePart(words.slice(-edge).join(' '))}`;
    return `${base}${base.includes('#') ? '' : '#'}:~:text=${directive}`;
  }

  CL.overlay = Object.assign(CL.overlay || {}, { fragmentUrl });
})((globalThis.CiteLens ??= {}));
