/*
 * One badge per sentence: a real <button> named "Sentence N: verdict by source K", icon + word
 * + colour, kept in a gutter beside the answer at the height of the sentence's last visible
 * line, where its citation marker stood: on the side where sentences end (right; left in a
 * right-to-left answer), or the other when the engine uses that one. Badges never overlap each
 * other or the answer, and each stays beside its own line: they stack, and badges of sentences
 * that end on one line (table cells) go side by side, as icons, rather than drift below it. A
 * narrow gutter gets compact ones (the icon alone); a badge never shows a cut word. A sentence
 * the reader cannot see (in a folded part of the answer, under the page's header) has no badge
 * until it shows (issue 60).
 * Runs in: content scripts; knows rectangles, not how they were found.
 */
'use strict';
(function (CL) {
  const GAP = 10; // px between the answer's right edge and the badges
  const MARGIN = 8; // px kept free at the viewport's edges
  const STACK_GAP = 3;
  // px below which a stacked badge would be a column of single words: past it, it overlaps instead
  const MIN_STACKED_WIDTH = 120;
  // px of its line a badge must still share when stacked under another: past it, it goes beside
  const MIN_OVERLAP = 4;

  const COMPACT_GAP = 2; // px each side of a compact badge, when the gutter is that narrow
  const BADGE_HEIGHT = 22;
  const COMPACT_WIDTH = 20;
  // px a badge needs beside the answer: "⚠ Contradicted 3" is the widest; a compact one, its icon
  const ROOM = Object.freeze({ full: 130, compact: COMPACT_WIDTH + 2 * COMPACT_GAP });

  /** The right edge of the page's viewport, without its scrollbar. @param {Document} doc */
  function viewportRight(doc) {
    const view = /** @type {Window} */ (doc.defaultView);
    return doc.documentElement.clientWidth || view.innerWidth;
  }

  /**
   * Which side of the answer the badges go: where its sentences end (the right, or the left in
   * a right-to-left answer), unless the engine keeps something there (Google's source column)
   * and the other margin is free. A margin too narrow for the badges' words takes compact
   * badges; with no free margin at all, compact ones on the side where sentences end.
   * @param {Element} host  the overlay's own element (never an obstacle)
   * @param {{left: number, right: number}} answer  the answer's edges
   * @param {Element[]} blocks  the answer's blocks: what contains them is background, not content
   * @param {{x: number, y: number}[]} points  a point on each sentence's last line
   * @param {boolean} rtl  the answer is written right to left
   * @returns {{side: 'left'|'right', edge: number, compact: boolean}}
   */
  function chooseGutter(host, answer, blocks, points, rtl) {
    const doc = /** @type {Document} */ (host.ownerDocument);
    const { left, right } = answer;
    // The page's element at a point, seen through the overlay: the badges and the bar cover
    // what the page keeps beneath them, and a decision read off them would undo itself on the
    // next pass (badges moved off a composer no longer hide it, and move back).
    const pageAt = (/** @type {number} */ x, /** @type {number} */ y) => doc.elementsFromPoint(x, y).find((el) => el !== host) || null;
    const ofAnswer = (/** @type {Element} */ hit) => blocks.some((b) => b.contains(hit) || hit.contains(b));
    const every = Math.max(1, Math.floor(points.length / 4));
    const samples = points
      .filter((_, i) => i % every === 0)
      .slice(0, 5)
      // A sentence the page covers (a fixed composer, a sticky header) says nothing about the
      // margins beside it: what covers it spans them too.
      .filter(({ x, y }) => {
        const hit = pageAt(x, y);
        return !hit || ofAnswer(hit);
      })
      .map(({ y }) => y);
    const free = (/** @type {number} */ x) =>
      samples.every((y) => {
        const hit = pageAt(x, y);
        return !hit || hit === doc.body || hit === doc.documentElement || blocks.some((b) => hit.contains(b));
      });
    const sides = /** @type {('left'|'right')[]} */ (rtl ? ['left', 'right'] : ['right', 'left']);
    const limit = viewportRight(doc);
    for (const compact of [false, true]) {
      const width = compact ? ROOM.compact : ROOM.full;
      for (const side of sides) {
        if (side === 'right' && right + width <= limit && free(right + 2) && free(right + width - 2)) return { side, edge: right, compact };
        if (side === 'left' && left - width >= 0 && free(left - 2) && free(left - width + 2)) return { side, edge: left, compact };
      }
    }
    return { side: sides[0], edge: sides[0] === 'right' ? right : left, compact: true };
  }

  /**
   * Where each badge goes: at its wanted top, or just below the badge before it while it still
   * shares its own line; where it would not, beside the badges of that row instead (the cells of
   * a table row end on one line), as an icon; only when the row has no room left does it stack
   * further down. In order of wanted tops (ties in the order given, sentence order).
   * @param {{top: number, height: number, width: number, line: {top: number, bottom: number, left?: number, right?: number}}[]} items
   * @param {number} gap  px between badges
   * @param {number|((row: {left: number, right: number}) => number)} room  px the gutter holds
   *   beside the answer; or, where the gutter is the window's edge (no margin), the px a row may
   *   take given its lines' text, which it must not cover
   * @param {number} compactWidth  px of a badge shown as its icon
   * @returns {{top: number, offset: number, compact: boolean, row: number}[]} in the order of
   *   `items`; offset: px from the row's start; row: which row (rowWidths gives each one's width)
   */
  function packBadges(items, gap, room, compactWidth) {
    const order = items.map((_, i) => i).sort((a, b) => items[a].top - items[b].top || a - b);
    const out = new Array(items.length);
    /** @type {{top: number, bottom: number, used: number, left: number, right: number}|null} */
    let row = null;
    let rows = -1;
    const start = (/** @type {number} */ i, /** @type {number} */ top) => {
      const { line, height, width } = items[i];
      out[i] = { top, offset: 0, compact: false, row: ++rows };
      row = { top, bottom: top + height, used: width, left: line.left ?? Infinity, right: line.right ?? -Infinity };
    };
    for (const i of order) {
      const item = items[i];
      const top = Math.max(item.top, row ? row.bottom + gap : -Infinity);
      if (!row || top < item.line.bottom - MIN_OVERLAP) {
        start(i, top);
        continue;
      }
      const text = { left: Math.min(row.left, item.line.left ?? Infinity), right: Math.max(row.right, item.line.right ?? -Infinity) };
      const besideRow = row.top < item.line.bottom - MIN_OVERLAP && row.bottom > item.line.top + MIN_OVERLAP;
      if (besideRow && row.used + gap + compactWidth <= (typeof room === 'function' ? room(text) : room)) {
        out[i] = { top: row.top, offset: row.used + gap, compact: true, row: rows };
        row.used += gap + compactWidth;
        Object.assign(row, text);
        continue;
      }
      start(i, top);
    }
    return out;
  }

  class Badges {
    /**
     * @param {ShadowRoot|Element} layer
     * @param {{enter: (i: number) => void, leave: (i: number) => void, focus: (i: number) => void,
     *   blur: (i: number, to: EventTarget|null) => void, click: (i: number, event: MouseEvent) => void}} on
     */
    constructor(layer, on) {
      this.layer = layer;
      this.doc = /** @type {Document} */ (layer.ownerDocument);
      this.on = on;
      /** @type {Map<number, HTMLButtonElement>} */
      this.buttons = new Map();
    }

    /**
     * @param {number} index
     * @param {{kind: string, judgment: string, supportingSources: number[], markers?: string[],
     *   elsewhere?: {cited: string[], found: {label: string}[]}}} view
     */
    upsert(index, view) {
      let button = this.buttons.get(index);
      if (!button) {
        button = this.doc.createElement('button');
        button.type = 'button';
        button.dataset.index = String(index);
        button.setAttribute('aria-expanded', 'false');
        button.addEventListener('mouseenter', () => this.on.enter(index));
        button.addEventListener('mouseleave', () => this.on.leave(index));
        button.addEventListener('focus', () => this.on.focus(index));
        button.addEventListener('blur', (event) => this.on.blur(index, event.relatedTarget));
        button.addEventListener('click', (event) => this.on.click(index, event));
        this.buttons.set(index, button);
        this.insertInOrder(index, button);
      }
      const kind = CL.overlay.KINDS[view.kind];
      button.className = `badge k-${view.kind}`;
      button.dataset.kind = view.kind;
      button.dataset.judgment = view.judgment;
      const elsewhere = view.elsewhere && view.elsewhere.found.length ? view.elsewhere : null;
      // The page's own markers, in the name as on the badge (WCAG 2.5.3: the name holds what is shown).
      const marks = CL.overlay.markersOf(view);
      button.setAttribute('aria-label', CL.overlay.badgeLabel(index, view.kind, marks, elsewhere));
      button.classList.toggle('found-elsewhere', !!elsewhere);
      button.setAttribute('aria-haspopup', 'dialog');
      const icon = this.doc.createElement('span');
      icon.className = 'icon';
      icon.setAttribute('aria-hidden', 'true');
      icon.textContent = kind.icon;
      const word = this.doc.createElement('span');
      word.className = 'word';
      word.textContent = kind.word;
      const parts = [icon, word];
      if (marks.length) {
        const num = this.doc.createElement('span');
        num.className = 'num';
        num.textContent = marks.join(', ');
        parts.push(num);
      }
      if (elsewhere) {
        // Inside the button, so the note travels and stacks with its badge.
        const note = this.doc.createElement('span');
        // "? No citation — found in [2]": the badge's word already says the first half.
        const uncited = view.kind === 'no_citation';
        note.className = uncited ? 'elsewhere joined' : 'elsewhere';
        note.textContent = uncited ? CL.i18n.t('elsewhere_joined', elsewhere.found.map((f) => f.label).join(', ')) : CL.overlay.elsewherePhrase(elsewhere);
        parts.push(note);
      }
      button.replaceChildren(...parts);
      return button;
    }

    /** Sentence order is tab order, whatever order the stream delivered them in. */
    insertInOrder(/** @type {number} */ index, /** @type {HTMLButtonElement} */ button) {
      const after = [...this.buttons.entries()].filter(([i]) => i > index).sort((a, b) => a[0] - b[0])[0];
      const before = after ? after[1] : this.layer.querySelector('.card');
      this.layer.insertBefore(button, before && before.parentNode === this.layer ? before : null);
    }

    /** @param {number} index */
    remove(index) {
      const button = this.buttons.get(index);
      if (button) button.remove();
      this.buttons.delete(index);
    }

    /**
     * Places every badge. `lines` gives, per sentence, the rectangle of its last line and the
     * clip of its scrolling ancestors; sentences out of view hide their badge. Badges never
     * overlap each other and stay beside their own lines (packBadges), in the gutter beside the
     * answer's edge; a gutter too narrow for the words gets compact badges, the icon alone (the
     * name still says all).
     * @param {Map<number, {line: DOMRect|null, clip: {top: number, bottom: number}, block?: Element|null}>} lines
     * @param {{side: 'left'|'right', edge: number, compact?: boolean}} gutter  which side of the
     *   answer, that edge of the answer in viewport pixels, and whether only compact badges fit
     */
    layout(lines, gutter) {
      const view = /** @type {Window} */ (this.doc.defaultView);
      const right = viewportRight(this.doc);
      const compact = !!gutter.compact;
      const gap = compact ? COMPACT_GAP : GAP;
      const margin = compact ? COMPACT_GAP : MARGIN;
      const placed = [];
      for (const [index, button] of [...this.buttons].sort((a, b) => a[0] - b[0])) {
        const entry = lines.get(index);
        const line = entry && entry.line;
        const visible =
          !!line && line.bottom > entry.clip.top && line.top < entry.clip.bottom && line.bottom > 0 && line.top < view.innerHeight;
        button.hidden = !visible;
        button.classList.toggle('compact', compact);
        if (visible) placed.push({ button, line, top: line.top + (line.height - BADGE_HEIGHT) / 2 });
      }
      const room = gutter.side === 'right' ? right - margin - gutter.edge - gap : gutter.edge - gap - margin;
      for (const { button } of placed) if (!compact) this.fit(button, room);
      // No margin at all (an answer as wide as the window): the badges keep to the window's edge,
      // and a row of them may reach over the blank end of its lines, never over their words.
      const edgeBound = room < COMPACT_WIDTH;
      const rowRoom = edgeBound
        ? (/** @type {{left: number, right: number}} */ text) => (gutter.side === 'right' ? right - margin - text.right - gap : text.left - gap - margin)
        : room;
      const widthOf = (/** @type {HTMLButtonElement} */ b) => b.offsetWidth || (b.classList.contains('compact') ? COMPACT_WIDTH : 100);
      const spots = packBadges(
        placed.map(({ button, top, line }) => ({ top, line, height: button.offsetHeight || BADGE_HEIGHT, width: widthOf(button) })),
        STACK_GAP,
        rowRoom,
        COMPACT_WIDTH,
      );
      placed.forEach(({ button }, i) => spots[i].compact && button.classList.add('compact'));
      /** @type {number[]} each row's width, its badges side by side */
      const rows = [];
      placed.forEach(({ button }, i) => (rows[spots[i].row] = Math.max(rows[spots[i].row] || 0, spots[i].offset + widthOf(button))));
      placed.forEach(({ button }, i) => {
        const { offset, row } = spots[i];
        const width = widthOf(button);
        // A row grows away from the answer; held at the window's edge, it ends there.
        const from = gutter.side === 'right' ? Math.min(gutter.edge + gap, right - margin - rows[row]) : Math.max(gutter.edge - gap, margin + rows[row]);
        const left = gutter.side === 'right' ? from + offset : from - offset - width;
        button.style.left = `${Math.round(Math.max(margin, Math.min(left, right - width - margin)))}px`;
        button.style.top = `${Math.round(spots[i].top)}px`;
      });
      if (edgeBound) this.intoLineEnds(placed, lines, gutter.side, margin);
    }

    /**
     * With no margin, a badge pushed off its own line by the badges above it (more sentences end
     * on those lines than badges fit beside them) goes to the blank end of its own line instead,
     * as an icon: over no word, no chip and no other badge (issue 60: badges stood beside nothing
     * under a deep-research answer's paragraphs and tables).
     * @param {{button: HTMLButtonElement, line: DOMRect, top: number}[]} placed
     * @param {Map<number, {block?: Element|null}>} lines
     * @param {'left'|'right'} side @param {number} margin
     */
    intoLineEnds(placed, lines, side, margin) {
      const right = viewportRight(this.doc);
      const host = /** @type {Element} */ (this.layer.getRootNode()).host || null;
      const boxes = new Map(placed.map(({ button }) => [button, button.getBoundingClientRect()]));
      const overlaps = (/** @type {any} */ a, /** @type {any} */ b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
      const hitTest = typeof this.doc.elementsFromPoint === 'function';
      for (const { button, line, top } of placed) {
        const box = /** @type {DOMRect} */ (boxes.get(button));
        if (box.top < line.bottom - MIN_OVERLAP && box.bottom > line.top + MIN_OVERLAP) continue;
        const block = lines.get(Number(button.dataset.index))?.block;
        if (!block || !hitTest) continue;
        // The page's element at a point beside the line is the block itself, or what holds it:
        // blank, not a word or a chip of the answer.
        const blank = (/** @type {number} */ x) => {
          const hit = this.doc.elementsFromPoint(x, line.top + line.height / 2).find((el) => el !== host);
          return !hit || hit === block || hit.contains(block);
        };
        const step = COMPACT_WIDTH + STACK_GAP;
        for (let n = 0; ; n++) {
          const left = side === 'right' ? right - margin - COMPACT_WIDTH - n * step : margin + n * step;
          if (side === 'right' ? left < line.right + GAP : left + COMPACT_WIDTH > line.left - GAP) break;
          const spot = { left, right: left + COMPACT_WIDTH, top, bottom: top + BADGE_HEIGHT };
          if ([...boxes].some(([other, b]) => other !== button && overlaps(spot, b))) continue;
          if (!blank(left + 1) || !blank(left + COMPACT_WIDTH - 1)) continue;
          button.classList.add('compact');
          button.style.left = `${Math.round(left)}px`;
          button.style.top = `${Math.round(top)}px`;
          boxes.set(button, /** @type {any} */ (spot));
          break;
        }
      }
    }

    /**
     * A badge wider than the gutter drops its marker (the page's chip words), then shows its icon
     * alone, rather than cut a word ("Contradicted her…"); one with a "found in" note puts the
     * note on lines of its own beneath the verdict, rather than be pushed over the answer's
     * words. Its name and card say it all.
     * @param {HTMLButtonElement} button @param {number} room  px free beside the answer
     */
    fit(button, room) {
      button.classList.remove('no-num', 'stacked');
      button.style.maxWidth = '';
      if (button.querySelector('.elsewhere')) {
        if (button.offsetWidth > room) {
          button.classList.add('stacked');
          button.style.maxWidth = `${Math.max(room, MIN_STACKED_WIDTH)}px`;
        }
        return;
      }
      if (button.offsetWidth > room && button.querySelector('.num')) button.classList.add('no-num');
      if (button.offsetWidth > room) button.classList.add('compact');
    }

    clear() {
      for (const index of [...this.buttons.keys()]) this.remove(index);
    }
  }

  CL.overlay = Object.assign(CL.overlay || {}, { Badges, packBadges, chooseGutter, viewportRight, BADGE_ROOM: ROOM });
})((globalThis.CiteLens ??= {}));
