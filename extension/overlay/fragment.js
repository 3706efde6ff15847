/*
 * Links that open a cited page scrolled to the quote: URL Fragment Text Directives
 * (`#:~:text=`, WICG scroll-to-text-fragment). Runs in: content scripts. Pure.
 */
'use strict';
(function (CL) {
  // Long quotes use the textStart,textEnd form: a few words at each end match as well and
  // survive small differences (markup, ellipses) in between.
  const WHOLE_QUOTE_WORDS = 12;
  const EDGE_WORDS = 5;

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
    const words = quote.replace(/\s+/g, ' ').trim().split(' ').filter(Boolean);
    const base = url.replace(/:~:.*$/, '').replace(/#$/, '');
    if (!words.length) return base;
    const directive =
      words.length <= WHOLE_QUOTE_WORDS
        ? encodePart(words.join(' '))
        : `${encodePart(words.slice(0, EDGE_WORDS).join(' '))},${encodePart(words.slice(-EDGE_WORDS).join(' '))}`;
    return `${base}${base.includes('#') ? '' : '#'}:~:text=${directive}`;
  }

  CL.overlay = Object.assign(CL.overlay || {}, { fragmentUrl, encodeFragmentPart: encodePart });
})((globalThis.CiteLens ??= {}));
