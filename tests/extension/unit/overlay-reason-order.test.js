// Every reason in words, the most important first (issue 60 item 4), and the "likely supported"
// state (item 6), in jsdom: words and order only; where things stand on screen is measured in real
// browsers (e2e/screen.test.js).
// - A sentence in a language no model reads, whose page is also dead: its card and the summary
//   say the language first, the dead link as a second fact; the reader's browser is not offered
//   for that page, whose reading could not get the sentence judged.
// - Complete support read with low confidence: its own badge, card words and count, never the
//   plain green; a companion that sends no confidence keeps the sure kind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadPage } from '../helpers/dom.js';

// Arrays made in jsdom's realm: compared by value.
const plain = (x) => JSON.parse(JSON.stringify(x));
const URL_A = 'https://dead.example/a';
const URL_B = 'https://fine.example/b';
const TAMIL = 'the answer is in Tamil; CiteLens reads English and French';
const DEAD = "dead link (the site's name does not resolve)";
const REQUEST = {
  citations: [
    { id: 'c1', marker: 'dead', url: URL_A, offset: 20 },
    { id: 'c2', marker: 'fine', url: URL_B, offset: 41 },
  ],
};

function page() {
  const p = loadPage('<!doctype html><body><p id="s">One sentence here. Another one there.</p></body>', { url: 'https://example.com/' });
  // Test-only stand-ins: jsdom has no layout, so nothing to observe and no rectangles.
  p.window.ResizeObserver = class { observe() {} disconnect() {} };
  p.window.Range.prototype.getClientRects ??= () => [];
  const overlay = new p.CiteLens.overlay.Overlay(p.document, { onExport() {}, onClose() {}, onOptions() {} });
  const range = p.document.createRange();
  range.selectNodeContents(p.document.getElementById('s'));
  return { ...p, overlay, range, root: overlay.host.shadowRoot };
}

const tamilLine = {
  type: 'statement', index: 0, text: 'One sentence here.', span: [0, 18], citations: ['c1'],
  judgment: 'not_checked', contradicted: false, score: 0, language: 'ta', model: '', model_version: '',
  per_citation: [{ citation: 'c1', url: URL_A, judgment: 'not_checked', score: 0, irrelevant: false, evidence: [], reason: TAMIL }],
  evidence_sentences: [], unsupported_assertions: [],
};
// The dead page turned away nobody; a timeout would have been browser_may_read.
const SOURCES = new Map([
  [URL_A, { url: URL_A, status: 'inaccessible', reason: DEAD, browser_may_read: true, via: 'companion' }],
  [URL_B, { url: URL_B, status: 'ok', via: 'companion', title: 'Fine' }],
]);

test('not checked for its language, its page dead too: the language first, the dead link second, no browser', () => {
  const { CiteLens } = page();
  const view = CiteLens.content.statementView(tamilLine, REQUEST, SOURCES);
  assert.equal(view.kind, 'not_checked');
  const [source] = view.sources;
  assert.equal(source.reason, TAMIL, 'before issue 60 this was the dead link alone');
  assert.equal(source.alsoUnread, DEAD);
  assert.equal(source.browserMayRead, false, 'reading it could not get the sentence judged');
});

test('the card says the language, then that the page could not be read either; the summary row groups by the language', () => {
  const { CiteLens, overlay, range, root } = page();
  overlay.show(0, [range], CiteLens.content.statementView(tamilLine, REQUEST, SOURCES));
  overlay.openCard(0, 'click');
  const box = root.querySelector('.card .source');
  const lines = [...box.children].map((el) => el.textContent);
  const said = lines.indexOf(`was not checked (${TAMIL})`);
  const also = lines.indexOf(`could not be read either: ${DEAD}`);
  assert.ok(said >= 0 && also > said, JSON.stringify(lines));
  assert.ok(!lines.some((l) => /Read through my browser/.test(l)), JSON.stringify(lines));
  assert.deepEqual(plain(overlay.attention().map((a) => a.reason)), [TAMIL]);
  overlay.destroy();
});

test('the browser is offered for a page only where an unread page kept a sentence from being judged', () => {
  const { CiteLens } = page();
  const timeout = { url: URL_B, status: 'inaccessible', reason: 'timeout (the site took too long)', browser_may_read: true, via: 'companion' };
  const sources = [SOURCES.get(URL_A), timeout];
  const judgedLine = { per_citation: [{ url: URL_B, judgment: 'inaccessible' }] };
  const tamilOnly = { per_citation: [{ url: URL_A, judgment: 'not_checked' }] };
  // Without lines (an older caller): every page the companion marked.
  assert.deepEqual(plain(CiteLens.browserRead.browserReadable(sources)), [URL_A, URL_B]);
  assert.deepEqual(plain(CiteLens.browserRead.browserReadable(sources, [tamilOnly, judgedLine])), [URL_B]);
  assert.deepEqual(plain(CiteLens.browserRead.browserReadable(sources, [tamilOnly])), []);
});

const likelyLine = (confidence) => ({
  type: 'statement', index: 1, text: 'Another one there.', span: [19, 37], citations: ['c2'],
  judgment: 'complete_support', contradicted: false, score: 0.8, ...(confidence === undefined ? {} : { confidence }),
  per_citation: [{
    citation: 'c2', url: URL_B, judgment: 'complete_support', score: 0.8, irrelevant: false, ...(confidence === undefined ? {} : { confidence }),
    evidence: [{ text: 'Another one there, says the page.', start: 0, end: 10, prefix: '', suffix: '', fragment_url: `${URL_B}#:~:text=Another` }],
  }],
  evidence_sentences: [], unsupported_assertions: [],
});

test('complete support read with low confidence: "Likely" apart from the green, and the card asks to check the quote', () => {
  const { CiteLens, overlay, range, root } = page();
  overlay.show(1, [range], CiteLens.content.statementView(likelyLine('low'), REQUEST, SOURCES));
  const badge = root.querySelector('.badge');
  assert.equal(badge.dataset.kind, 'likely_support');
  assert.equal(badge.dataset.judgment, 'complete_support', 'the judgment stays the companion\'s');
  assert.ok(badge.classList.contains('k-likely_support') && !badge.classList.contains('k-complete_support'));
  assert.equal(badge.querySelector('.icon').textContent, '≈');
  assert.equal(badge.getAttribute('aria-label'), 'Sentence 2: likely supported by source fine: check the quote — show evidence');
  overlay.openCard(1, 'click');
  const card = root.querySelector('.card');
  assert.match(card.querySelector('.note.likely').textContent, /check the quote/);
  assert.ok([...card.querySelectorAll('.source > div')].some((d) => d.textContent === 'likely supports it: check the quote'));
  // Among the sentences the summary asks the reader to look at.
  assert.deepEqual(plain(overlay.attention().map((a) => a.kind)), ['likely_support']);
  overlay.destroy();
});

test('a companion that sends no confidence, or "high": the sure green as before', () => {
  const { CiteLens } = page();
  for (const confidence of [undefined, 'high', null]) {
    const view = CiteLens.content.statementView(likelyLine(confidence), REQUEST, SOURCES);
    assert.equal(view.kind, 'complete_support', String(confidence));
    assert.equal(view.sources[0].likely, false);
  }
});

test('offline, a page the browser could not read says no network, not a fault of the site', async () => {
  const { readPages } = await import('../../../extension/background/browser-read.js');
  const before = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
  const fail = async () => {
    throw new TypeError('Failed to fetch');
  };
  try {
    Object.defineProperty(globalThis, 'navigator', { value: { onLine: false }, configurable: true });
    const offline = await readPages(['https://x.example/a'], [], { fetch: fail });
    assert.deepEqual(offline['https://x.example/a'], { via: 'browser', error: 'no network (your browser is offline too)' });
    Object.defineProperty(globalThis, 'navigator', { value: { onLine: true }, configurable: true });
    const online = await readPages(['https://x.example/a'], [], { fetch: fail });
    assert.deepEqual(online['https://x.example/a'], { via: 'browser', error: 'network error (the connection failed)' });
  } finally {
    if (before) Object.defineProperty(globalThis, 'navigator', before);
    else delete globalThis.navigator;
  }
});
