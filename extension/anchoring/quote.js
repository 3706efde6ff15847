/*
 * Finding a span again after the page changed (the engine re-rendered, or streamed more text).
 *
 * Runs in: content scripts. Hypothesis habit: try the cheap selector first (the position), check
 * the quote there, and only then search for the quote; never highlight text that does not match.
 */
'use strict';
(function (CL) {
  // Characters of context kept on each side, as a W3C TextQuoteSelector's prefix and suffix.
  const CONTEXT = 32;

  /**
   * @typedef {object} SpanSelector
   * @property {number} start   TextPosition: [start, end) in the text the span was taken from
   * @property {number} end
   * @property {string} exact   TextQuote: the characters that were there…
   * @property {string} prefix  …what came before them…
   * @property {string} suffix  …and after
   */

  /**
   * @param {string} text
   * @param {number} start
   * @param {number} end
   * @returns {SpanSelector}
   */
  function selectorFor(text, start, end) {
    return {
      start,
      end,
      exact: text.slice(start, end),
      prefix: text.slice(Math.max(0, start - CONTEXT), start),
      suffix: text.slice(end, end + CONTEXT),
    };
  }

  /** Length of the common end of a and b. @param {string} a @param {string} b */
  function commonEnd(a, b) {
    let n = 0;
    while (n < a.length && n < b.length && a[a.length - 1 - n] === b[b.length - 1 - n]) n++;
    return n;
  }

  /** Length of the common start of a and b. @param {string} a @param {string} b */
  function commonStart(a, b) {
    let n = 0;
    while (n < a.length && n < b.length && a[n] === b[n]) n++;
    return n;
  }

  /**
   * Where the selected characters are in `text` now: the same position when the quote still
   * matches there; else the occurrence whose context matches best, the nearest on a tie (an
   * answer that says "A cat." twice); else null.
   * @param {string} text
   * @param {SpanSelector} selector
   * @returns {{start: number, end: number}|null}
   */
  function locate(text, selector) {
    const { start, end, exact } = selector;
    if (!exact) return null;
    if (text.slice(start, end) === exact) return { start, end };
    let best = -1;
    let bestScore = -1;
    for (let at = text.indexOf(exact); at >= 0; at = text.indexOf(exact, at + 1)) {
      const score =
        commonEnd(text.slice(Math.max(0, at - CONTEXT), at), selector.prefix || '') +
        commonStart(text.slice(at + exact.length, at + exact.length + CONTEXT), selector.suffix || '');
      if (score > bestScore || (score === bestScore && Math.abs(at - start) < Math.abs(best - start))) {
        best = at;
        bestScore = score;
      }
    }
    return best < 0 ? null : { start: best, end: best + exact.length };
  }

  CL.anchoring = Object.assign(CL.anchoring || {}, { selectorFor, locate });
})((globalThis.CiteLens ??= {}));
