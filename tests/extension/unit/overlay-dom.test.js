// The overlay's DOM in jsdom (no layout, no Highlight API there: rendering itself is checked in
// Chromium and Firefox). Here: quotes from hostile pages stay text, and the host is where
// docs/api.md says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadPage } from '../helpers/dom.js';

function overlayOn(html = '<!doctype html><body><p id="s">A sentence.</p></body>') {
  const page = loadPage(html, { url: 'https://example.com/' });
  // Test-only stand-ins: jsdom has no layout, so nothing to observe and no rectangles.
  page.window.ResizeObserver = class { observe() {} disconnect() {} };
  page.window.Range.prototype.getClientRects ??= () => [];
  const overlay = new page.CiteLens.overlay.Overlay(page.document, { onExport() {}, onClose() {}, onOptions() {} });
  return { ...page, overlay };
}

const HOSTILE = '<img src=x onerror="alert(1)"><script>alert(2)</script>';

test('one shadow host, citelens-overlay, last child of documentElement', () => {
  const { document, overlay } = overlayOn();
  assert.equal(document.documentElement.lastElementChild, overlay.host);
  assert.equal(overlay.host.localName, 'citelens-overlay');
  assert.ok(overlay.host.shadowRoot);
  assert.equal(document.querySelectorAll('citelens-overlay').length, 1);
  overlay.destroy();
  assert.equal(document.querySelectorAll('citelens-overlay').length, 0);
});

test('quotes, titles and sentences from pages are rendered as text, never as markup', () => {
  const { document, overlay } = overlayOn();
  const range = document.createRange();
  range.selectNodeContents(document.getElementById('s'));
  overlay.show(0, [range], {
    index: 0, judgment: 'complete_support', kind: 'complete_support', text: HOSTILE, unsupported: [HOSTILE], supportingSources: [1],
    sources: [{ n: 1, url: 'https://x.org/a', title: HOSTILE, judgment: 'complete_support', irrelevant: false, reason: '',
      quotes: [{ text: HOSTILE, href: 'https://x.org/a#:~:text=x' }] }],
  });
  overlay.openCard(0, 'click');
  const root = overlay.host.shadowRoot;
  assert.equal(root.querySelectorAll('img, script').length, 0);
  assert.equal(root.querySelector('blockquote').textContent, HOSTILE);
  assert.equal(root.querySelector('.statement').textContent, HOSTILE);
  const link = root.querySelector('a.open');
  assert.equal(link.getAttribute('rel'), 'noopener noreferrer');
  assert.equal(link.getAttribute('target'), '_blank');
  overlay.destroy();
});

test('a badge is a button named for the verdict; the card opens on focus and Esc closes it', () => {
  const { document, window, overlay } = overlayOn();
  const range = document.createRange();
  range.selectNodeContents(document.getElementById('s'));
  overlay.show(0, [range], {
    index: 0, judgment: 'no_support', kind: 'contradicted', text: 'A sentence.', unsupported: [], supportingSources: [2],
    sources: [{ n: 2, url: 'https://x.org/b', title: '', judgment: 'no_support', irrelevant: false, reason: '', quotes: [] }],
  });
  const root = overlay.host.shadowRoot;
  const badge = root.querySelector('button.badge');
  assert.equal(badge.getAttribute('aria-label'), 'Sentence 1: contradicted by source 2 — show evidence');
  assert.equal(badge.querySelector('.icon').textContent, '⚠');
  assert.match(badge.textContent, /Contradicted/);
  badge.focus();
  assert.equal(root.querySelector('.card').hidden, false);
  assert.match(root.querySelector('.card .note').textContent, /says the opposite/);
  document.dispatchEvent(new window.KeyboardEvent('keydown', { key: 'Escape' }));
  assert.equal(root.querySelector('.card').hidden, true);
  assert.equal(root.activeElement, badge);
  overlay.destroy();
});

test('the summary bar says what to do, with commands shown as code', () => {
  const { overlay } = overlayOn();
  overlay.bar.error('The CiteLens companion is not running at http://127.0.0.1:8765. Start it with `citelens serve`, then click again.');
  const bar = overlay.host.shadowRoot.querySelector('.bar');
  assert.equal(bar.getAttribute('role'), 'alert');
  assert.equal(bar.querySelector('code').textContent, 'citelens serve');
  overlay.bar.done({ counts: { complete_support: 9, partial_support: 2, no_support: 0, inaccessible: 1, no_citation: 2 }, recall: 0.667, precision: 0.8 });
  assert.equal(bar.querySelector('.counts').textContent, '9 of 14 sentences fully supported · 2 partly · 1 inaccessible · 2 without citation');
  assert.equal(bar.querySelector('.metrics').textContent, 'Citation recall 67% · precision 80%');
  assert.equal(bar.querySelector('button[data-action="export"]').textContent, 'Export audit card');
  overlay.destroy();
});

test('the summary bar offers "Save this answer for a batch audit" when the controller can save it', () => {
  const { overlay } = overlayOn();
  const done = { counts: { complete_support: 1, partial_support: 0, no_support: 0, inaccessible: 0, no_citation: 0 } };
  overlay.bar.done(done);
  const bar = overlay.host.shadowRoot.querySelector('.bar');
  assert.equal(bar.querySelector('button[data-action="save-batch"]'), null, 'no button without the action');
  overlay.destroy();
  const page = loadPage('<!doctype html><body></body>', { url: 'https://example.com/' });
  page.window.ResizeObserver = class { observe() {} disconnect() {} };
  let saved = 0;
  const withSave = new page.CiteLens.overlay.Overlay(page.document, { onExport() {}, onClose() {}, onOptions() {}, onSaveForBatch() { saved += 1; } });
  withSave.bar.done(done);
  const button = withSave.host.shadowRoot.querySelector('.bar button[data-action="save-batch"]');
  assert.equal(button.textContent, 'Save this answer for a batch audit');
  button.click();
  assert.equal(saved, 1);
  withSave.destroy();
});

test("a sentence cited by its paragraph's link says so in its card; its own marker's does not", () => {
  const { document, overlay } = overlayOn('<!doctype html><body><p id="s">A sentence.</p><p id="t">Another.</p></body>');
  const view = (index, citedBy) => ({
    index, judgment: 'complete_support', kind: 'complete_support', text: 'A sentence.', unsupported: [], supportingSources: [1], citedBy,
    sources: [{ n: 1, url: 'https://x.org/a', title: '', judgment: 'complete_support', irrelevant: false, reason: '', quotes: [] }],
  });
  for (const [index, id] of [[0, 's'], [1, 't']]) {
    const range = document.createRange();
    range.selectNodeContents(document.getElementById(id));
    overlay.show(index, [range], view(index, index === 0 ? 'block' : 'marker'));
  }
  const root = overlay.host.shadowRoot;
  overlay.openCard(0, 'click');
  assert.equal(root.querySelector('.card .cited-by').textContent, "Cited by the paragraph's link, not a marker of its own.");
  overlay.openCard(1, 'click');
  assert.equal(root.querySelector('.card .cited-by'), null);
  overlay.destroy();
});

test('a sentence in a language CiteLens does not read says so, with the reason, in its badge and card', () => {
  const { document, overlay } = overlayOn('<!doctype html><body><p id="s">Der Turm ist 330 Meter hoch.</p></body>');
  const why = 'the answer is in German; CiteLens reads English and French';
  const range = document.createRange();
  range.selectNodeContents(document.getElementById('s'));
  overlay.show(0, [range], {
    index: 0, judgment: 'not_checked', kind: 'not_checked', text: 'Der Turm ist 330 Meter hoch.', unsupported: [], supportingSources: [1], citedBy: 'marker',
    sources: [{ n: 1, url: 'https://de.example/turm', title: '', judgment: 'not_checked', irrelevant: false, reason: why, quotes: [] }],
  });
  const root = overlay.host.shadowRoot;
  assert.equal(root.querySelector('.badge').getAttribute('aria-label'), 'Sentence 1: not checked against source 1 (language) — show details');
  overlay.openCard(0, 'click');
  assert.match(root.querySelector('.card').textContent, /was not checked \(the answer is in German; CiteLens reads English and French\)/);
  overlay.destroy();
});

test('the summary bar says what citation recall and precision were computed over', () => {
  const { overlay } = overlayOn();
  const bar = overlay.host.shadowRoot.querySelector('.bar');
  const counts = { complete_support: 1, partial_support: 0, no_support: 0, inaccessible: 2, no_citation: 0 };
  overlay.bar.done({ counts, recall: 1, precision: 1, over: { statements: 1, citations: 1, block_cited: 0 } });
  assert.equal(bar.querySelector('.counts').textContent, '1 of 3 sentences fully supported · 2 inaccessible');
  assert.equal(bar.querySelector('.metrics').textContent, 'Citation recall 100% · precision 100%');
  assert.equal(bar.querySelector('.basis').textContent, 'Recall over the 1 sentence whose sources could be read, precision over 1 citation');
  overlay.bar.done({ counts: { ...counts, complete_support: 4 }, recall: 0.5, precision: 0.6, over: { statements: 4, citations: 5, block_cited: 3 } });
  assert.equal(bar.querySelector('.basis').textContent,
    "Recall over the 4 sentences whose sources could be read (3 cited by their paragraph's link), precision over 5 citations");
  // A summary from a companion before these counts: the figures alone, as before.
  overlay.bar.done({ counts, recall: 1, precision: 1 });
  assert.equal(bar.querySelector('.basis'), null);
  overlay.destroy();
});
