/*
 * The capture contract every adapter shares (Zotero-translator habit: each site file is data
 * plus a few small pure functions; the procedure lives here once).
 *
 * Runs in: content scripts. Uses anchoring (adapters → anchoring), never the overlay.
 */
'use strict';
(function (CL) {
  // What the reader is told when the capture fails, in their language (shared/i18n.js).
  const MESSAGES = Object.freeze({ get NO_ANSWER() { return CL.i18n.t('capture_no_answer'); }, get NO_CITATIONS() { return CL.i18n.t('capture_no_citations'); } });
  // "[3]", "3", "¹", "3, 4", "1-3": link text that is a marker, not words of the sentence.
  const MARKER_TEXT = /^[[(【]?\s*(\d{1,3}|[⁰¹²³⁴⁵⁶⁷⁸⁹]+)(\s*[-–,]\s*\d{1,3})*\s*[\])】]?$/;
  // A short link right after a sentence's end ("…in Paris. wikipedia") is a source chip.
  const SENTENCE_END = /[.!?;:)"”’\]]\s*$/;
  const CHIP_MAX_CHARS = 40;
  const CHIP_MAX_WORDS = 3;
  // A marker is a label ("3", "reddit +2"); the companion refuses one of 64 characters or more.
  const MARKER_MAX_CHARS = 40;

  class CaptureError extends Error {
    /** @param {'no_answer'|'no_citations'} code @param {string} message @param {Element|null} [container]  where the answer was, if found */
    constructor(code, message, container = null) {
      super(message);
      this.code = code;
      this.container = container;
    }
  }

  /** @type {Map<string, Adapter>} */
  const registry = new Map();

  /**
   * @typedef {object} AdapterMeta
   * @property {string} id
   * @property {string} label
   * @property {string} engine         the `page.engine` sent to the companion
   * @property {RegExp} target         URLs this adapter is for
   * @property {string} lastUpdated    also the adapter_version of its captures
   */

  /**
   * @typedef {object} AdapterSelectors
   * @property {string[]} signature    markup found only on this engine's answer pages (for fixtures and mirrors served elsewhere)
   * @property {string[]} containers   every known answer-container selector; the union is tried
   * @property {string[]} citations    citation elements: chips, pills, markers
   * @property {string[]} [query]      where the question is shown
   * @property {string[]} [expand]     "show more" controls to open before reading the answer
   * @property {string[]} [skip]       elements inside the answer that are not answer text
   * @property {string[]} [turns]      one element per turn of a conversation (see answerBlocks)
   */

  /**
   * @typedef {object} Adapter
   * @property {AdapterMeta} meta
   * @property {(string|RegExp)[]} ownHosts  the engine's own sites: links there are not sources
   * @property {AdapterSelectors} selectors
   * @property {RegExp[]} [ownPages]  the engine's app pages (threads, searches), never sources. With
   *   it, a citation element or a link standing as a marker ("[2]") may point at the engine's own
   *   hosts (an answer about the engine cites its help centre); without it, no citation may.
   *   ownHosts are the app's hosts only, never its company's whole domain (issue 25)
   * @property {{path: RegExp, params: string[]}[]} [ownRedirectors]
   * @property {boolean} [inlineLinks]   external links in the prose are citations too (their words
   *   stay, unless the link is a marker or a chip)
   * @property {number} [minCitations]    a container with fewer is not the answer (default 0)
   * @property {boolean} [citesBlock]  a chip alone in a paragraph or list item, at its end, cites all of it (`block_start`)
   * @property {(el: Element) => string[]} [citationUrls]  raw URLs a citation element carries, hidden "+N" ones included
   * @property {(el: Element) => number} [hiddenCount]     how many sources a chip says it hides
   * @property {(el: Element) => boolean} [isCitation]   instead of selectors.citations, for what selectors cannot say
   * @property {(doc: Document, hasSelection: boolean) => Element[]} [candidates]
   * @property {(doc: Document, container: Element) => string} [queryFor]
   */

  /** @param {Adapter} adapter */
  function define(adapter) {
    registry.set(adapter.meta.id, adapter);
    return adapter;
  }

  /** @param {ParentNode} root @param {string[]} selectors */
  function queryAll(root, selectors) {
    const found = new Set();
    for (const selector of selectors) {
      try {
        root.querySelectorAll(selector).forEach((el) => found.add(el));
      } catch {
        // A selector the browser cannot parse must not hide the others.
      }
    }
    // Document order, whatever the order of the selectors: "latest" below means last in the page.
    return [...found].sort((a, b) => (a.compareDocumentPosition(b) & 4 ? -1 : 1));
  }

  /** @param {Element} el @param {string[]} selectors */
  function matchesAny(el, selectors) {
    return selectors.some((selector) => {
      try {
        return el.matches(selector);
      } catch {
        return false;
      }
    });
  }

  /** Raw URLs a citation element carries: its own href/data-*-url and those of its children. */
  function defaultCitationUrls(/** @type {Element} */ el) {
    const urls = [];
    for (const node of [el, ...el.querySelectorAll('*')]) {
      if (node.localName === 'a' && node.getAttribute('href')) urls.push(node.getAttribute('href'));
      for (const attr of node.attributes) {
        if (/^data-[\w-]*url$/.test(attr.name) && attr.value) urls.push(attr.value);
      }
    }
    return urls;
  }

  /** "+2" at the end of a chip ("reddit +2"), or "(+4)" in its name: sources it hides behind a hover. */
  function defaultHiddenCount(/** @type {Element} */ el) {
    const named = el.closest('[aria-label]') === el ? el : el.querySelector('[aria-label]');
    const match = /\+\s*(\d{1,2})\s*$/.exec(visibleText(el)) || /\(\+(\d{1,2})\)/.exec(named?.getAttribute('aria-label') || '');
    return match ? Number(match[1]) : 0;
  }

  /**
   * What the reader sees of a chip: not its hidden popover, and separate spans kept apart
   * ("reddit" "+2" → "reddit +2") as the engine's CSS gap shows them.
   * @param {Element} el
   */
  function visibleText(el) {
    const parts = [];
    for (const node of el.childNodes) {
      if (node.nodeType === 3) parts.push(/** @type {Text} */ (node).data);
      else if (node.nodeType === 1 && !CL.anchoring.isHidden(/** @type {Element} */ (node))) {
        parts.push(' ', visibleText(/** @type {Element} */ (node)), ' ');
      }
    }
    return squash(parts.join(''));
  }

  const squash = (/** @type {string} */ s) => s.replace(/\s+/g, ' ').trim();

  /** A marker's label, short: "Phones Store Kenya (+4) – View related links" → "Phones Store Kenya". @param {string} text */
  function shortLabel(text) {
    const label = squash(text);
    if (label.length <= MARKER_MAX_CHARS) return label;
    const head = squash(label.split(/\s[–—-]\s|[(|·]/)[0]);
    if (head && head.length <= MARKER_MAX_CHARS) return head;
    return label.slice(0, MARKER_MAX_CHARS - 1).replace(/\s+\S*$/, '') + '…';
  }

  /** One adapter's data bound to a page. @param {Adapter} adapter @param {string} pageUrl @param {(string|RegExp)[]} extraOwnHosts */
  function bind(adapter, pageUrl, extraOwnHosts) {
    const pageHost = new URL(pageUrl).host;
    const page = pageUrl.replace(/#.*$/, '');
    const own = (adapter.ownHosts || []).concat(extraOwnHosts);
    const isCitation = adapter.isCitation || ((/** @type {Element} */ el) => matchesAny(el, adapter.selectors.citations));
    const skip = adapter.selectors.skip || [];
    const counts = new Map();

    const normalized = new Map();
    /** @param {string} raw @param {boolean} cited  from a citation element @returns {{url: string, hint: string}|null} */
    const clean = (raw, cited) => {
      if (!normalized.has(raw)) normalized.set(raw, CL.urls.normalizeUrl(raw, pageUrl, adapter.ownRedirectors));
      const result = normalized.get(raw);
      if (!result || result.url === page) return null;
      if (cited && adapter.ownPages) return adapter.ownPages.some((p) => p.test(result.url)) ? null : result;
      if (new URL(result.url).host === pageHost || CL.urls.isOwnHost(result.url, own)) return null;
      return result;
    };

    /** A citation element's clean URLs; null for any other element. @param {Element} el */
    const citedUrls = (el) => {
      if (!isCitation(el)) return null;
      const cleaned = (adapter.citationUrls || defaultCitationUrls)(el).map((u) => clean(u, true)).filter((u) => u !== null);
      return cleaned.length ? cleaned : null;
    };

    /** @param {Element} el @param {string} [before] the answer text up to the element */
    const markerInfo = (el, before = '') => {
      // A chip whose sources are not in the page (popover not loaded, an id the map lacks) cites
      // nothing checkable, but its label ("instaclustr +2") is still not answer text.
      const cleaned = citedUrls(el) || (isCitation(el) && visibleText(el).length <= CHIP_MAX_CHARS ? [] : null);
      if (cleaned) {
        const hidden = (adapter.hiddenCount || defaultHiddenCount)(el);
        // `resolved` counts before de-duplication: a popover may repeat the chip's own source.
        return { urls: dedupe(cleaned), resolved: cleaned.length, hidden, marker: markerLabel(el), keepText: false };
      }
      if (adapter.inlineLinks && el.localName === 'a' && el.getAttribute('href')) {
        const label = squash(el.textContent || '');
        const chip =
          !label ||
          MARKER_TEXT.test(label) ||
          (label.length <= CHIP_MAX_CHARS && label.split(' ').length <= CHIP_MAX_WORDS && SENTENCE_END.test(before));
        // A link standing as a marker ("[2]") cites like a citation element: to the engine's blog
        // too (ownPages). Words linked in the prose to the engine's own site are its UI.
        const target = clean(/** @type {string} */ (el.getAttribute('href')), chip);
        if (!target) return null;
        return { urls: [target], resolved: 1, hidden: 0, marker: label, keepText: !chip };
      }
      return null;
    };

    const cites = new Map();
    /** Citation elements in a container, not those nested in another (a chip's popover) nor skipped. */
    const citationCount = (/** @type {Element} */ container) => {
      if (counts.has(container)) return counts.get(container);
      let [count, last] = [0, /** @type {Element|null} */ (null)];
      for (const el of container.querySelectorAll('*')) {
        if (last && last.contains(el)) continue;
        // Labels and hidden counts are not needed to count (visibleText is slow without layout).
        const cited = () => citedUrls(el) || (adapter.inlineLinks && el.localName === 'a' && markerInfo(el)?.urls.length);
        if (!cites.has(el)) cites.set(el, skip.length && matchesAny(el, skip) ? 'skip' : !!cited());
        if (cites.get(el) === 'skip') last = el;
        else if (cites.get(el)) {
          count++;
          last = el;
        }
      }
      counts.set(container, count);
      return count;
    };

    return { markerInfo, citationCount, skip };
  }

  /** @param {{url: string, hint: string}[]} list */
  function dedupe(list) {
    const seen = new Set();
    return list.filter((item) => !seen.has(item.url) && seen.add(item.url));
  }

  const markerLabel = (/** @type {Element} */ el) => visibleText(el) || el.getAttribute('aria-label') || '';

  /** Clicks the engine's "show more" controls. @param {Adapter} adapter @param {Document} doc @returns {number} how many */
  function prepare(adapter, doc) {
    const controls = queryAll(doc, adapter.selectors.expand || []);
    controls.forEach((el) => /** @type {HTMLElement} */ (el).click());
    return controls.length;
  }

  /**
   * The answer on the page as this adapter reads it.
   * @param {Adapter} adapter
   * @param {Document} doc
   * @param {{url: string, selection?: Selection|null, engine?: string, ownHosts?: (string|RegExp)[],
   *   within?: Element}} context  `engine` and `ownHosts` of the engine page when this is the
   *   generic fallback; `within`: the container an engine adapter found, to read with other rules
   * @returns {{capture: import('../shared/types.js').Capture, map: any, container: Element}}
   * @throws {CaptureError}
   */
  function capture(adapter, doc, context) {
    const bound = bind(adapter, context.url, context.ownHosts || []);
    const { selection } = context;
    const selected = !!selection && !!selection.rangeCount && !selection.isCollapsed && !!selection.toString().trim();
    const inSkip = (/** @type {Element} */ el) => bound.skip.some((s) => matchesAny(el, [`${s}, ${s} *`]));
    const found = context.within
      ? [context.within]
      : (adapter.candidates ? adapter.candidates(doc, selected) : queryAll(doc, adapter.selectors.containers))
          .filter((el) => !CL.anchoring.isHidden(el) && !inSkip(el));
    let blocks, clip;
    if (selected) {
      clip = /** @type {Selection} */ (selection).getRangeAt(0);
      const inside = found.filter((el) => el.contains(clip.commonAncestorContainer));
      // The innermost holder: a selection inside one answer must not drag in the whole thread.
      blocks = inside.filter((el) => !inside.some((other) => other !== el && el.contains(other))).slice(0, 1);
    } else if (context.within) {
      blocks = found;
    } else {
      blocks = answerBlocks(doc, adapter.selectors.turns || [], found, bound.citationCount, adapter.minCitations || 0, selection);
    }
    if (!blocks.length) throw new CaptureError('no_answer', MESSAGES.NO_ANSWER);
    let container = blocks[0];
    while (container.parentElement && !blocks.every((b) => container.contains(b))) container = container.parentElement;

    const map = CL.anchoring.buildTextMap(container, {
      marker: bound.markerInfo,
      // Several turns on screen: their common ancestor is read, and only inside their answers.
      skip: (el) =>
        (bound.skip.length > 0 && matchesAny(el, bound.skip)) ||
        (blocks.length > 1 && !blocks.some((b) => b.contains(el) || el.contains(b))),
      clip,
    });
    if (!map.text.trim()) throw new CaptureError('no_answer', MESSAGES.NO_ANSWER);

    const [citations, seen, closing] = [[], new Set(), adapter.citesBlock ? map.closingMarkers() : new Map()];
    let [chips, unresolved] = [0, 0];
    for (const { offset, info } of map.markers) {
      chips += info.hidden;
      unresolved += Math.max(0, info.hidden - (info.resolved - 1));
      const marker = shortLabel(info.marker);
      for (const { url, hint } of info.urls) {
        if (seen.has(offset + ' ' + url)) continue;
        seen.add(offset + ' ' + url);
        citations.push({ offset, url, marker, ...(hint && { hint }), ...(closing.has(offset) && { block_start: closing.get(offset) }) });
      }
    }
    if (!citations.length) throw new CaptureError('no_citations', MESSAGES.NO_CITATIONS, container);

    return {
      capture: {
        text: map.text,
        citations,
        query: (adapter.queryFor || defaultQuery)(doc, container, adapter, context.url),
        engine: context.engine || adapter.meta.engine,
        adapter: adapter.meta.id,
        adapter_version: adapter.meta.lastUpdated,
        hidden_sources: { chips, unresolved },
      },
      map,
      container,
    };
  }

  /**
   * Which answer to read. Without turns: the candidate holding the most citations (choose). In a
   * conversation, one answer per turn, and of those: the turn holding the selection or the caret
   * (a click in a turn picks it); else every turn on screen, when one of them cites; else the
   * citing turn nearest the screen. Without layout (jsdom) none is on screen and the latest wins.
   * @param {Document} doc @param {string[]} turnSelectors @param {Element[]} found
   * @param {(el: Element) => number} count @param {number} min @param {Selection|null|undefined} selection
   */
  function answerBlocks(doc, turnSelectors, found, count, min, selection) {
    const all = queryAll(doc, turnSelectors).filter((t) => found.some((el) => t.contains(el)));
    const turns = all.filter((t) => !all.some((other) => other !== t && t.contains(other)));
    if (!turns.length) {
      const best = choose(found, count, min);
      return best ? [best] : [];
    }
    const answers = turns
      .map((turn) => ({ turn, answer: choose(found.filter((el) => turn.contains(el)), count, min) }))
      .filter((a) => a.answer !== null);
    const anchor = selection && selection.rangeCount ? selection.anchorNode : null;
    const held = answers.find((a) => anchor && a.turn.contains(anchor));
    if (held) return [held.answer];
    const citing = answers.filter((a) => count(a.answer) > 0);
    const onScreen = answers.filter((a) => distanceFromView(a.turn) === 0);
    if (onScreen.some((a) => citing.includes(a))) return onScreen.map((a) => a.answer);
    const pool = citing.length ? citing : answers;
    const best = pool.reduce((b, a) => (distanceFromView(a.turn) <= distanceFromView(b.turn) ? a : b), pool[0]);
    return best ? [best.answer] : [];
  }

  /** Pixels between an element and the viewport, 0 when on screen; Infinity without layout. @param {Element} el */
  function distanceFromView(el) {
    const rect = el.getBoundingClientRect();
    if (!rect.width && !rect.height) return Infinity;
    const height = /** @type {Window} */ (el.ownerDocument.defaultView).innerHeight;
    return rect.bottom < 0 ? -rect.bottom : rect.top > height ? rect.top - height : 0;
  }

  /**
   * The candidate holding the most citations; on a tie the innermost, then the latest (the
   * newest turn of a thread). Null when there is none.
   * @param {Element[]} found @param {(el: Element) => number} count @param {number} min
   */
  function choose(found, count, min) {
    let best = null;
    let bestCount = -1;
    for (const el of found) {
      const n = count(el);
      if (n < min) continue;
      if (n > bestCount || (n === bestCount && best && (best.contains(el) || !el.contains(best)))) {
        best = el;
        bestCount = n;
      }
    }
    return best;
  }

  /**
   * The question nearest before the answer container, else the `q` of the URL.
   * @param {Document} doc @param {Element} container @param {Adapter} adapter @param {string} url
   */
  function defaultQuery(doc, container, adapter, url) {
    const asked = queryAll(doc, adapter.selectors.query || []);
    const before = asked.filter(
      (el) => el.compareDocumentPosition(container) & 4 /* container follows */ || el.contains(container),
    );
    for (const el of [...before.reverse(), ...asked]) {
      const field = el.localName === 'input' || el.localName === 'textarea';
      const value = field ? /** @type {HTMLInputElement} */ (el).value : el.textContent || '';
      if (squash(value)) return squash(value);
    }
    const params = new URL(url).searchParams;
    return squash(params.get('q') || params.get('query') || '');
  }

  CL.adapters = Object.assign(CL.adapters || {}, {
    registry,
    define,
    capture,
    prepare,
    queryAll,
    matchesAny,
    defaultCitationUrls,
    CaptureError,
    MESSAGES,
  });
})((globalThis.CiteLens ??= {}));
