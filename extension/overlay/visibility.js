/*
 * What of the answer the reader sees (issue 60): the band that scrolling columns and folds leave
 * visible, the last line of a sentence that shows, and the fold that hides one. A badge, its
 * highlight's hover and its card belong to words on screen, never to a sentence folded away
 * under the page's next section.
 *
 * Runs in: content scripts. Reads layout; changes nothing.
 */
'use strict';
(function (CL) {
  /**
   * The visible band of the boxes that clip a range: scrolling columns, and folds that cut the
   * answer short with a height and `overflow: hidden` or `clip` (Google's "Show more").
   * @param {Range} range
   */
  function clipOf(range) {
    const start = range.startContainer;
    const doc = /** @type {Document} */ (start.ownerDocument);
    const view = /** @type {Window} */ (doc.defaultView);
    let top = 0;
    let bottom = view.innerHeight;
    let el = start.nodeType === 1 ? /** @type {Element} */ (start) : start.parentElement;
    for (; el && el !== doc.documentElement; el = el.parentElement) {
      const overflow = view.getComputedStyle(el).overflowY;
      if (overflow === 'auto' || overflow === 'scroll' || overflow === 'hidden' || overflow === 'clip') {
        const box = el.getBoundingClientRect();
        top = Math.max(top, box.top);
        bottom = Math.min(bottom, box.bottom);
      }
    }
    return { top, bottom };
  }

  /**
   * The last line of a sentence the reader can see, or null: inside the viewport and the band
   * of its clipping boxes (clipOf), and the page's own element at the line's middle is of the
   * sentence's block, so that nothing of the page lies over it (a fold's clip, a fade, a sticky
   * header). Without it a folded sentence's badge stood beside the next section of the page.
   * @param {DOMRect[]} rects  the sentence's line boxes, in order
   * @param {Element} block  the block the sentence is in
   * @param {{top: number, bottom: number}} clip
   * @param {Element} host  the overlay's own element (never the page's)
   * @returns {DOMRect|null}
   */
  function shownLine(rects, block, clip, host) {
    const doc = /** @type {Document} */ (host.ownerDocument);
    const view = /** @type {Window} */ (doc.defaultView);
    // No hit testing without layout (jsdom): the band decides.
    const hitTest = typeof doc.elementsFromPoint === 'function';
    for (let i = rects.length - 1; i >= 0; i--) {
      const r = rects[i];
      const middle = r.top + r.height / 2;
      if (middle <= clip.top || middle >= clip.bottom || middle <= 0 || middle >= view.innerHeight) continue;
      const x = Math.min(Math.max(r.left + Math.min(r.width / 2, 8), 0), CL.overlay.viewportRight(doc) - 1);
      if (!hitTest) return r;
      const hit = doc.elementsFromPoint(x, middle).find((el) => el !== host && !host.contains(el));
      if (hit && (block === hit || block.contains(hit))) return r;
    }
    return null;
  }

  /**
   * The block a sentence sits in: its nearest ancestor that is not inline.
   * @param {Range} range @param {Map<Element, Element>} cache  per layout pass
   */
  function blockOf(range, cache) {
    const node = range.commonAncestorContainer;
    const start = node.nodeType === 1 ? /** @type {Element} */ (node) : /** @type {Element} */ (node.parentElement);
    let block = cache.get(start);
    if (!block) {
      const doc = /** @type {Document} */ (start.ownerDocument);
      const view = /** @type {Window} */ (doc.defaultView);
      let el = start;
      while (el && el !== doc.body && view.getComputedStyle(el).display.startsWith('inline')) el = /** @type {Element} */ (el.parentElement);
      cache.set(start, (block = el || doc.documentElement));
    }
    return block;
  }

  /** The writing direction of the block a sentence is in. @param {Range} range */
  function directionOf(range) {
    const node = range.startContainer;
    const el = node.nodeType === 1 ? /** @type {Element} */ (node) : node.parentElement;
    return el && el.ownerDocument.defaultView ? el.ownerDocument.defaultView.getComputedStyle(el).direction : 'ltr';
  }

  /**
   * The element that folds a sentence away, or null: an ancestor that clips with `overflow:
   * hidden` or `clip` (a fold, not a column the reader scrolls) and shows none of its lines.
   * @param {Element} el  where the sentence starts @param {Range} range
   */
  function foldOf(el, range) {
    const doc = /** @type {Document} */ (el.ownerDocument);
    const view = /** @type {Window} */ (doc.defaultView);
    const rects = [...range.getClientRects()].filter((r) => r.width > 0);
    for (let up = el.parentElement; up && up !== doc.body; up = up.parentElement) {
      const overflow = view.getComputedStyle(up).overflowY;
      if (overflow !== 'hidden' && overflow !== 'clip') continue;
      const box = up.getBoundingClientRect();
      if (rects.length && rects.every((r) => r.top >= box.bottom - 1 || r.bottom <= box.top + 1)) return up;
    }
    return null;
  }

  /**
   * Calls `changed` when a style, class or visibility attribute changes on an element that holds
   * one of the sentences (Google's "Show more" lifts its fold so), so that their badges show as
   * the fold opens; changes elsewhere in the page are not the answer's. The overlay's own host
   * is outside body.
   * @param {Document} doc @param {() => Iterable<{ranges: Range[]}>} sentences @param {() => void} changed
   */
  function watchFolds(doc, sentences, changed) {
    const holds = (/** @type {Node} */ el) => {
      for (const { ranges } of sentences()) if (ranges[0] && el.contains(ranges[0].startContainer)) return true;
      return false;
    };
    const observer = new (/** @type {Window} */ (doc.defaultView).MutationObserver)((records) => {
      if (records.some((r) => holds(r.target))) changed();
    });
    observer.observe(doc.body || doc.documentElement, {
      attributes: true,
      subtree: true,
      attributeFilter: ['class', 'style', 'hidden', 'open', 'aria-expanded'],
    });
    return observer;
  }

  CL.overlay = Object.assign(CL.overlay || {}, { clipOf, shownLine, blockOf, directionOf, foldOf, watchFolds });
})((globalThis.CiteLens ??= {}));
