// The verify request built from a capture, and the views built from the companion's lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadPage } from '../helpers/dom.js';
import { readExpected } from '../helpers/fixtures.js';

const { CiteLens } = loadPage('<!doctype html><p>x</p>', { url: 'https://example.com/' });
const C = CiteLens.content;
const plain = (value) => JSON.parse(JSON.stringify(value));

const capture = readExpected('google-ai-mode.expected.json');
const request = plain(C.buildRequest(capture, {
  url: 'https://www.google.com/search?q=x&udm=50',
  title: 'x - Google Search',
  capturedAt: new Date('2026-01-20T10:11:12Z'),
}));

test('the request follows docs/api.md', () => {
  assert.deepEqual(Object.keys(request), ['page', 'answer', 'citations', 'options']);
  assert.deepEqual(request.page, {
    url: 'https://www.google.com/search?q=x&udm=50', engine: 'google-ai-mode', title: 'x - Google Search',
    query: 'how tall is the eiffel tower and how often is it painted', captured_at: '2026-01-20T10:11:12.000Z',
    adapter: 'google-ai-mode', adapter_version: capture.adapter_version,
  });
  assert.equal(request.answer.text, capture.text);
  assert.deepEqual(request.options, { stream: true });
  assert.deepEqual(request.citations.map((c) => c.id), capture.citations.map((_, i) => `c${i + 1}`));
  assert.ok(request.citations.every((c) => c.offset >= 0 && c.offset <= capture.text.length));
});

test("an engine's text-fragment sentence travels as the citation's hint (api.md), not in its URL", () => {
  assert.deepEqual(request.citations[0], {
    id: 'c1', marker: 'archi', url: 'https://sources.example/articles/eiffel-history.html', offset: 90,
    hint: 'the tower now stands 330 metres high',
  });
  assert.deepEqual(request.citations[2], { id: 'c3', marker: 'travel', url: 'https://sources.example/articles/eiffel-visits.html', offset: 286, block_start: 210 });
});

test('sources are numbered in order of first citation, whatever their fragments', () => {
  assert.deepEqual(plain([...C.sourceNumbers(request)]), [
    ['https://sources.example/articles/eiffel-history.html', 1],
    ['https://sources.example/articles/eiffel-visits.html', 2],
    ['https://sources.example/articles/eiffel-myths.html', 3],
    ['https://sources.example/articles/paris-climate.html', 4],
    ['https://sources.example/articles/paint-colour.html', 5],
  ]);
});

test('a statement line becomes the view the overlay shows', () => {
  const sources = new Map([['https://sources.example/articles/paint-colour.html', { status: 'inaccessible', reason: 'http 404' }]]);
  const line = {
    type: 'statement', index: 2, text: 'It is repainted every seven years.', span: [210, 286], citations: ['c3'],
    judgment: 'complete_support', contradicted: false, score: 0.93,
    per_citation: [{ citation: 'c3', url: 'https://sources.example/articles/eiffel-visits.html', judgment: 'complete_support', score: 0.93, irrelevant: false,
      evidence: [{ text: 'The tower is repainted every seven years.', start: 10, end: 50, prefix: '', suffix: '', fragment_url: 'https://sources.example/articles/eiffel-visits.html#:~:text=repainted' }] }],
    evidence_sentences: ['The tower is repainted every seven years.'], unsupported_assertions: [],
  };
  const view = plain(C.statementView(line, request, sources));
  assert.equal(view.kind, 'complete_support');
  assert.deepEqual(view.supportingSources, [2]);
  assert.equal(view.sources[0].quotes[0].href, 'https://sources.example/articles/eiffel-visits.html#:~:text=repainted');

  const dead = plain(C.statementView({ ...line, index: 6, citations: ['c7'], judgment: 'inaccessible', per_citation: [] }, request, sources));
  assert.equal(dead.kind, 'inaccessible');
  assert.deepEqual(dead.supportingSources, [5]);
  assert.equal(dead.sources[0].reason, 'http 404');

  // A page in a language no model reads: the companion's reason is what the card shows.
  const why = 'the page is in German; CiteLens reads English and French';
  const german = plain(C.statementView({
    ...line, judgment: 'not_checked',
    per_citation: [{ ...line.per_citation[0], judgment: 'not_checked', score: 0, evidence: [], reason: why }],
  }, request, new Map([['https://sources.example/articles/eiffel-visits.html', { status: 'ok' }]])));
  assert.equal(german.kind, 'not_checked');
  assert.deepEqual(german.sources.map((s) => [s.judgment, s.reason]), [['not_checked', why]]);
  assert.deepEqual(german.supportingSources, [german.sources[0].n]);

  const built = plain(C.statementView({ ...line, per_citation: [{ ...line.per_citation[0], evidence: [{ ...line.per_citation[0].evidence[0], fragment_url: '' }] }] }, request, sources));
  assert.equal(built.sources[0].quotes[0].href, 'https://sources.example/articles/eiffel-visits.html#:~:text=The%20tower%20is%20repainted%20every%20seven%20years.');

  const uncited = plain(C.statementView({ ...line, citations: [], judgment: 'no_citation', per_citation: [] }, request, sources));
  assert.deepEqual([uncited.kind, uncited.sources, uncited.supportingSources], ['no_citation', [], []]);
});

test('the audit file is named after the host and the local time', () => {
  assert.equal(C.auditFileName('https://www.perplexity.ai/search/x', new Date(2026, 0, 5, 9, 7)), 'citelens-audit-www.perplexity.ai-20260105-0907.json');
});

test('"Save this answer for a batch audit" writes the request body as one JSON line', async () => {
  assert.equal(C.batchFileName('https://www.perplexity.ai/search/x', new Date(2026, 0, 5, 9, 7)), 'citelens-batch-www.perplexity.ai-20260105-0907.jsonl');
  const page = loadPage('<!doctype html><body></body>', { url: 'https://www.perplexity.ai/search/x' });
  /** @type {Blob[]} */
  const blobs = [];
  let clicked = '';
  // Test-only stand-ins: jsdom has no object URLs and does not follow a download link.
  page.window.URL.createObjectURL = (blob) => (blobs.push(blob), 'blob:test');
  page.window.URL.revokeObjectURL = () => {};
  page.window.HTMLAnchorElement.prototype.click = function () { clicked = this.download; };
  page.CiteLens.content.saveJsonLine(page.document.body, 'citelens-batch-x.jsonl', request);
  assert.equal(clicked, 'citelens-batch-x.jsonl');
  assert.equal(blobs[0].type, 'application/x-ndjson');
  const text = await new Promise((resolve) => {
    const reader = new page.window.FileReader();  // jsdom's Blob has no text()
    reader.onload = () => resolve(reader.result);
    reader.readAsText(blobs[0]);
  });
  assert.ok(text.endsWith('\n') && text.indexOf('\n') === text.length - 1, 'one line, newline-terminated');
  assert.deepEqual(JSON.parse(text), request);
  assert.equal(page.document.querySelector('a[download]'), null, 'the temporary link is gone');
});

test("a chip's block_start travels with its citation; a statement cited by it says so in its view", () => {
  const blocks = C.buildRequest(readExpected('google-ai-overview-blocks.expected.json'), {
    url: 'https://www.google.com/search?q=reef', title: 'reef', capturedAt: new Date('2026-01-20T10:11:12Z'),
  });
  assert.deepEqual(blocks.citations.map((c) => ('block_start' in c ? c.block_start : 'absent')), [0, 206, 'absent', 'absent']);
  const line = {
    type: 'statement', index: 0, text: 'The Great Barrier Reef stretches for more than 2,300 kilometres along the coast of Queensland.',
    span: [0, 94], citations: ['c1'], cited_by: 'block', judgment: 'complete_support', contradicted: false, score: 0.9,
    per_citation: [], evidence_sentences: [], unsupported_assertions: [],
  };
  assert.equal(C.statementView(line, blocks, new Map()).citedBy, 'block');
  assert.equal(C.statementView({ ...line, cited_by: 'marker' }, blocks, new Map()).citedBy, 'marker');
});
