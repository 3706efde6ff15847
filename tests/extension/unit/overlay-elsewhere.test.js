// The overlay's side of two companion verdicts (jsdom): support found in a page the sentence does
// not cite (issue 12: found_elsewhere) and a sentence its cited page refutes (issue 10:
// contradicted). Statement lines have the shape companion/wire/export.py writes; the view is built
// from them the way the content script builds it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadPage } from '../helpers/dom.js';

const SRC = 'https://fieldnotes.example';
const REQUEST = {
  page: { url: 'https://www.perplexity.ai/search/bees', engine: 'perplexity', title: '', query: '', captured_at: '2026-11-30T09:00:00Z' },
  answer: { text: 'unused here' },
  citations: [
    { id: 'c1', marker: '1', url: `${SRC}/honey`, offset: 40 },
    { id: 'c2', marker: '2', url: `${SRC}/colony`, offset: 108 },
    { id: 'c3', marker: '3', url: `${SRC}/wall`, offset: 230 },
    { id: 'c4', marker: '4', url: `${SRC}/tomatoes`, offset: 290 },
  ],
  options: { stream: true },
};
const SOURCES = new Map(REQUEST.citations.map((c) => [c.url, { type: 'source', url: c.url, status: 'ok', title: c.url.endsWith('tomatoes') ? 'Growing tomatoes on a balcony' : '' }]));

function evidence(url, text) {
  return { text, start: 0, end: text.length, prefix: '', suffix: '', fragment_url: `${url}#:~:text=${encodeURIComponent(text)}` };
}

/** A statement line as the companion streams it. */
function line(index, fields) {
  return {
    type: 'statement', index, text: `Sentence ${index}.`, span: [0, 10], citations: [], judgment: 'no_support',
    contradicted: false, score: 0.1, per_citation: [], evidence_sentences: [], unsupported_assertions: [], claims: [],
    found_elsewhere: [], ...fields,
  };
}

const TOMATO_QUOTE = 'Tomatoes need at least six hours of direct sun a day to ripen well.';
const QUEEN_QUOTE = 'She can lay up to 2,000 eggs a day in spring.';
const WALL_QUOTE = 'The Great Wall of China is not visible from the Moon with the naked eye.';

const MISPLACED = line(1, {
  text: TOMATO_QUOTE,
  citations: ['c2'],
  unsupported_assertions: [TOMATO_QUOTE],
  per_citation: [{ citation: 'c2', marker: '2', url: `${SRC}/colony`, judgment: 'no_support', score: 0.02, contradiction: 0.01,
    irrelevant: false, evidence: [evidence(`${SRC}/colony`, 'Worker bees raised in summer live for about six weeks.')] }],
  found_elsewhere: [{ url: `${SRC}/tomatoes`, citation: 'c4', marker: '4', judgment: 'complete_support', score: 0.97,
    evidence: [evidence(`${SRC}/tomatoes`, TOMATO_QUOTE)] }],
});
const UNCITED = line(2, {
  text: 'The queen can lay up to 2,000 eggs a day in spring.',
  judgment: 'no_citation',
  found_elsewhere: [{ url: `${SRC}/colony`, citation: 'c2', marker: '2', judgment: 'complete_support', score: 0.93,
    evidence: [evidence(`${SRC}/colony`, QUEEN_QUOTE)] }],
});
const CONTRADICTED = line(3, {
  text: 'The Great Wall of China is visible from the Moon with the naked eye.',
  citations: ['c3'],
  contradicted: true,
  per_citation: [{ citation: 'c3', marker: '3', url: `${SRC}/wall`, judgment: 'no_support', score: 0.01, contradiction: 0.98,
    irrelevant: false, evidence: [evidence(`${SRC}/wall`, WALL_QUOTE)] }],
});

/** A page with one paragraph per sentence, its overlay, and a stand-in Highlight registry. */
function setUp() {
  const page = loadPage('<!doctype html><body><p id="s1">One.</p><p id="s2">Two.</p><p id="s3">Three.</p></body>', { url: 'https://www.perplexity.ai/search/bees' });
  const { window, CiteLens } = page;
  // Test-only stand-ins: jsdom has no layout and no CSS Custom Highlight API.
  window.ResizeObserver = class { observe() {} disconnect() {} };
  window.Range.prototype.getClientRects ??= () => [];
  const registry = new Map();
  window.Highlight = class { constructor(...ranges) { this.ranges = ranges; this.size = ranges.length; } };
  Object.defineProperty(window, 'CSS', { value: { highlights: registry }, configurable: true });
  const overlay = new CiteLens.overlay.Overlay(page.document, { onExport() {}, onClose() {}, onOptions() {} });
  /** Shows a streamed line as the content script does: its view, plus where else support was found. */
  const show = (statement) => {
    const range = page.document.createRange();
    range.selectNodeContents(page.document.getElementById(`s${statement.index}`));
    const view = { ...CiteLens.content.statementView(statement, REQUEST, SOURCES), elsewhere: CiteLens.overlay.elsewhereView(statement, REQUEST, SOURCES) };
    overlay.show(statement.index, [range], view);
  };
  const root = overlay.host.shadowRoot;
  const badge = (i) => root.querySelector(`.badge[data-index="${i}"]`);
  return { ...page, overlay, show, root, badge, registry };
}

/** What the badge shows after its icon, its parts as a reader reads them. */
const said = (badge) => [...badge.children].filter((el) => !el.classList.contains('icon')).map((el) => el.textContent).join(' ');

test('a sentence cited to the wrong page says "Not in [2] — found in [4]", with that page\'s quote and link', () => {
  const { overlay, show, root, badge } = setUp();
  show(MISPLACED);
  const b = badge(1);
  // Its own verdict stays: the support found elsewhere is a note beside it.
  assert.equal(b.dataset.kind, 'no_support');
  assert.equal(b.querySelector('.elsewhere').textContent, 'Not in [2] — found in [4]');
  assert.equal(said(b), 'Unsupported 2 Not in [2] — found in [4]');
  assert.equal(b.getAttribute('aria-label'), 'Sentence 2: not supported by source 2; found in [4] — show evidence');

  overlay.openCard(1, 'click');
  const card = root.querySelector('.card');
  assert.equal(card.querySelector('.note.elsewhere').textContent, 'Not in [2] — found in [4].');
  const found = card.querySelector('.source.found');
  assert.ok(found, 'the other page has its own box');
  assert.equal(found.querySelector('.source-head').textContent, '[4]fieldnotes.example — Growing tomatoes on a balcony');
  assert.equal(found.querySelector('blockquote').textContent, TOMATO_QUOTE);
  assert.equal(found.querySelector('a.open').getAttribute('href'), MISPLACED.found_elsewhere[0].evidence[0].fragment_url);
  assert.equal(found.querySelector('a.open').getAttribute('rel'), 'noopener noreferrer');
  // The cited page is still shown first, as what it is.
  const boxes = [...card.querySelectorAll('.source')];
  assert.ok(!boxes[0].classList.contains('found') && boxes[0].textContent.includes('does not support it'));
  // What its own sources lack, then where it was found: never "not found" after "found".
  const order = [...card.children].map((el) => el.textContent).filter((t) => /^(Not found in|Found in)/.test(t));
  assert.deepEqual(order, ['Not found in the sources it cites:', 'Found in a source it does not cite:']);
  overlay.destroy();
});

test('an uncited sentence says "No citation — found in [2]"', () => {
  const { overlay, show, root, badge } = setUp();
  show(UNCITED);
  const b = badge(2);
  assert.equal(b.dataset.kind, 'no_citation');
  assert.equal(said(b), 'No citation — found in [2]');
  assert.equal(b.getAttribute('aria-label'), 'Sentence 3: no citation; found in [2] — show evidence');
  b.focus();
  const card = root.querySelector('.card');
  assert.equal(card.hidden, false);
  assert.equal(card.querySelector('.elsewhere-head').textContent, 'Found in a source of this answer:');
  assert.equal(card.querySelector('.source.found blockquote').textContent, QUEEN_QUOTE);
  // The quote shown is the one the evidence highlight marks.
  assert.equal(overlay.card.quoteText.data, QUEEN_QUOTE);
  overlay.destroy();
});

test('a page no marker of the answer points at is named by its host', () => {
  const { overlay, show, badge } = setUp();
  const unmarked = { ...MISPLACED.found_elsewhere[0], url: 'https://www.garden.example/tomatoes', citation: null, marker: null };
  show({ ...MISPLACED, found_elsewhere: [unmarked] });
  assert.equal(badge(1).querySelector('.elsewhere').textContent, 'Not in [2] — found in garden.example');
  overlay.destroy();
});

test('no note when nothing was found elsewhere, or from a companion that does not send it', () => {
  const { overlay, show, badge } = setUp();
  show({ ...MISPLACED, found_elsewhere: [] });
  assert.equal(badge(1).querySelector('.elsewhere'), null);
  assert.equal(badge(1).getAttribute('aria-label'), 'Sentence 2: not supported by source 2 — show details');
  const { found_elsewhere: _dropped, ...older } = UNCITED;
  show(older);
  assert.equal(badge(2).querySelector('.elsewhere'), null);
  assert.equal(badge(2).getAttribute('aria-label'), 'Sentence 3: no citation');
  overlay.destroy();
});

test('a refuted sentence: its own badge, word and highlight, and the quote that says otherwise', () => {
  const { overlay, show, root, badge, registry } = setUp();
  show(CONTRADICTED);
  show({ ...MISPLACED, found_elsewhere: [] });
  const b = badge(3);
  assert.equal(b.dataset.kind, 'contradicted');
  assert.equal(b.dataset.judgment, 'no_support');
  assert.equal(b.querySelector('.icon').textContent, '⚠');
  assert.match(b.textContent, /Contradicted/);
  assert.equal(b.getAttribute('aria-label'), 'Sentence 4: contradicted by source 3 — show evidence');
  // Told apart from plain "not supported" by icon and word, not colour alone.
  assert.notEqual(b.querySelector('.icon').textContent, badge(1).querySelector('.icon').textContent);
  assert.ok(b.classList.contains('k-contradicted') && !b.classList.contains('k-no_support'));

  // citelens-contradicted over the refuted sentence only; its judgment's highlight still counts it.
  assert.equal(registry.get('citelens-contradicted').size, 1);
  assert.equal(registry.get('citelens-contradicted').ranges[0].toString(), 'Three.');
  assert.equal(registry.get('citelens-no_support').size, 2);
  assert.ok(registry.get('citelens-contradicted').priority > registry.get('citelens-no_support').priority);

  overlay.openCard(3, 'click');
  const card = root.querySelector('.card');
  assert.match(card.querySelector('h2').textContent, /Contradicted — sentence 4/);
  assert.match(card.querySelector('.note').textContent, /says the opposite/);
  const refuting = card.querySelector('.source.refutes');
  assert.ok(refuting, 'the refuting source is marked');
  assert.match(refuting.textContent, /says otherwise:/);
  assert.equal(refuting.querySelector('blockquote').textContent, WALL_QUOTE);
  assert.equal(registry.get('citelens-evidence').size, 2, 'the sentence and the refuting quote');
  overlay.destroy();
  assert.equal(registry.size, 0, 'destroy removes every highlight it registered');
});

test('a source is not called refuting when the line does not say which of several it is', () => {
  const { overlay, show, root } = setUp();
  const second = { ...CONTRADICTED.per_citation[0], citation: 'c4', marker: '4', url: `${SRC}/tomatoes`, contradiction: 0.02,
    evidence: [evidence(`${SRC}/tomatoes`, 'Pinch out the side shoots.')] };
  show({ ...CONTRADICTED, citations: ['c3', 'c4'], per_citation: [CONTRADICTED.per_citation[0], second] });
  overlay.openCard(3, 'click');
  assert.equal(root.querySelector('.card .source.refutes'), null);
  assert.match(root.querySelector('.card .note').textContent, /A cited source says the opposite/);
  overlay.destroy();
});

test('the summary names misplaced citations and uncited sentences a source supports, when there are any', () => {
  const { overlay, root } = setUp();
  const counts = { complete_support: 2, partial_support: 0, no_support: 2, inaccessible: 0, no_citation: 1 };
  overlay.bar.done({ counts, contradicted: { no_support: 1 }, recall: 0.5, precision: 0.5, misplaced: 1, uncitedSupported: 1 });
  const bar = root.querySelector('.bar');
  assert.equal(bar.querySelector('.counts').textContent, '2 of 5 sentences fully supported · 2 not supported, 1 of them contradicted · 1 without citation');
  assert.equal(bar.querySelector('.elsewhere').textContent, 'Found in another source: 1 sentence with a misplaced citation, 1 without citation');
  overlay.bar.done({ counts, misplaced: 0, uncitedSupported: 0 });
  assert.equal(bar.querySelector('.elsewhere'), null);
  overlay.bar.done({ counts });
  assert.equal(bar.querySelector('.elsewhere'), null);
  overlay.destroy();
});

test('the words for the summary line', () => {
  const { CiteLens } = setUp();
  const O = CiteLens.overlay;
  assert.equal(O.elsewhereCountsPhrase(3, 0), 'Found in another source: 3 sentences with a misplaced citation');
  assert.equal(O.elsewhereCountsPhrase(0, 2), 'Found in another source: 2 without citation');
  assert.equal(O.elsewhereCountsPhrase(0, 0), '');
  assert.equal(O.elsewherePhrase({ cited: ['[1]', '[2]'], found: [{ label: '[4]' }, { label: 'garden.example' }] }), 'Not in [1], [2] — found in [4], garden.example');
});
