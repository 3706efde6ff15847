// Badges and cards name a sentence's sources by the page's own markers (issue 36 item 6.2): the
// text of the engine's citation chip the adapter captured ("archi +2", "almanac" on Perplexity,
// "agriculture +1" on ChatGPT, "[1]" on Phind), never a number CiteLens made up; a number only
// where the page shows one. From the saved engine pages (tests/fixtures/engines), through the
// adapter, the request and the statement's view, to the badge and the card the overlay draws.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UNIT_SOURCES, cases, renderFixture } from '../helpers/fixtures.js';
import { loadPage } from '../helpers/dom.js';

/** The fixture page in jsdom, its capture and request, and an overlay on it. */
function captured(name) {
  const testCase = cases().find((c) => c.name === name);
  const page = loadPage(renderFixture(testCase.fixture, UNIT_SOURCES), { url: testCase.url });
  // Test-only stand-ins: jsdom has no layout, so nothing to observe and no rectangles.
  page.window.ResizeObserver = class { observe() {} disconnect() {} };
  page.window.Range.prototype.getClientRects ??= () => [];
  const CL = page.CiteLens;
  const { capture, map } = CL.adapters.captureAnswer(page.document, { url: testCase.url, selection: null });
  const request = CL.content.buildRequest(capture, { url: testCase.url, title: '', capturedAt: new Date(0) });
  const overlay = new CL.overlay.Overlay(page.document, { onExport() {}, onClose() {}, onOptions() {} });
  return { ...page, CL, capture, map, request, overlay };
}

/**
 * The statement line the companion would send for the sentence that ends where `fragment` ends,
 * citing what the page cites there; every cited page supports it.
 */
function lineFor({ request, capture }, index, fragment, judgment = 'complete_support') {
  const end = capture.text.indexOf(fragment) + fragment.length;
  assert.ok(end >= fragment.length, `"${fragment}" is in the answer`);
  const start = capture.text.lastIndexOf('\n', end) + 1;
  const cited = request.citations.filter((c) => c.offset === end);
  assert.ok(cited.length, `a marker after "${fragment}"`);
  return {
    type: 'statement', index, text: capture.text.slice(start, end), span: [start, end], judgment, contradicted: false,
    citations: cited.map((c) => c.id),
    per_citation: cited.map((c) => ({ citation: c.id, url: c.url, judgment, score: 0.9, irrelevant: false, evidence: [{ text: 'A quote.' }] })),
    unsupported_assertions: [], reasons: [],
  };
}

/** The badge and the card the overlay draws for that line. */
function draw(page, line) {
  const view = page.CL.content.statementView(line, page.request, new Map());
  const range = page.map.rangeFor(line.span[0], line.span[1]);
  page.overlay.show(line.index, range ? [range] : [], view);
  const root = page.overlay.host.shadowRoot;
  const badge = root.querySelector(`.badge[data-index="${line.index}"]`);
  page.overlay.openCard(line.index, 'click');
  const heads = [...root.querySelectorAll('.card .source-head > span:first-child')].map((s) => s.textContent);
  return { view, shown: badge.querySelector('.num')?.textContent ?? null, label: badge.getAttribute('aria-label'), heads };
}

test('Perplexity: the badge shows the chip\'s own words ("archi +2", "almanac"), not CiteLens\'s numbers', () => {
  const page = captured('perplexity');
  // The chip "archi +2" stands for three pages: one label, as the page shows it.
  const chip = draw(page, lineFor(page, 1, 'engineering company of Gustave Eiffel.'));
  assert.equal(chip.shown, 'archi +2');
  assert.match(chip.label, /^Sentence 2: fully supported by source archi \+2 — show evidence$/);
  assert.deepEqual(chip.heads, ['Source archi +2', 'Source archi +2', 'Source archi +2']);
  // "almanac" is the fourth page the answer cites: the badge said "4".
  const almanac = draw(page, lineFor(page, 6, 'visit the tower each year.', 'no_support'));
  assert.equal(almanac.shown, 'almanac');
  assert.notEqual(almanac.shown, '4');
  assert.match(almanac.label, /not supported by source almanac/);
  assert.deepEqual(almanac.heads, ['Source almanac']);
  // The summary's list says it the same way.
  page.overlay.bar.done({ counts: { complete_support: 1, no_support: 1 }, contradicted: 0 });
  const link = page.overlay.host.shadowRoot.querySelector('.attention a[data-index="6"]');
  assert.match(link.getAttribute('aria-label'), /^Sentence 7: not supported by source almanac: /);
  page.overlay.destroy();
});

test('ChatGPT: the pill\'s site name ("agriculture +1"); Phind and Copilot: the number the page prints', () => {
  const chatgpt = captured('chatgpt');
  const pill = chatgpt.request.citations.find((c) => c.marker === 'agriculture +1');
  const sentence = chatgpt.capture.text.slice(0, pill.offset).split(/(?<=[.!?])\s+|\n/).pop();
  const shown = draw(chatgpt, lineFor(chatgpt, 0, sentence));
  assert.equal(shown.shown, 'agriculture +1');
  assert.ok(shown.heads.every((h) => h === 'Source agriculture +1'), JSON.stringify(shown.heads));
  chatgpt.overlay.destroy();

  const phind = captured('phind');
  const second = phind.request.citations.find((c) => c.marker === '[2]');
  const phindSentence = phind.capture.text.slice(0, second.offset).split(/(?<=[.!?])\s+|\n/).pop();
  assert.equal(draw(phind, lineFor(phind, 0, phindSentence)).shown, '[2]');
  phind.overlay.destroy();

  const copilot = captured('copilot');
  const third = copilot.request.citations.find((c) => c.marker === '3');
  const copilotSentence = copilot.capture.text.slice(0, third.offset).split(/(?<=[.!?])\s+|\n/).pop();
  assert.equal(draw(copilot, lineFor(copilot, 0, copilotSentence)).shown, '3');
  copilot.overlay.destroy();
});

test('a marker the page does not print (an empty chip label): the page\'s host, not a made-up number', () => {
  const page = captured('perplexity');
  const line = lineFor(page, 6, 'visit the tower each year.');
  for (const c of page.request.citations) c.marker = '';
  const drawn = draw(page, line);
  assert.equal(drawn.shown, 'sources.example');
  page.overlay.destroy();
});
