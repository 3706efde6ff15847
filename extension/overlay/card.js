/*
 * The evidence card: what a source says about one sentence, with links that open the source at
 * the quote. Runs in: content scripts.
 *
 * Everything from the page or a cited source is set with textContent: a quote is untrusted
 * HTML's text and must never become markup here (security.md).
 */
'use strict';
(function (CL) {
  /**
   * @typedef {object} SourceView
   * @property {number} n          the source's number in this answer (its order; not shown)
   * @property {string} [marker]   how the answer marks it at this sentence ("archi +2"), else its host
   * @property {string} url
   * @property {string} title
   * @property {string} judgment   this source's own verdict on the sentence
   * @property {boolean} irrelevant
   * @property {string} reason     why it was not judged: the language first (not_checked), else why
   *   it could not be read
   * @property {string} [alsoUnread]  beside a language reason: why the page could not be read either
   * @property {boolean} [likely]   it supports the sentence, read with low confidence
   * @property {string} [via]      'browser' when it was read through the reader's browser
   * @property {boolean} [browserMayRead]  unread, but the reader's browser may be let in
   * @property {{text: string, href: string}[]} quotes  what it says for the sentence (its evidence)
   * @property {{text: string, href: string}[]} [saysOtherwise]  where it also says the opposite
   *   (api.md per_citation says_otherwise); absent from a view built before that existed
   */

  /**
   * @typedef {object} StatementView
   * @property {number} index
   * @property {string} judgment   the companion's verdict (names the highlight)
   * @property {string} kind       a key of KINDS: the judgment, or 'contradicted'
   * @property {string} text       the sentence as the companion read it
   * @property {string|null} [citedBy]  'block': cited by the link that closes its paragraph or list
   *   item (the engine put one there for all of it), not by a marker of its own
   * @property {SourceView[]} sources
   * @property {string[]} unsupported  atomic claims no source supports (FActScore)
   * @property {number[]} supportingSources
   * @property {string[]} [markers]  the same sources as the page marks them (their chips' words,
   *   "[1]"), each once; absent from a view built without a capture: the numbers stand in
   * @property {ElsewhereView} [elsewhere]  support found in pages the sentence does not cite
   * @property {string[]} [reasons]  what decided the verdict: the statement line's `reasons` ids
   *   (docs/api.md), strongest first; absent from an older companion
   * @property {Record<string, Record<string, string>>} [reasonDetails]  their particulars, by id
   *   (`reason_details`: another_number's {claim, source})
   * @property {{language: string, model: string}|null} [judgedIn]  the sentence's language (ISO
   *   639-1) and the model, with its version, that judged it; model '' when none read a source
   *   for it; absent or null from an older companion
   */

  /**
   * @typedef {object} ElsewhereView
   * @property {string[]} cited   how the reader knows the sentence's own sources ("[3]")
   * @property {{label: string, url: string, title?: string, judgment: string, quotes: {text: string, href: string}[]}[]} found
   *   best first; label is the answer's marker for that page ("[5]") or its host
   */

  /**
   * @typedef {object} CardRoom  the room beside the answer (overlay.js roomBeside)
   * @property {{left: {from: number, to: number}, right: {from: number, to: number}}} margins
   * @property {'left'|'right'} side  the badges' side
   * @property {{left: number, right: number, top: number, bottom: number}[]} lines  the answer's line boxes
   */

  const { t } = CL.i18n;

  /** What one source says about the sentence, in a few words. @param {string} judgment @param {boolean} [likely] */
  function verdictWords(judgment, likely = false) {
    if (judgment === 'complete_support' && likely) return t('source_likely_supports');
    if (judgment === 'complete_support') return t('source_supports');
    if (judgment === 'partial_support') return t('source_supports_part');
    if (judgment === 'no_support') return t('source_does_not_support');
    if (judgment === 'inaccessible') return t('source_could_not_be_read');
    if (judgment === 'not_checked') return t('source_not_checked');
    return '';
  }

  class Card {
    /**
     * @param {ShadowRoot|Element} layer
     * @param {() => void} onClose  the reader asked to close (Esc or ×)
     */
    constructor(layer, onClose) {
      const doc = /** @type {Document} */ (layer.ownerDocument);
      this.doc = doc;
      this.el = doc.createElement('section');
      this.el.className = 'card';
      this.el.hidden = true;
      this.el.setAttribute('role', 'dialog');
      this.el.setAttribute('aria-modal', 'false');
      this.el.tabIndex = -1;
      layer.appendChild(this.el);
      /** @type {number|null} */
      this.index = null;
      /** @type {Text|null} the first quote's text, for the evidence highlight */
      this.quoteText = null;
      this.groups = 0;
      this.onClose = onClose;
    }

    /**
     * @param {StatementView} view
     * @param {DOMRect} anchor  the badge's rectangle
     * @param {DOMRect[]} [avoid]  the other badges' rectangles: the card must not cover them
     * @param {CardRoom|null} [room]  the room beside the answer: the card must not cover its words
     */
    show(view, anchor, avoid = [], room = null) {
      const kind = CL.overlay.KINDS[view.kind];
      this.el.replaceChildren();
      this.quoteText = null;
      this.index = view.index;
      this.groups = 0; // labelled groups of quotes in this card, for their ids
      const headingId = `citelens-card-${view.index}`;
      this.el.setAttribute('aria-labelledby', headingId);

      const close = this.add(this.el, 'button', 'close', '×');
      close.setAttribute('aria-label', t('card_close'));
      close.addEventListener('click', () => this.onClose());

      const heading = this.add(this.el, 'h2', `k-${view.kind}`);
      heading.id = headingId;
      heading.style.background = 'none';
      heading.style.border = '0';
      this.add(heading, 'span', 'icon', kind.icon).setAttribute('aria-hidden', 'true');
      this.add(heading, 'span', '', t('card_heading', kind.word, view.index + 1));
      this.add(this.el, 'p', 'statement', view.text).dir = 'auto';
      // Else the reader takes the sentence's sources for the engine's choice for it alone.
      if (view.citedBy === 'block') this.add(this.el, 'p', 'note cited-by', t('card_cited_by_block'));

      const elsewhere = view.elsewhere && view.elsewhere.found.length ? view.elsewhere : null;
      if (view.kind === 'contradicted') {
        this.add(this.el, 'p', 'note', t('card_contradicted_note'));
      }
      if (view.kind === 'likely_support') this.add(this.el, 'p', 'note likely', t('card_likely_note'));
      if (elsewhere) this.add(this.el, 'p', 'note elsewhere', t('card_elsewhere_note', CL.overlay.elsewherePhrase(elsewhere)));
      this.addReasons(view, `${headingId}-why`);
      if (!view.sources.length) {
        this.add(this.el, 'p', '', t('card_no_source'));
      }
      // The companion's quote from a source that refutes the sentence is the sentence saying
      // otherwise (companion/judging/evidence.py contradicting_quote); its lines do not say which source
      // refutes, so a source is named as refuting only when it is the one that can be.
      const refuting = view.kind === 'contradicted' ? view.sources.filter((s) => s.judgment === 'no_support' && s.quotes.length) : [];
      for (const source of view.sources) this.addSource(source, refuting.length === 1 && refuting[0] === source);
      // The claims missing from its own sources come before the pages where they were found.
      if (view.unsupported.length && view.kind !== 'complete_support') {
        this.add(this.el, 'p', 'note', elsewhere ? t('card_not_found_in_cited') : t('card_not_found_in_sources'));
        const list = this.add(this.el, 'ul', '');
        for (const claim of view.unsupported) this.add(list, 'li', '', claim).dir = 'auto';
      }
      if (elsewhere) {
        this.add(this.el, 'p', 'elsewhere-head', view.sources.length ? t('card_found_in_uncited') : t('card_found_in_answer'));
        for (const found of elsewhere.found) this.addElsewhere(found);
      }
      this.addJudgedIn(view);
      this.el.hidden = false;
      this.place(anchor, avoid, room);
    }

    /**
     * "Why this verdict": what decided it, one line each; nothing when no id has words here.
     * @param {StatementView} view @param {string} headId
     */
    addReasons(view, headId) {
      const words = CL.overlay.reasonWords(view.reasons, view.reasonDetails);
      if (!words.length) return;
      const box = this.add(this.el, 'div', 'reasons');
      const head = this.add(box, 'p', 'reasons-head', t('card_reasons_heading'));
      head.id = headId;
      const list = this.add(box, 'ul', '');
      list.setAttribute('aria-labelledby', headId);
      for (const text of words) this.add(list, 'li', '', text);
    }

    /**
     * One quiet line last: "Judged in French by citelens-e5-multilingual-nli 0.1.4", so that a
     * verdict can be traced to what made it; the language alone when no model judged the sentence.
     * @param {StatementView} view
     */
    addJudgedIn(view) {
      const judged = view.judgedIn;
      if (!judged || !judged.language) return;
      const language = CL.i18n.languageName(judged.language);
      this.add(this.el, 'p', 'judged-in', judged.model ? t('card_judged_in', language, judged.model) : t('card_not_judged', language));
    }

    /** @param {SourceView} source @param {boolean} refutes  its quote says the opposite of the sentence */
    addSource(source, refutes = false) {
      const box = this.add(this.el, 'div', 'source');
      const head = this.add(box, 'div', 'source-head');
      this.add(head, 'span', '', t('card_source', source.marker || source.n));
      const host = CL.overlay.hostOf(source.url);
      this.add(head, 'span', 'source-host', source.title ? `${host} — ${source.title}` : host);
      const why = () => (source.judgment === 'not_checked' ? t('source_not_checked_why', source.reason) : t('source_could_not_be_read_why', source.reason));
      const verdict = source.reason ? why() : refutes ? t('source_says_otherwise') : verdictWords(source.judgment, source.likely);
      if (verdict) {
        this.add(box, 'div', '', source.irrelevant ? t('source_not_needed', verdict) : verdict);
      }
      if (source.alsoUnread) this.add(box, 'div', 'also-unread', t('source_also_unread', source.alsoUnread));
      if (refutes) box.classList.add('refutes');
      if (source.via === 'browser') {
        box.classList.add('via-browser');
        this.add(box, 'div', 'via', t('source_via_browser'));
      } else if (source.reason && source.browserMayRead) {
        this.add(box, 'div', 'via', t('source_browser_may_read'));
      }
      const opposite = Array.isArray(source.saysOtherwise) ? source.saysOtherwise : [];
      if (opposite.length) this.addQuotesBesideOpposite(box, source, opposite, refutes);
      else this.addQuotes(box, source.quotes);
      if (!source.quotes.length && !opposite.length && !source.reason) {
        const link = /** @type {HTMLAnchorElement} */ (this.add(box, 'a', 'open', t('card_open_source')));
        link.href = source.url;
        link.target = '_blank';
        link.rel = 'noopener noreferrer';
      }
    }

    /**
     * A page the sentence does not cite, where its support was found.
     * @param {ElsewhereView['found'][number]} found
     */
    addElsewhere(found) {
      const box = this.add(this.el, 'div', 'source found');
      const head = this.add(box, 'div', 'source-head');
      this.add(head, 'span', '', found.label);
      const host = CL.overlay.hostOf(found.url);
      this.add(head, 'span', 'source-host', found.title ? `${host} — ${found.title}` : host);
      this.add(box, 'div', '', verdictWords(found.judgment));
      this.addQuotes(box, found.quotes);
    }

    /**
     * A source that also says the opposite (api.md says_otherwise): its quotes under two labels,
     * "Supports:" (or "Closest passage:" when it does not support the sentence) and "Says
     * otherwise:", each group named by its label for screen readers and each quote with its
     * link to the page at that sentence. A quote that is also a says-otherwise sentence goes
     * only under "Says otherwise:"; so do the quotes of a source that refutes the sentence.
     * @param {Element} box @param {SourceView} source
     * @param {{text: string, href: string}[]} opposite @param {boolean} refutes
     */
    addQuotesBesideOpposite(box, source, opposite, refutes) {
      const words = (/** @type {string} */ text) => text.replace(/\s+/g, ' ').trim();
      const against = refutes ? [...source.quotes, ...opposite] : opposite;
      const seen = new Set();
      const otherwise = against.filter((q) => !seen.has(words(q.text)) && seen.add(words(q.text)));
      const support = refutes ? [] : source.quotes.filter((q) => !seen.has(words(q.text)));
      const supports = source.judgment === 'complete_support' || source.judgment === 'partial_support';
      if (support.length) this.addQuoteGroup(box, 'supports', supports ? t('card_quote_supports') : t('card_quote_closest'), support);
      this.addQuoteGroup(box, 'says-otherwise', t('card_quote_says_otherwise'), otherwise);
    }

    /**
     * @param {Element} box @param {string} kind  a class: 'supports' or 'says-otherwise'
     * @param {string} label @param {{text: string, href: string}[]} quotes
     */
    addQuoteGroup(box, kind, label, quotes) {
      const group = this.add(box, 'div', `quotes ${kind}`);
      group.setAttribute('role', 'group');
      const head = this.add(group, 'p', 'quote-label', label);
      head.id = `citelens-card-${this.index}-quotes-${++this.groups}`;
      group.setAttribute('aria-labelledby', head.id);
      this.addQuotes(group, quotes);
    }

    /** @param {Element} box @param {{text: string, href: string}[]} quotes */
    addQuotes(box, quotes) {
      for (const quote of quotes) {
        const block = this.add(box, 'blockquote', '', quote.text);
        block.dir = 'auto';
        if (!this.quoteText && block.firstChild) this.quoteText = /** @type {Text} */ (block.firstChild);
        const link = /** @type {HTMLAnchorElement} */ (this.add(box, 'a', 'open', t('card_open_at_quote')));
        link.href = quote.href;
        link.target = '_blank';
        link.rel = 'noopener noreferrer';
      }
    }

    /**
     * Beside the answer, at the height of its badge, in a margin wide enough (dock.js
     * cardColumn): it covers none of the answer's words and pushes nothing. Without such a
     * margin (a narrow window), near the badge, covering no other badge and as few of the
     * answer's lines as it can (placeCard).
     * @param {DOMRect} anchor  the badge's rectangle (or the link that opened the card)
     * @param {DOMRect[]} [avoid]  the other badges and the summary panel
     * @param {CardRoom|null} [room]
     */
    place(anchor, avoid = [], room = null) {
      const view = /** @type {Window} */ (this.doc.defaultView);
      const viewport = { width: CL.overlay.viewportRight(this.doc), height: view.innerHeight };
      const column = room ? CL.overlay.cardColumn(room.margins, room.side) : null;
      this.el.style.width = column ? `${Math.floor(column.width)}px` : '';
      this.el.style.maxHeight = '';
      const size = { width: this.el.offsetWidth || (column ? column.width : 420), height: this.el.offsetHeight || 200 };
      let spot = column && CL.overlay.inColumn(column, anchor, size, viewport, avoid);
      if (column && !spot) {
        // The summary shares the column: the card takes the room beside it, scrolling inside,
        // rather than lie over the summary or the answer.
        const band = CL.overlay.freeBand(column, viewport.height, avoid);
        if (band.bottom - band.top >= CL.overlay.DOCK.CARD_MIN_HEIGHT) {
          size.height = Math.min(size.height, band.bottom - band.top);
          this.el.style.maxHeight = `${Math.floor(size.height)}px`;
          spot = { left: column.left, top: Math.max(band.top, Math.min(anchor.top, band.bottom - size.height)) };
        }
      }
      const { left, top } = spot || CL.overlay.placeCard(anchor, size, viewport, avoid, room ? room.lines : []);
      this.el.style.left = `${Math.round(left)}px`;
      this.el.style.top = `${Math.round(top)}px`;
    }

    hide() {
      this.el.hidden = true;
      this.index = null;
      this.quoteText = null;
    }

    get open() {
      return !this.el.hidden;
    }

    /**
     * @param {Element} parent @param {string} tag @param {string} className @param {string} [text]
     * @returns {HTMLElement}
     */
    add(parent, tag, className, text) {
      const el = this.doc.createElement(tag);
      if (className) el.className = className;
      if (text !== undefined) el.textContent = text;
      parent.appendChild(el);
      return el;
    }
  }

  CL.overlay = Object.assign(CL.overlay || {}, { Card });
})((globalThis.CiteLens ??= {}));
