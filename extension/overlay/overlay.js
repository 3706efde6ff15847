/*
 * The overlay: one shadow root on a `citelens-overlay` element at the end of documentElement
 * (docs/api.md), holding badges, the evidence card and the summary bar; highlights through the
 * CSS Custom Highlight API. It takes Ranges and verdicts; it never learns how the Ranges were
 * found (adapters → anchoring ← overlay), and it never changes the engine's DOM.
 *
 * Runs in: content scripts.
 */
'use strict';
(function (CL) {
  const HOVER_OPEN_MS = 80;
  const HOVER_CLOSE_MS = 300;

  class Overlay {
    /**
     * @param {Document} doc
     * @param {{onExport: () => void, onClose: () => void, onOptions: () => void, onReadInBrowser?: () => void, onSaveForBatch?: () => void}} actions
     */
    constructor(doc, actions) {
      const O = CL.overlay;
      this.doc = doc;
      this.win = /** @type {Window} */ (doc.defaultView);
      this.host = doc.createElement('citelens-overlay');
      // Inline and !important: page rules aimed at unknown elements must not move or hide us.
      for (const [prop, value] of [['all', 'initial'], ['position', 'fixed'], ['top', '0'], ['left', '0'],
        ['width', '0'], ['height', '0'], ['z-index', '2147483647'], ['display', 'block']]) {
        this.host.style.setProperty(prop, value, 'important');
      }
      // Open: the page can see it anyway through layout, and tests and assistive tools can reach it.
      const shadow = this.host.attachShadow({ mode: 'open' });
      const style = doc.createElement('style');
      style.textContent = O.STYLES;
      this.layer = doc.createElement('div');
      this.layer.className = 'layer';
      shadow.append(style, this.layer);
      doc.documentElement.appendChild(this.host);

      this.highlights = new O.Highlights(this.win);
      this.card = new O.Card(this.layer, () => this.closeCard(true));
      this.bar = new O.SummaryBar(this.layer, {
        ...actions,
        attention: () => this.attention(),
        jump: (/** @type {number} */ i, /** @type {HTMLElement} */ from) => this.jump(i, from),
      });
      this.badges = new O.Badges(this.layer, {
        enter: (i) => this.hover(i),
        leave: () => this.unhover(),
        focus: (i) => {
          // Focus handed back after Esc must not reopen the card it just closed.
          if (this.returningFocus) this.returningFocus = false;
          else if (!(this.card.open && this.card.index === i)) this.openCard(i, 'focus');
        },
        blur: (_i, to) => {
          if (!(to instanceof this.win.Node && this.card.el.contains(/** @type {Node} */ (to)))) this.closeCardFrom('focus');
        },
        click: (i, event) => {
          // Enter or Space on the badge (a click without a pointer): the card opens as a dialog
          // does, with focus in it, so its links are next for Tab; Esc brings focus back.
          if (event.detail === 0) this.openCardByKey(i, null);
          else if (this.card.index === i && this.openedBy === 'click') this.closeCard(true);
          else this.openCard(i, 'click');
        },
      });
      this.card.el.addEventListener('mouseenter', () => this.cancelClose());
      this.card.el.addEventListener('mouseleave', () => this.unhover());
      this.card.el.addEventListener('focusout', (event) => {
        const to = /** @type {Node|null} */ (event.relatedTarget);
        const badge = this.card.index === null ? null : this.badges.buttons.get(this.card.index);
        if (!to || (!this.card.el.contains(to) && to !== badge)) {
          this.closeCardFrom('focus');
          this.closeCardFrom('key');
        }
      });
      this.card.el.addEventListener('keydown', (event) => this.tabOutOfCard(event));

      /** @type {Map<number, {ranges: Range[], view: any}>} */
      this.statements = new Map();
      /** @type {'hover'|'focus'|'click'|'key'|null} */
      this.openedBy = null;
      /** @type {HTMLElement|null} where focus goes back to when the card closes, if not its badge */
      this.returnTo = null;
      this.timer = 0;
      this.frame = 0;
      this.passes = 0;
      this.hoverIndex = -1;
      /** @type {{index: number, rects: DOMRect[]}[]} */
      this.hitRects = [];
      /** @type {{margins: any, side: 'left'|'right', lines: DOMRect[]}|null} the room beside the answer (dock.js roomBeside) */
      this.room = null;

      this.schedule = () => {
        if (!this.frame) this.frame = this.win.requestAnimationFrame(() => ((this.frame = 0), this.reposition()));
      };
      this.onKey = (/** @type {KeyboardEvent} */ event) => {
        if (event.key === 'Escape' && this.card.open) {
          event.stopPropagation();
          this.closeCard(true);
        }
      };
      this.returningFocus = false;
      // Events inside the shadow root reach the document retargeted to the host: those are
      // badge and card hovers, handled by their own listeners.
      this.onMove = (/** @type {MouseEvent} */ event) => {
        if (event.target !== this.host) this.pointerAt(event.clientX, event.clientY);
      };
      doc.addEventListener('scroll', this.schedule, { capture: true, passive: true });
      doc.addEventListener('keydown', this.onKey, true);
      doc.addEventListener('mousemove', this.onMove, { passive: true });
      this.win.addEventListener('resize', this.schedule, { passive: true });
      this.resizeObserver = new this.win.ResizeObserver(this.schedule);
      this.resizeObserver.observe(doc.documentElement);
      /** @type {Set<number>} the sentences the reader sees now: their badges show */
      this.shown = new Set();
      // A fold that opens changes a style or a class, not the text: its badges show as it does.
      this.mutations = CL.overlay.watchFolds(doc, () => this.statements.values(), this.schedule);
    }

    /**
     * Adds or updates one sentence.
     * @param {number} index
     * @param {Range[]} ranges  where the sentence is in the page; empty when it cannot be found
     * @param {import('./card.js').StatementView} view
     */
    show(index, ranges, view) {
      this.statements.set(index, { ranges, view });
      this.badges.upsert(index, view);
      for (const range of ranges) {
        const el = range.commonAncestorContainer;
        const block = el.nodeType === 1 ? /** @type {Element} */ (el) : el.parentElement;
        if (block) this.resizeObserver.observe(block);
      }
      this.refreshHighlights();
      if (this.card.index === index) this.openCard(index, this.openedBy || 'hover');
      this.schedule();
    }

    /** New Ranges for sentences already shown (the page re-rendered). @param {Map<number, Range[]>} moved */
    reanchor(moved) {
      for (const [index, ranges] of moved) {
        const entry = this.statements.get(index);
        if (entry) entry.ranges = ranges;
      }
      this.refreshHighlights();
      // Placed now, not on the next frame: the highlights already show the new Ranges, and until
      // then the badges would stand where the Ranges the page dropped had put them. Re-anchoring
      // is debounced, so this is one layout per re-render, not one per mutation.
      this.reposition();
    }

    refreshHighlights() {
      /** @type {Record<string, Range[]>} */
      const byName = {};
      for (const name of CL.overlay.HIGHLIGHT_NAMES) byName[name] = [];
      for (const { ranges, view } of this.statements.values()) {
        byName[view.judgment].push(...ranges);
        if (view.kind === 'contradicted') byName.contradicted.push(...ranges);
        if (view.kind === 'likely_support') byName.likely_support.push(...ranges);
      }
      for (const name of CL.overlay.HIGHLIGHT_NAMES) {
        if (name !== 'evidence') this.highlights.set(name, byName[name]);
      }
      this.refreshEvidence();
    }

    /** `citelens-evidence`: the sentence whose evidence is shown, and the quote in the card. */
    refreshEvidence() {
      const entry = this.card.index === null ? null : this.statements.get(this.card.index);
      const ranges = entry ? [...entry.ranges] : [];
      if (entry && this.card.quoteText) {
        const quote = this.doc.createRange();
        quote.selectNodeContents(this.card.quoteText);
        ranges.push(quote);
      }
      this.highlights.set('evidence', ranges);
    }

    reposition() {
      // A pass now makes the scheduled one moot: it would read the same layout.
      this.win.cancelAnimationFrame(this.frame);
      this.frame = 0;
      const lines = new Map();
      let right = 0;
      let left = Infinity;
      let rtl = false;
      this.hitRects = [];
      /** @type {Map<Element, DOMRect>} */
      const blocks = new Map();
      /** @type {Map<Element, Element>} the block of each sentence's node, per pass */
      const blockOf = new Map();
      for (const [index, { ranges }] of this.statements) {
        const rects = ranges.flatMap((range) => [...range.getClientRects()]).filter((r) => r.width > 0);
        const clip = ranges.length ? CL.overlay.clipOf(ranges[0]) : { top: 0, bottom: 0 };
        const block = rects.length ? CL.overlay.blockOf(ranges[0], blockOf) : null;
        const line = block ? CL.overlay.shownLine(rects, block, clip, this.host) : null;
        // Hovering opens a card only over words the reader sees: a folded sentence's boxes lie
        // under the page's next section.
        if (line) this.hitRects.push({ index, rects: rects.filter((r) => r.bottom > clip.top && r.top < clip.bottom) });
        if (line) {
          for (const r of rects) right = Math.max(right, r.right);
          // The gutter starts past the sentence's block, not its last word: chips and markers
          // after the words must stay uncovered.
          let box = blocks.get(/** @type {Element} */ (block));
          if (!box) blocks.set(/** @type {Element} */ (block), (box = /** @type {Element} */ (block).getBoundingClientRect()));
          if (left === Infinity) rtl = CL.overlay.directionOf(ranges[0]) === 'rtl';
          right = Math.max(right, box.right);
          left = Math.min(left, box.left);
        }
        lines.set(index, { line, clip, block });
      }
      this.shown = new Set([...lines].filter(([, l]) => l.line).map(([i]) => i));
      const points = [...lines.values()].filter((l) => l.line).map(({ line }) => ({ x: line.left + line.width / 2, y: line.top + line.height / 2 }));
      const gutter = CL.overlay.chooseGutter(this.host, { left, right }, [...blocks.keys()], points, rtl);
      this.badges.layout(lines, gutter);
      if (left !== Infinity) {
        const O = CL.overlay;
        this.room = O.roomBeside({ left, right }, gutter, this.badgeRects(null), this.hitRects.flatMap(({ rects }) => rects), O.viewportRight(this.doc));
      }
      // The panel keeps to the side away from the badges, in a margin, or folds to a chip.
      if (this.statements.size && this.room) this.bar.dock(CL.overlay.dockBeside(this.room.margins, gutter.side));
      if (this.card.open && this.card.index !== null) {
        const badge = this.badges.buttons.get(this.card.index);
        if (badge && !badge.hidden) this.card.place(badge.getBoundingClientRect(), this.avoidRects(badge), this.room);
      }
      // Counted on the host, so that a test can tell that the badges stand where the page now is
      // (a pass begun after its scroll, resize or re-render has ended) instead of guessing with
      // timers. The host is outside body, where engines watch their answers for changes.
      this.host.dataset.layout = String(++this.passes);
    }

    /** Where the other badges are: the card must not cover them. @param {Element|null} except */
    badgeRects(except) {
      return [...this.badges.buttons.values()].filter((b) => b !== except && !b.hidden).map((b) => b.getBoundingClientRect());
    }

    /** What the card must not cover: the other badges and the summary panel (issue 60). @param {Element|null} except */
    avoidRects(except) {
      const panel = this.bar.panel.getBoundingClientRect();
      return panel.width && panel.height ? [...this.badgeRects(except), panel] : this.badgeRects(except);
    }

    /** Hovering the sentence itself opens its card, as hovering its badge does. */
    pointerAt(/** @type {number} */ x, /** @type {number} */ y) {
      const hit = this.hitRects.find(({ rects }) => rects.some((r) => x >= r.left && x <= r.right && y >= r.top && y <= r.bottom));
      if (hit && hit.index !== this.hoverIndex) this.hover(hit.index);
      else if (!hit && this.hoverIndex >= 0) this.unhover();
    }

    /** @param {number} index */
    hover(index) {
      this.hoverIndex = index;
      this.cancelClose();
      // A card the reader opened on purpose stays until they close it or move focus away.
      if (this.openedBy === 'click' || this.openedBy === 'focus' || this.openedBy === 'key') return;
      this.timer = this.win.setTimeout(() => this.openCard(index, 'hover'), HOVER_OPEN_MS);
    }

    unhover() {
      this.hoverIndex = -1;
      this.cancelClose();
      if (this.openedBy === 'hover') this.timer = this.win.setTimeout(() => this.closeCard(false), HOVER_CLOSE_MS);
    }

    cancelClose() {
      this.win.clearTimeout(this.timer);
    }

    /** @param {number} index @param {'hover'|'focus'|'click'|'key'} by */
    openCard(index, by) {
      this.cancelClose();
      const entry = this.statements.get(index);
      const badge = this.badges.buttons.get(index);
      if (!entry || !badge) return;
      if (this.card.index !== null && this.card.index !== index) this.badges.buttons.get(this.card.index)?.setAttribute('aria-expanded', 'false');
      this.openedBy = by;
      // A sentence the page no longer shows has no badge in view: the card opens by what opened it.
      const anchor = badge.hidden && this.returnTo ? this.returnTo : badge;
      this.card.show(entry.view, anchor.getBoundingClientRect(), this.avoidRects(badge), this.room);
      badge.setAttribute('aria-expanded', 'true');
      this.refreshEvidence();
    }

    /**
     * Opens a card from the keyboard, focus in it.
     * @param {number} index @param {HTMLElement|null} from  where focus goes back on Esc (else the badge)
     */
    openCardByKey(index, from) {
      this.returnTo = from;
      this.openCard(index, 'key');
      if (this.card.open) this.card.el.focus({ preventScroll: true });
    }

    /**
     * The summary's list of sentences that need the reader's attention: refuted, not supported,
     * partly supported, unreadable, in the answer's order; `reason`: why an unreadable or
     * unchecked one was not judged (the companion's words), by which the summary groups them.
     * @returns {{index: number, kind: string, label: string, text: string, reason: string}[]}
     */
    attention() {
      return [...this.statements.entries()]
        .filter(([, { view }]) => CL.overlay.ATTENTION_KINDS.includes(view.kind))
        .sort((a, b) => a[0] - b[0])
        .map(([index, { view }]) => ({
          index,
          kind: view.kind,
          label: CL.overlay.sentenceVerdict(index, view.kind, CL.overlay.markersOf(view)),
          text: view.text,
          reason: view.kind === 'not_checked' || view.kind === 'inaccessible' ? [...new Set(view.sources.map((/** @type {any} */ s) => s.reason).filter(Boolean))].join('; ') : '',
        }));
    }

    /**
     * From the summary's list: scrolls the sentence into view and opens its card, focus in it;
     * Esc gives focus back to the list.
     * @param {number} index @param {HTMLElement} from  the list's link
     */
    jump(index, from) {
      const entry = this.statements.get(index);
      if (!entry) return;
      const range = entry.ranges[0];
      const node = range && range.startContainer;
      const el = node && (node.nodeType === 1 ? /** @type {Element} */ (node) : node.parentElement);
      // A sentence in a folded part of the answer: the fold comes into view, never its hidden
      // content scrolled inside it (that would move the engine's page under the reader).
      const fold = el ? CL.overlay.foldOf(el, range) : null;
      if (fold) fold.scrollIntoView({ block: 'nearest', inline: 'nearest', behavior: 'instant' });
      else if (el) el.scrollIntoView({ block: 'center', inline: 'nearest', behavior: 'instant' });
      this.reposition();
      this.openCardByKey(index, from);
    }

    /**
     * Tab past the card's last link goes on to the next badge, Shift+Tab before its first back
     * to its badge: the card sits after all badges in the shadow root, and focus should carry
     * on where the reader was in the answer.
     * @param {KeyboardEvent} event
     */
    tabOutOfCard(event) {
      if (event.key !== 'Tab' || this.card.index === null) return;
      const root = /** @type {ShadowRoot} */ (this.host.shadowRoot);
      const stops = [...this.card.el.querySelectorAll('button, a[href]')];
      const active = root.activeElement;
      if (event.shiftKey && (active === this.card.el || active === stops[0])) {
        event.preventDefault();
        this.closeCard(true);
      } else if (!event.shiftKey && active === stops[stops.length - 1]) {
        event.preventDefault();
        const index = this.card.index;
        const next = [...this.badges.buttons.entries()].filter(([i, b]) => i > index && !b.hidden).sort((a, b) => a[0] - b[0])[0];
        this.closeCard(false);
        const target = next ? next[1] : /** @type {HTMLElement|undefined} */ ([...this.bar.panel.querySelectorAll('a[href], button')].find((el) => !el.closest('[hidden]')));
        if (target) target.focus({ preventScroll: true });
      }
    }

    /** @param {'hover'|'focus'|'click'|'key'} by */
    closeCardFrom(by) {
      if (this.openedBy === by) this.closeCard(false);
    }

    /** @param {boolean} returnFocus  after Esc or ×, focus goes back to the badge */
    closeCard(returnFocus) {
      this.cancelClose();
      const index = this.card.index;
      const badge = index === null ? null : this.badges.buttons.get(index);
      const back = this.returnTo && this.returnTo.isConnected ? this.returnTo : badge;
      this.returnTo = null;
      this.openedBy = null;
      // Focus moves before the card hides: Chromium takes focus off a focused element as it
      // hides, and the focusout that follows must find the card already closed.
      if (back && returnFocus && /** @type {ShadowRoot} */ (this.host.shadowRoot).activeElement !== back) {
        this.returningFocus = back === badge;
        back.focus({ preventScroll: true });
      }
      this.card.hide();
      this.refreshEvidence();
      if (badge) badge.setAttribute('aria-expanded', 'false');
    }

    destroy() {
      this.cancelClose();
      this.win.cancelAnimationFrame(this.frame);
      this.doc.removeEventListener('scroll', this.schedule, { capture: true });
      this.doc.removeEventListener('keydown', this.onKey, true);
      this.doc.removeEventListener('mousemove', this.onMove);
      this.win.removeEventListener('resize', this.schedule);
      this.resizeObserver.disconnect();
      this.mutations.disconnect();
      this.highlights.clear();
      this.host.remove();
    }
  }

  CL.overlay = Object.assign(CL.overlay || {}, { Overlay });
})((globalThis.CiteLens ??= {}));
