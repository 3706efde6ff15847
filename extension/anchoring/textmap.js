/*
 * DOM → plain text with a character map, and character spans → DOM Ranges.
 *
 * Runs in: content scripts. Pure logic over a document: it knows nothing of adapters (they pass
 * hooks in) nor of the overlay (it hands out Ranges). The same map serves both directions, so the
 * offsets an adapter records and the spans the companion returns index one and the same string.
 */
'use strict';
(function (CL) {
  const SKIPPED_TAGS = new Set([
    'script', 'style', 'noscript', 'template', 'svg', 'math', 'button', 'input', 'textarea',
    'select', 'option', 'iframe', 'object', 'canvas', 'video', 'audio', 'img', 'citelens-overlay',
  ]);
  // Used where no layout exists (jsdom): the elements browsers display as blocks by default.
  const BLOCK_TAGS = new Set([
    'address', 'article', 'aside', 'blockquote', 'dd', 'details', 'dialog', 'div', 'dl', 'dt',
    'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
    'header', 'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'summary', 'table',
    'caption', 'thead', 'tbody', 'tfoot', 'tr', 'td', 'th', 'ul', 'body',
  ]);
  const SPACE = /[ \t\n\r\f\u00a0\u200b]/;

  /**
   * Whether an element starts a new line of text: headings, list items and table cells carry no
   * full stop, yet the companion must see them as statements of their own.
   * @param {Element} el
   */
  function isBlock(el) {
    const view = el.ownerDocument.defaultView;
    const style = view && view.getComputedStyle ? view.getComputedStyle(el) : null;
    if (style && style.display) {
      return !style.display.startsWith('inline') && style.display !== 'contents';
    }
    return BLOCK_TAGS.has(el.localName);
  }

  /** @param {Element} el */
  function isHidden(el) {
    if (el.hidden || el.getAttribute('aria-hidden') === 'true') return true;
    // checkVisibility sees stylesheet rules; jsdom lacks it and only has inline styles.
    const view = el.ownerDocument.defaultView;
    // display: contents has no box, so checkVisibility() calls it invisible: its children show.
    if (typeof el.checkVisibility === 'function') return !el.checkVisibility() && view?.getComputedStyle(el).display !== 'contents';
    const style = view && view.getComputedStyle ? view.getComputedStyle(el) : el.style;
    return style.display === 'none' || style.visibility === 'hidden';
  }

  /**
   * @typedef {object} MarkerInfo
   * @property {boolean} [keepText]  an inline link whose words belong to the sentence: the marker
   *   is placed where the link ends and its text stays
   */

  /**
   * @typedef {object} TextMapHooks
   * @property {(el: Element, before: string) => (MarkerInfo|null)} [marker]  non-null for a
   *   citation element; `before` is the text read so far (what the element follows)
   * @property {(el: Element) => boolean} [skip]              extra elements whose text is not answer text
   * @property {Range} [clip]                                 only text inside this range (a selection)
   */

  /**
   * @param {Element} root
   * @param {TextMapHooks} [hooks]
   */
  function buildTextMap(root, hooks = {}) {
    const doc = root.ownerDocument;
    const view = doc.defaultView;
    const clip = hooks.clip || null;
    /** @type {Text[]} */ const nodes = [];
    /** @type {number[]} */ const charNode = []; // index into nodes, -1 for a synthetic line break
    /** @type {number[]} */ const charOffset = [];
    /** @type {{offset: number, element: Element, info: MarkerInfo}[]} */ const markers = [];
    /** @type {{element: Element, info: MarkerInfo}[]} */ const openLinks = [];
    let text = '';
    let pendingSpace = /** @type {{node: number, offset: number}|null} */ (null);
    let pendingBreak = false;
    /** @type {Element|null} */ let lastBlock = null;
    const blockCache = new Map();

    const blockOf = (/** @type {Node} */ node) => {
      let el = node.parentElement;
      while (el && el !== root) {
        let block = blockCache.get(el);
        if (block === undefined) blockCache.set(el, (block = isBlock(el)));
        if (block) return el;
        el = el.parentElement;
      }
      return root;
    };
    const closeLinksOutside = (/** @type {Node|null} */ node) => {
      while (openLinks.length && !(node && openLinks[openLinks.length - 1].element.contains(node))) {
        const link = /** @type {{element: Element, info: MarkerInfo}} */ (openLinks.pop());
        markers.push({ offset: text.length, element: link.element, info: link.info });
      }
    };
    const emit = (/** @type {string} */ ch, /** @type {number} */ node, /** @type {number} */ offset) => {
      text += ch;
      charNode.push(node);
      charOffset.push(offset);
    };

    const walker = doc.createTreeWalker(root, view.NodeFilter.SHOW_ELEMENT | view.NodeFilter.SHOW_TEXT, {
      acceptNode(node) {
        if (node.nodeType === 3) return view.NodeFilter.FILTER_ACCEPT;
        const el = /** @type {Element} */ (node);
        if (clip && !clip.intersectsNode(el)) return view.NodeFilter.FILTER_REJECT;
        closeLinksOutside(el);
        const info = hooks.marker ? hooks.marker(el, text) : null;
        if (info && info.keepText) {
          openLinks.push({ element: el, info });
          return view.NodeFilter.FILTER_ACCEPT;
        }
        if (info) {
          // The marker's own text ("1", "reddit +2") is not answer text: record where it stood.
          markers.push({ offset: text.length, element: el, info });
          return view.NodeFilter.FILTER_REJECT;
        }
        if (SKIPPED_TAGS.has(el.localName) || isHidden(el) || (hooks.skip && hooks.skip(el))) {
          return view.NodeFilter.FILTER_REJECT;
        }
        return view.NodeFilter.FILTER_ACCEPT;
      },
    });

    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.nodeType === 1) {
        if (/** @type {Element} */ (node).localName === 'br') pendingBreak = true;
        continue;
      }
      closeLinksOutside(node);
      const data = /** @type {Text} */ (node).data;
      let from = 0;
      let to = data.length;
      if (clip) {
        if (!clip.intersectsNode(node)) continue;
        if (clip.startContainer === node) from = clip.startOffset;
        if (clip.endContainer === node) to = clip.endOffset;
      }
      const block = blockOf(node);
      if (lastBlock && block !== lastBlock) pendingBreak = true;
      let index = -1;
      for (let i = from; i < to; i++) {
        const ch = data[i];
        if (SPACE.test(ch)) {
          if (!pendingSpace) {
            if (index < 0) index = nodes.push(/** @type {Text} */ (node)) - 1;
            pendingSpace = { node: index, offset: i };
          }
          continue;
        }
        if (index < 0) index = nodes.push(/** @type {Text} */ (node)) - 1;
        if (text.length && pendingBreak) {
          if (!text.endsWith('\n')) emit('\n', -1, 0);
        } else if (text.length && pendingSpace && !text.endsWith('\n')) {
          emit(' ', pendingSpace.node, pendingSpace.offset);
        }
        pendingSpace = null;
        pendingBreak = false;
        lastBlock = block;
        emit(ch, index, i);
      }
    }
    closeLinksOutside(null);
    markers.sort((a, b) => a.offset - b.offset);
    return new TextMap(text, nodes, charNode, charOffset, markers);
  }

  class TextMap {
    /**
     * @param {string} text
     * @param {Text[]} nodes
     * @param {number[]} charNode
     * @param {number[]} charOffset
     * @param {{offset: number, element: Element, info: MarkerInfo}[]} markers
     */
    constructor(text, nodes, charNode, charOffset, markers) {
      this.text = text;
      this.nodes = nodes;
      this.charNode = charNode;
      this.charOffset = charOffset;
      this.markers = markers;
    }

    /**
     * Where its block begins, for each marker offset that closes a block (a line of the text: the
     * map puts a line break between blocks) and is the only marker in it; the citations of one
     * chip share its offset. A marker with words of its block after it, or among other markers,
     * is left out: the engine marked that block's sentences one by one.
     * @returns {Map<number, number>} marker offset → the offset where its block begins
     */
    closingMarkers() {
      const offsets = this.markers.map((m) => m.offset);
      const starts = new Map();
      for (const offset of new Set(offsets)) {
        const start = this.text.lastIndexOf('\n', offset - 1) + 1;
        const end = this.text.indexOf('\n', offset);
        if (this.text.slice(offset, end < 0 ? this.text.length : end).trim()) continue;
        if (offsets.some((o) => o > start && o < offset)) continue;
        starts.set(offset, start);
      }
      return starts;
    }

    /** Whether every text node the map points into is still in the document. */
    isLive() {
      return this.nodes.every((node) => node.isConnected);
    }

    /**
     * The DOM Range of the characters [start, end) of `text`, white space at both ends left out;
     * null when the span is empty or its nodes have left the document.
     * @param {number} start
     * @param {number} end
     * @returns {Range|null}
     */
    rangeFor(start, end) {
      start = Math.max(0, start);
      end = Math.min(this.text.length, end);
      while (start < end && (this.charNode[start] < 0 || SPACE.test(this.text[start]))) start++;
      while (end > start && (this.charNode[end - 1] < 0 || SPACE.test(this.text[end - 1]))) end--;
      if (end <= start) return null;
      const first = this.nodes[this.charNode[start]];
      const last = this.nodes[this.charNode[end - 1]];
      if (!first.isConnected || !last.isConnected) return null;
      const range = first.ownerDocument.createRange();
      range.setStart(first, this.charOffset[start]);
      range.setEnd(last, this.charOffset[end - 1] + 1);
      return range;
    }
  }

  CL.anchoring = Object.assign(CL.anchoring || {}, { buildTextMap, TextMap, isHidden });
})((globalThis.CiteLens ??= {}));
