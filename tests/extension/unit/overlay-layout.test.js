// Where badges and the evidence card go (issue 15.3), in jsdom with rectangles made up for the
// purpose: jsdom has no layout, so the browser tests (e2e/overlay-a11y.test.js) measure the
// same rules with real rectangles at 1280 and 800 px and on a right-to-left page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadPage } from '../helpers/dom.js';

function overlayOn(html = '<!doctype html><body><p id="s">One. Two. Three.</p></body>') {
  const page = loadPage(html, { url: 'https://example.com/' });
  // Test-only stand-ins: jsdom has no layout, so nothing to observe and no rectangles.
  page.window.ResizeObserver = class { observe() {} disconnect() {} };
  page.window.Range.prototype.getClientRects ??= () => [];
  const overlay = new page.CiteLens.overlay.Overlay(page.document, { onExport() {}, onClose() {}, onOptions() {} });
  return { ...page, overlay, O: page.CiteLens.overlay };
}

const view = (index, kind = 'no_support') => ({
  index, judgment: kind, kind, text: `Sentence ${index}.`, unsupported: [], supportingSources: [1],
  sources: [{ n: 1, url: 'https://x.org/a', title: '', judgment: kind, irrelevant: false, reason: '', quotes: [] }],
});
const rect = (left, top, width, height) => ({ left, top, width, height, right: left + width, bottom: top + height });
// Objects made in jsdom's realm: compared by value.
const plain = (x) => JSON.parse(JSON.stringify(x));
const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

test('packBadges: each badge stays beside its own line; badges of sentences ending on one line go side by side', () => {
  const { O } = overlayOn();
  const line = (top, height = 24) => ({ top, bottom: top + height });
  const item = (top, l, width = 100) => ({ top, height: 22, width, line: l });
  // Two sentences on one line, a third on the next line, a fourth far below.
  const spots = plain(O.packBadges([item(101, line(100)), item(101, line(100)), item(125, line(124)), item(301, line(300))], 3, 200, 20));
  assert.deepEqual(spots.map((s) => s.top), [101, 101, 126, 301]);
  assert.deepEqual(spots.map((s) => s.offset), [0, 103, 0, 0]);
  assert.deepEqual(spots.map((s) => s.compact), [false, true, false, false]);
  // A table row of five cells: one row of badges beside it, none drifting below the row (issue 60:
  // five badges stood in the gutter under a table).
  const row = line(400, 40);
  const cells = plain(O.packBadges([0, 1, 2, 3, 4].map(() => item(409, row)), 3, 200, 20));
  for (const s of cells) assert.ok(s.top < row.bottom && s.top + 22 > row.top, JSON.stringify(s));
  // Under the one before while it still shares the line; beside it after; and with no room left
  // beside the row, the next one stacks (the last resort) rather than leave the gutter.
  const tight = plain(O.packBadges([0, 1, 2, 3].map(() => item(409, row)), 3, 130, 20));
  assert.deepEqual(tight.map((s) => [s.top, s.offset]), [[409, 0], [434, 0], [434, 103], [459, 0]]);
  // The order is by wanted top, whatever order they come in.
  assert.deepEqual(plain(O.packBadges([item(200, line(199)), item(100, line(99))], 3, 200, 20)).map((s) => s.top), [200, 100]);
});

test('layout: no badge overlaps another, all in the gutter past the answer\'s edge, beside their lines; compact in a narrow one', () => {
  const { overlay, document } = overlayOn();
  for (const i of [0, 1, 2]) overlay.badges.upsert(i, view(i));
  const lines = new Map([0, 1, 2].map((i) => [i, { line: rect(300, 200, 200, 24), clip: { top: 0, bottom: 768 } }]));
  overlay.badges.layout(lines, { side: 'right', edge: 600 });
  const buttons = [...overlay.badges.buttons.values()];
  const boxes = buttons.map((b) => rect(parseFloat(b.style.left), parseFloat(b.style.top), b.classList.contains('compact') ? 20 : 100, 22));
  for (const [i, a] of boxes.entries()) {
    assert.ok(a.left >= 610, 'past the answer\'s right edge and the gap');
    assert.ok(a.top < 224 && a.bottom > 200, `badge ${i} beside its line: ${JSON.stringify(a)}`);
    for (const b of boxes.slice(i + 1)) assert.ok(!overlaps(a, b), JSON.stringify([a, b]));
  }
  assert.deepEqual(boxes.map((b) => b.left), [610, 713, 736]);
  assert.deepEqual(buttons.map((b) => b.classList.contains('compact')), [false, true, true]);

  // A gutter too narrow for words: the icon alone, just past the edge.
  overlay.badges.layout(lines, { side: 'right', edge: 800, compact: true });
  const first = overlay.badges.buttons.get(0);
  assert.ok(first.classList.contains('compact'));
  assert.equal(first.style.left, '802px');
  assert.ok(document.defaultView.CiteLens.overlay.STYLES.includes('.badge.compact > :not(.icon) { display: none; }'));

  // Right to left: the gutter on the left, each badge ending before the answer's left edge.
  overlay.badges.layout(new Map([[0, lines.get(0)]]), { side: 'left', edge: 300 });
  assert.ok(!first.classList.contains('compact'));
  assert.equal(first.style.left, `${300 - 10 - 100}px`);
  overlay.destroy();
});

test('placeCard: beside the badges\' column, never over another badge, inside the viewport', () => {
  const { O } = overlayOn();
  const size = { width: 420, height: 300 };
  const wide = { width: 1280, height: 900 };
  // A badge in the right gutter with two more just below it: below-and-aligned would cover them.
  const badge = rect(1110, 300, 90, 22);
  const others = [rect(1110, 325, 90, 22), rect(1110, 350, 120, 22), rect(1110, 640, 90, 22)];
  const at = O.placeCard(badge, size, wide, others);
  const card = rect(at.left, at.top, size.width, size.height);
  for (const other of others) assert.ok(!overlaps(card, other), JSON.stringify({ card, other }));
  assert.ok(card.right <= badge.left, 'on the answer\'s side of the badge');
  assert.ok(card.top >= 8 && card.bottom <= 892 && card.left >= 8);
  // Near the bottom of the window it goes above.
  const low = O.placeCard(rect(1110, 800, 90, 22), size, wide, []);
  assert.ok(low.top + size.height <= 800, JSON.stringify(low));
  // Badges on the left (Google's layout, right-to-left pages): the card goes right of them.
  const left = O.placeCard(rect(40, 300, 90, 22), size, wide, [rect(40, 325, 90, 22)]);
  assert.ok(left.left >= 130, JSON.stringify(left));
  // A narrow window with compact badges at its right edge.
  const narrow = O.placeCard(rect(778, 300, 20, 22), size, { width: 800, height: 900 }, [rect(778, 325, 20, 22), rect(778, 350, 20, 22)]);
  assert.ok(narrow.left + size.width <= 778 && narrow.left >= 8, JSON.stringify(narrow));
  // Nowhere is clear (a column of badges the height of the window on both sides of a tiny
  // viewport): the place that covers least, still inside the viewport.
  const cramped = O.placeCard(rect(200, 100, 20, 22), { width: 300, height: 200 }, { width: 440, height: 240 },
    [rect(0, 0, 440, 20), rect(0, 220, 440, 20), rect(0, 0, 20, 240), rect(420, 0, 20, 240)]);
  assert.ok(cramped.left >= 8 && cramped.top >= 8 && cramped.left + 300 <= 432 && cramped.top + 200 <= 232, JSON.stringify(cramped));
});

test('the open card is placed off the other badges by the overlay itself', () => {
  const { overlay, document } = overlayOn();
  const range = document.createRange();
  range.selectNodeContents(document.getElementById('s'));
  for (const i of [0, 1, 2]) overlay.show(i, [range], view(i));
  // Test-only: the badges' rectangles, as a layout would give them, stacked in a right gutter.
  const at = (i) => rect(900, 300 + 25 * i, 100, 22);
  for (const [i, b] of overlay.badges.buttons) b.getBoundingClientRect = () => at(i);
  overlay.openCard(0, 'click');
  const card = overlay.card.el;
  const box = rect(parseFloat(card.style.left), parseFloat(card.style.top), 420, 200);
  assert.ok(!overlaps(box, at(1)) && !overlaps(box, at(2)), JSON.stringify(box));
  overlay.destroy();
});

test('dock: the panel and the card go into the margins beside the answer, past its badges; a narrow margin folds the panel', () => {
  const { O } = overlayOn();
  // 1280 px: the answer from 380 to 1100, its badges from 1100 to 1250 (Perplexity's layout).
  const wide = O.freeMargins({ left: 380, right: 1100 }, { left: 1100, right: 1250 }, 1280);
  assert.deepEqual(plain(wide), { left: { from: 8, to: 370 }, right: { from: 1260, to: 1272 } });
  const panel = O.dockPanel(wide, 'left');
  assert.deepEqual(plain(panel), { side: 'left', collapsed: false, left: 8, width: 362 });
  assert.ok(panel.left + panel.width <= 380, 'left of the answer');
  // The badges' side has no room for the card: the other margin, next to the answer.
  assert.deepEqual(plain(O.cardColumn(wide, 'right')), { side: 'left', left: 8, width: 362 });
  // That is the panel's margin too: the panel keeps to its lower part (issue 60: a card opened
  // over the summary), and the card gets the tallest stretch the panel leaves free.
  assert.equal(O.dockBeside(wide, 'right').shared, true);
  assert.equal(O.dockBeside(O.freeMargins({ left: 380, right: 900 }, { left: 900, right: 1040 }, 1700), 'right').shared, false);
  assert.deepEqual(plain(O.freeBand({ left: 8, width: 362 }, 800, [rect(8, 440, 362, 344), rect(1110, 300, 90, 22)])), { top: 8, bottom: 430 });
  // 800 px: 214 px on the left, nothing right of the compact badges: a chip, and no column.
  const narrow = O.freeMargins({ left: 224, right: 776 }, { left: 776, right: 800 }, 800);
  assert.equal(O.dockPanel(narrow, 'left').collapsed, true);
  assert.equal(O.cardColumn(narrow, 'right'), null);
  // A wide window with room on the badges' side: the card goes there (the pointer's shortest way).
  const roomy = O.freeMargins({ left: 500, right: 1200 }, { left: 1200, right: 1350 }, 1920);
  assert.deepEqual(plain(O.cardColumn(roomy, 'right')), { side: 'right', left: 1360, width: 420 });
  assert.equal(O.dockPanel(roomy, 'left').side, 'left');
});

test('the overlay docks its panel and places an open card in the margin, off the answer\'s lines', () => {
  const { overlay, document } = overlayOn();
  const range = document.createRange();
  range.selectNodeContents(document.getElementById('s'));
  for (const i of [0, 1, 2]) overlay.show(i, [range], view(i));
  // Test-only: the badges' rectangles and the room a layout pass would find at 1280 px.
  for (const [i, b] of overlay.badges.buttons) b.getBoundingClientRect = () => rect(1110, 300 + 25 * i, 100, 22);
  const lines = [rect(380, 290, 720, 30), rect(380, 320, 720, 30)];
  overlay.room = { margins: document.defaultView.CiteLens.overlay.freeMargins({ left: 380, right: 1100 }, { left: 1100, right: 1250 }, 1280), side: 'right', lines };
  overlay.openCard(1, 'click');
  const card = overlay.card.el;
  const box = rect(parseFloat(card.style.left), parseFloat(card.style.top), parseFloat(card.style.width), 200);
  for (const line of lines) assert.ok(!overlaps(box, line), JSON.stringify({ box, line }));
  assert.equal(box.top, 325, 'at the height of its badge');
  overlay.bar.dock(document.defaultView.CiteLens.overlay.dockPanel(overlay.room.margins, 'left'));
  const panel = overlay.bar.panel;
  assert.ok(panel.classList.contains('docked') && !panel.classList.contains('collapsed'));
  assert.equal(panel.style.left, '8px');
  assert.equal(panel.style.width, '362px');
  assert.equal(overlay.bar.chip.hidden, true, 'no chip when the panel has its margin');
  overlay.destroy();
});

test('a panel with no margin folds to a chip, a button that unfolds it on demand', () => {
  const { overlay, document } = overlayOn();
  const O = document.defaultView.CiteLens.overlay;
  overlay.bar.done({ counts: { complete_support: 1 }, contradicted: 0 });
  overlay.bar.dock(O.dockPanel(O.freeMargins({ left: 224, right: 776 }, { left: 776, right: 800 }, 800), 'left'));
  const { panel, chip } = overlay.bar;
  assert.ok(panel.classList.contains('collapsed'));
  assert.equal(chip.hidden, false);
  assert.equal(chip.tagName, 'BUTTON');
  assert.equal(chip.getAttribute('aria-expanded'), 'false');
  assert.equal(chip.getAttribute('aria-controls'), 'citelens-summary-bar citelens-attention');
  assert.equal(chip.textContent, 'CiteLensShow summary');
  assert.equal(panel.style.maxWidth, '206px', 'the chip keeps to its margin');
  assert.equal(overlay.bar.el.getAttribute('role'), 'status', 'the status line stays for screen readers');
  chip.click();
  assert.ok(!panel.classList.contains('collapsed'));
  assert.equal(chip.getAttribute('aria-expanded'), 'true');
  assert.equal(chip.textContent, 'Fold summary');
  chip.click();
  assert.ok(panel.classList.contains('collapsed'));
  overlay.destroy();
});

test('placeCard with no margin: over no other badge first, then over as few of the answer\'s lines as it can', () => {
  const { O } = overlayOn();
  const size = { width: 300, height: 120 };
  const viewport = { width: 800, height: 900 };
  // Compact badges at the right edge, the answer's lines filling the width above and below.
  const badge = rect(778, 400, 20, 22);
  const others = [rect(778, 430, 20, 22), rect(778, 460, 20, 22)];
  const lines = [rect(224, 300, 552, 24), rect(224, 420, 552, 24), rect(224, 540, 552, 24)];
  const at = O.placeCard(badge, size, viewport, others, lines);
  const card = rect(at.left, at.top, size.width, size.height);
  for (const other of others) assert.ok(!overlaps(card, other), JSON.stringify({ card, other }));
  // Each candidate place covers some line here: the one chosen covers one line, not two.
  assert.ok(lines.filter((l) => overlaps(card, l)).length <= 1, JSON.stringify(card));
});
