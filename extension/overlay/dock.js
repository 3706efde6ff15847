/*
 * Where the summary panel and the evidence card go so that they cover none of the answer's
 * words (issue 36 item 6.1): in the margins beside the answer, past its text and its badges'
 * column. A margin too narrow for the panel folds it to a chip the reader opens on demand; one
 * too narrow for the card leaves the card to placeCard, which then keeps it off the answer's
 * lines as best it can. Neither card nor panel covers the other (issue 60): where they share a
 * margin the panel keeps to its lower part.
 *
 * Runs in: content scripts. Pure: rectangles in, positions out.
 */
'use strict';
(function (CL) {
  const EDGE = 8; // px kept free at the viewport's edges
  const GAP = 10; // px between the answer (or its badges) and what is docked beside it
  // px below which the panel's words wrap a word a line: narrower, it folds to a chip
  const PANEL_MIN = 240;
  const PANEL_MAX = 420;
  // px below which a card's quotes would be a column of single words
  const CARD_MIN = 240;
  const CARD_MAX = 420;

  const SPACE = 6; // px between the card and its badge
  // px below which a card squeezed beside the summary would show too little of its quote
  const CARD_MIN_HEIGHT = 160;

  /**
   * Where the card goes: the first of these places that fits in the viewport and covers no
   * other badge: below the badge or above it, moved off the badges' column towards the answer;
   * then below or above, aligned with the badge; then beside it, outwards. When every place
   * covers some badge, the one that covers the least.
   * @param {{left: number, right: number, top: number, bottom: number}} anchor  the badge
   * @param {{width: number, height: number}} size  the card's
   * @param {{width: number, height: number}} viewport
   * @param {{left: number, right: number, top: number, bottom: number}[]} avoid  other badges
   * @param {{left: number, right: number, top: number, bottom: number}[]} [text]  the answer's
   *   line boxes: among places that cover no badge, the one that covers least of them
   * @returns {{left: number, top: number}}
   */
  function placeCard(anchor, size, viewport, avoid, text = []) {
    const { width, height } = size;
    const clampX = (/** @type {number} */ x) => Math.max(EDGE, Math.min(x, viewport.width - width - EDGE));
    const clampY = (/** @type {number} */ y) => Math.max(EDGE, Math.min(y, viewport.height - height - EDGE));
    // The badges' column is on the side of the badge away from the answer: the side with more room.
    const inwardLeft = anchor.left - SPACE - width >= EDGE;
    const inwardRight = anchor.right + SPACE + width <= viewport.width - EDGE;
    const inward = anchor.left > viewport.width - anchor.right ? (inwardLeft ? anchor.left - SPACE - width : null) : inwardRight ? anchor.right + SPACE : null;
    const aligned = anchor.left > viewport.width - anchor.right ? anchor.right - width : anchor.left;
    const below = anchor.bottom + SPACE;
    const above = anchor.top - SPACE - height;
    const candidates = [];
    if (inward !== null) candidates.push({ left: inward, top: below }, { left: inward, top: above }, { left: inward, top: clampY(anchor.top) });
    candidates.push({ left: clampX(aligned), top: below }, { left: clampX(aligned), top: above });
    const outward = anchor.left > viewport.width - anchor.right ? anchor.right + SPACE : anchor.left - SPACE - width;
    candidates.push({ left: outward, top: clampY(anchor.top) });
    const fits = (/** @type {{left: number, top: number}} */ c) =>
      c.left >= EDGE - 0.5 && c.top >= EDGE - 0.5 && c.left + width <= viewport.width - EDGE + 0.5 && c.top + height <= viewport.height - EDGE + 0.5;
    const area = (/** @type {{left: number, top: number}} */ c, /** @type {typeof avoid} */ rects) =>
      rects.reduce((sum, r) => {
        const w = Math.min(c.left + width, r.right) - Math.max(c.left, r.left);
        const h = Math.min(c.top + height, r.bottom) - Math.max(c.top, r.top);
        return sum + (w > 0 && h > 0 ? w * h : 0);
      }, 0);
    const inView = candidates.filter(fits);
    const clear = inView.find((c) => area(c, avoid) === 0 && area(c, text) === 0);
    if (clear) return clear;
    // Other badges first (a card over one hides a verdict), then the answer's words.
    const pool = (inView.length ? inView : candidates.map((c) => ({ left: clampX(c.left), top: clampY(c.top) })))
      .map((c, i) => ({ c, i, badges: area(c, avoid), words: area(c, text) }));
    pool.sort((a, b) => a.badges - b.badges || a.words - b.words || a.i - b.i);
    return pool[0].c;
  }

  /**
   * The card in its column beside the answer, at its badge's height, or the nearest height
   * that covers nothing in `avoid` (the summary panel may share that margin); null when none.
   * @param {{left: number, width: number}} column
   * @param {{top: number}} anchor @param {{width: number, height: number}} size
   * @param {{width: number, height: number}} viewport
   * @param {{left: number, right: number, top: number, bottom: number}[]} avoid
   */
  function inColumn(column, anchor, size, viewport, avoid) {
    const wanted = clampTop(anchor.top, size.height, viewport.height);
    const tops = [wanted, ...avoid.flatMap((r) => [r.bottom + SPACE, r.top - SPACE - size.height])]
      .filter((top) => top >= EDGE - 0.5 && top + size.height <= viewport.height - EDGE + 0.5)
      .sort((a, b) => Math.abs(a - wanted) - Math.abs(b - wanted));
    const clear = (/** @type {number} */ top) =>
      !avoid.some((r) => column.left < r.right && r.left < column.left + size.width && top < r.bottom && r.top < top + size.height);
    const top = tops.find(clear);
    return top === undefined ? null : { left: column.left, top };
  }

  /**
   * The free margins on each side of the answer, in viewport pixels.
   * @param {{left: number, right: number}} answer  the edges of the answer's blocks
   * @param {{left: number, right: number}|null} badges  the edges of its badges' column
   * @param {number} viewportWidth  without the scrollbar
   * @returns {{left: {from: number, to: number}, right: {from: number, to: number}}}
   */
  function freeMargins(answer, badges, viewportWidth) {
    const inner = badges ? Math.min(answer.left, badges.left) : answer.left;
    const outer = badges ? Math.max(answer.right, badges.right) : answer.right;
    return {
      left: { from: EDGE, to: Math.min(viewportWidth - EDGE, inner - GAP) },
      right: { from: Math.max(EDGE, outer + GAP), to: viewportWidth - EDGE },
    };
  }

  /** @param {{from: number, to: number}} m */
  const widthOf = (m) => Math.max(0, m.to - m.from);

  /**
   * The margin to use: the preferred side when it is wide enough, else the wider one.
   * @param {{left: {from: number, to: number}, right: {from: number, to: number}}} margins
   * @param {'left'|'right'} prefer @param {number} min
   * @returns {'left'|'right'}
   */
  function sideFor(margins, prefer, min) {
    const other = prefer === 'left' ? 'right' : 'left';
    if (widthOf(margins[prefer]) >= min) return prefer;
    return widthOf(margins[other]) > widthOf(margins[prefer]) ? other : prefer;
  }

  /**
   * The summary panel: a column in a margin wide enough for it, at the viewport's outer edge;
   * else a chip in the bottom corner of the wider margin.
   * @param {{left: {from: number, to: number}, right: {from: number, to: number}}} margins
   * @param {'left'|'right'} prefer  the side away from the badges
   * @returns {{side: 'left'|'right', collapsed: boolean, left: number, width: number}}
   */
  function dockPanel(margins, prefer) {
    const side = sideFor(margins, prefer, PANEL_MIN);
    const m = margins[side];
    const room = widthOf(m);
    if (room < PANEL_MIN) return { side, collapsed: true, left: side === 'left' ? m.from : m.to, width: room };
    const width = Math.min(PANEL_MAX, room);
    return { side, collapsed: false, left: side === 'left' ? m.from : m.to - width, width };
  }

  /**
   * The card beside the answer, at the height of its badge, in the margin on the badges' side
   * when it is wide enough (the pointer has the shortest way there), else in the other; null
   * when neither holds a card.
   * @param {{left: {from: number, to: number}, right: {from: number, to: number}}} margins
   * @param {'left'|'right'} prefer  the badges' side
   * @returns {{side: 'left'|'right', left: number, width: number}|null}
   */
  function cardColumn(margins, prefer) {
    const side = sideFor(margins, prefer, CARD_MIN);
    const m = margins[side];
    const room = widthOf(m);
    if (room < CARD_MIN) return null;
    const width = Math.min(CARD_MAX, room);
    // Next to the answer: the card reads with the sentence it belongs to.
    return { side, left: side === 'left' ? m.to - width : m.from, width };
  }

  /**
   * The summary panel's place, shared with the card's column when only one margin holds either
   * (issue 60: a card opened over the summary): the panel then keeps to the lower part of that
   * margin, and the card to the room above it.
   * @param {{left: {from: number, to: number}, right: {from: number, to: number}}} margins
   * @param {'left'|'right'} badges  the badges' side
   */
  function dockBeside(margins, badges) {
    const place = dockPanel(margins, badges === 'right' ? 'left' : 'right');
    const column = cardColumn(margins, badges);
    return { ...place, shared: !place.collapsed && !!column && column.side === place.side };
  }

  /**
   * The tallest stretch of a column, between the viewport's edges, that nothing in `avoid` covers.
   * @param {{left: number, width: number}} column @param {number} viewportHeight
   * @param {{left: number, right: number, top: number, bottom: number}[]} avoid
   * @returns {{top: number, bottom: number}}
   */
  function freeBand(column, viewportHeight, avoid) {
    const cuts = avoid
      .filter((r) => r.left < column.left + column.width && column.left < r.right)
      .sort((a, b) => a.top - b.top);
    let best = { top: EDGE, bottom: EDGE };
    let from = EDGE;
    for (const r of [...cuts, { top: viewportHeight - EDGE, bottom: viewportHeight }]) {
      const to = Math.min(r.top - GAP, viewportHeight - EDGE);
      if (to - from > best.bottom - best.top) best = { top: from, bottom: to };
      from = Math.max(from, r.bottom + GAP);
    }
    return best;
  }

  /**
   * The room beside the answer for the panel and the card: the margins past its blocks and its
   * badges' column, and the sentences' line boxes (what a card with no margin covers least).
   * @param {{left: number, right: number}} answer  the edges of the answer's blocks
   * @param {{side: 'left'|'right', compact?: boolean}} gutter  where the badges are (badges.js chooseGutter)
   * @param {{left: number, right: number}[]} badges  the badges in view
   * @param {{left: number, right: number, top: number, bottom: number}[]} lines  the sentences' line boxes
   * @param {number} viewportWidth
   */
  function roomBeside(answer, gutter, badges, lines, viewportWidth) {
    // The column the badges may take, as wide as their room says, or wider where one is.
    const reach = (gutter.compact ? CL.overlay.BADGE_ROOM.compact : CL.overlay.BADGE_ROOM.full) + GAP;
    const column = gutter.side === 'right' ? { left: answer.right, right: answer.right + reach } : { left: answer.left - reach, right: answer.left };
    for (const r of badges) {
      column.left = Math.min(column.left, r.left);
      column.right = Math.max(column.right, r.right);
    }
    return { margins: freeMargins(answer, column, viewportWidth), side: gutter.side, lines };
  }

  /** A top that keeps a box of `height` inside the viewport, as near `wanted` as it can. */
  function clampTop(/** @type {number} */ wanted, /** @type {number} */ height, /** @type {number} */ viewportHeight) {
    return Math.max(EDGE, Math.min(wanted, viewportHeight - height - EDGE));
  }

  CL.overlay = Object.assign(CL.overlay || {}, { freeMargins, roomBeside, dockPanel, dockBeside, cardColumn, freeBand, clampTop, placeCard, inColumn, DOCK: Object.freeze({ PANEL_MIN, CARD_MIN, CARD_MIN_HEIGHT, EDGE }) });
})((globalThis.CiteLens ??= {}));
