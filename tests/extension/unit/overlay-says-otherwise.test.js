// Issue 36 item 2: a source that supports a sentence and also says the opposite somewhere
// (docs/api.md, `per_citation[].says_otherwise`, reasons `model.conflicting_reading`,
// `wording.says_otherwise`, `rule:<lang>.another_number` with its `reason_details`). The card shows
// both quotes, each under its own label and each with its link to the source at that sentence; a
// sentence that says otherwise is never shown under the support label; "Why this verdict" words
// the new reasons, with the two values of another_number inserted as text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadPage } from '../helpers/dom.js';
import { EN, FR } from '../helpers/i18n.js';

const HOSTILE = '<img src=x onerror="alert(1)"><script>alert(2)</script>';
const SUPPORT = 'The tower has 1,665 steps from the ground to the top.';
const OTHERWISE = 'Visitors can climb only 674 of its steps, to the second floor.';
const SUPPORT_HREF = 'https://x.org/a#:~:text=The%20tower%20has%201%2C665%20steps';
const OTHERWISE_HREF = 'https://x.org/a#:~:text=Visitors%20can%20climb%20only%20674';

function overlayOn(messages = EN) {
  const page = loadPage('<!doctype html><body><p id="s">The tower has 1,665 steps.</p></body>', { url: 'https://example.com/', messages });
  // Test-only stand-ins: jsdom has no layout, so nothing to observe and no rectangles.
  page.window.ResizeObserver = class { observe() {} disconnect() {} };
  page.window.Range.prototype.getClientRects ??= () => [];
  const overlay = new page.CiteLens.overlay.Overlay(page.document, { onExport() {}, onClose() {}, onOptions() {} });
  return { ...page, overlay };
}

/** A source view as statementView makes it; `extra` overrides. */
function source(extra = {}) {
  return {
    n: 1, url: 'https://x.org/a', title: '', judgment: 'partial_support', irrelevant: false, reason: '',
    quotes: [{ text: SUPPORT, href: SUPPORT_HREF }],
    saysOtherwise: [{ text: OTHERWISE, href: OTHERWISE_HREF }],
    ...extra,
  };
}

/** The card of one statement, opened. */
function cardFor(extra, messages = EN) {
  const { document, overlay, CiteLens } = overlayOn(messages);
  const range = document.createRange();
  range.selectNodeContents(document.getElementById('s'));
  overlay.show(0, [range], {
    index: 0, judgment: 'partial_support', kind: 'partial_support', text: 'The tower has 1,665 steps.', unsupported: [], supportingSources: [1],
    sources: [source()],
    ...extra,
  });
  overlay.openCard(0, 'click');
  const root = overlay.host.shadowRoot;
  const card = root.querySelector('.card');
  return { card, root, overlay, CiteLens, lines: [...card.querySelectorAll('.reasons li')].map((li) => li.textContent) };
}

/** Each labelled group of quotes in the card: its label, its quotes and their links. */
function groups(card) {
  return [...card.querySelectorAll('.quotes')].map((g) => ({
    kind: g.classList.contains('says-otherwise') ? 'says-otherwise' : 'supports',
    label: g.querySelector('.quote-label')?.textContent,
    quotes: [...g.querySelectorAll('blockquote')].map((b) => b.textContent),
    links: [...g.querySelectorAll('a.open')].map((a) => a.getAttribute('href')),
    group: g,
  }));
}

test('a source that supports the sentence and also says otherwise: both quotes, each labelled, each linked at its sentence', () => {
  const { card, root, overlay } = cardFor({});
  const [supports, otherwise, ...more] = groups(card);
  assert.equal(more.length, 0);
  assert.deepEqual(
    { label: supports.label, quotes: supports.quotes, links: supports.links },
    { label: 'Supports:', quotes: [SUPPORT], links: [SUPPORT_HREF] },
  );
  assert.deepEqual(
    { label: otherwise.label, quotes: otherwise.quotes, links: otherwise.links },
    { label: 'Says otherwise:', quotes: [OTHERWISE], links: [OTHERWISE_HREF] },
  );
  assert.equal(supports.kind, 'supports');
  assert.equal(otherwise.kind, 'says-otherwise');
  // Support first, then what says otherwise, both inside the source's box.
  assert.ok(supports.group.compareDocumentPosition(otherwise.group) & 4, 'supports before says otherwise');
  assert.ok(otherwise.group.closest('.source'), 'inside the source');
  // Links open a new tab without giving the page a handle on this one, as evidence links do.
  for (const a of card.querySelectorAll('.quotes a.open')) {
    assert.equal(a.getAttribute('target'), '_blank');
    assert.equal(a.getAttribute('rel'), 'noopener noreferrer');
  }
  // Each group is named by its label, for screen readers.
  for (const g of [supports, otherwise]) {
    assert.equal(g.group.getAttribute('role'), 'group');
    assert.equal(root.getElementById(g.group.getAttribute('aria-labelledby')).textContent, g.label);
  }
  overlay.destroy();
});

test('the same labels in French, with French typography', () => {
  const { card, overlay } = cardFor({}, FR);
  assert.deepEqual(groups(card).map((g) => g.label), ['Appuie\u00a0:', 'Dit le contraire\u00a0:']);
  assert.deepEqual(groups(card).map((g) => g.label), [FR.card_quote_supports.message, FR.card_quote_says_otherwise.message]);
  overlay.destroy();
});

test('a sentence that says otherwise is never shown under the support label, even when the evidence repeats it', () => {
  // An older or confused line that lists the same sentence as both: it goes under "Says otherwise".
  const { card, overlay } = cardFor({ sources: [source({ quotes: [{ text: OTHERWISE, href: OTHERWISE_HREF }, { text: SUPPORT, href: SUPPORT_HREF }] })] });
  const [supports, otherwise] = groups(card);
  assert.deepEqual(supports.quotes, [SUPPORT]);
  assert.deepEqual(otherwise.quotes, [OTHERWISE]);
  overlay.destroy();
  // Nothing else supports: no support label at all, only the sentence that says otherwise.
  const only = cardFor({ sources: [source({ quotes: [{ text: OTHERWISE, href: OTHERWISE_HREF }] })] });
  assert.deepEqual(groups(only.card).map((g) => [g.kind, g.label, g.quotes]), [['says-otherwise', 'Says otherwise:', [OTHERWISE]]]);
  assert.doesNotMatch(only.card.textContent, /Supports:/);
  only.overlay.destroy();
});

test('a source with no support quote of its own, but one that says otherwise: its closest passage is not called support', () => {
  const { card, overlay } = cardFor({ judgment: 'no_support', kind: 'no_support', sources: [source({ judgment: 'no_support' })] });
  const labels = groups(card).map((g) => g.label);
  assert.deepEqual(labels, ['Closest passage:', 'Says otherwise:']);
  assert.doesNotMatch(card.textContent, /Supports:/);
  overlay.destroy();
});

test('without says_otherwise the card is as before: quotes without labels', () => {
  const { card, overlay } = cardFor({ sources: [source({ saysOtherwise: [] })] });
  assert.equal(card.querySelectorAll('.quote-label').length, 0);
  assert.deepEqual([...card.querySelectorAll('blockquote')].map((b) => b.textContent), [SUPPORT]);
  overlay.destroy();
  // A view built by an older content script has no saysOtherwise at all.
  const older = cardFor({ sources: [source({ saysOtherwise: undefined })] });
  assert.deepEqual([...older.card.querySelectorAll('blockquote')].map((b) => b.textContent), [SUPPORT]);
  older.overlay.destroy();
});

test('a hostile sentence that says otherwise stays text', () => {
  const { root, card, overlay } = cardFor({ sources: [source({ saysOtherwise: [{ text: HOSTILE, href: 'https://x.org/a#:~:text=x' }] })] });
  assert.equal(root.querySelectorAll('img, script').length, 0);
  assert.equal(card.querySelector('.says-otherwise blockquote').textContent, HOSTILE);
  overlay.destroy();
});

test('the view of a statement line: says_otherwise as quotes linked at their sentence, never among the support quotes; reason_details kept', () => {
  const { CiteLens } = loadPage('<!doctype html><p>x</p>', { url: 'https://example.com/' });
  const request = { citations: [{ id: 'c1', marker: 'heritage', url: 'https://x.org/a' }] };
  const evidence = (text, fragment) => ({ text, start: 0, end: text.length, prefix: '', suffix: '', fragment_url: fragment });
  const line = {
    type: 'statement', index: 0, text: 'A.', span: [0, 2], citations: ['c1'], judgment: 'partial_support', contradicted: false, score: 0.6,
    per_citation: [{
      citation: 'c1', url: 'https://x.org/a', judgment: 'partial_support', score: 0.6, irrelevant: false,
      evidence: [evidence(SUPPORT, SUPPORT_HREF), evidence(OTHERWISE, OTHERWISE_HREF)],
      says_otherwise: [evidence(OTHERWISE, OTHERWISE_HREF), evidence('No link given.', '')],
      reasons: ['rule:en.another_number'], reason_details: { 'rule:en.another_number': { claim: '1,665', source: '674' } },
    }],
    reasons: ['wording.says_otherwise', 'rule:en.another_number'],
    reason_details: { 'rule:en.another_number': { claim: '1,665', source: '674' } },
    evidence_sentences: [], unsupported_assertions: [],
  };
  const view = (l) => JSON.parse(JSON.stringify(CiteLens.content.statementView(l, request, new Map())));
  const v = view(line);
  assert.deepEqual(v.sources[0].quotes, [{ text: SUPPORT, href: SUPPORT_HREF }]);
  assert.equal(v.sources[0].saysOtherwise.length, 2);
  assert.deepEqual(v.sources[0].saysOtherwise[0], { text: OTHERWISE, href: OTHERWISE_HREF });
  assert.match(v.sources[0].saysOtherwise[1].href, /^https:\/\/x\.org\/a#:~:text=No%20link%20given/);
  assert.deepEqual(v.reasonDetails, { 'rule:en.another_number': { claim: '1,665', source: '674' } });
  // An older companion: no says_otherwise, no reason_details.
  const older = view({ ...line, reason_details: undefined, per_citation: [{ ...line.per_citation[0], says_otherwise: undefined, reason_details: undefined }] });
  assert.deepEqual(older.sources[0].saysOtherwise, []);
  assert.deepEqual(older.reasonDetails, {});
  // Details that are not the documented shape are dropped, never shown as they came.
  const odd = view({ ...line, reason_details: { 'rule:en.another_number': { claim: 2000, source: ['x'] }, bad: 'x' }, per_citation: [{ ...line.per_citation[0], reason_details: {} }] });
  assert.deepEqual(odd.reasonDetails, {});
});

test('"Why this verdict" words the new reasons, in English and in French', () => {
  const cases = [
    ['model.conflicting_reading', 'card_reason_model_conflicting_reading'],
    ['wording.says_otherwise', 'card_reason_wording_says_otherwise'],
    ['rule:en.another_number', 'card_reason_rule_another_number'],
    ['rule:fr.another_number', 'card_reason_rule_another_number'],
  ];
  for (const [messages, lang] of [[EN, 'en'], [FR, 'fr']]) {
    for (const [id, key] of cases) {
      const { lines, overlay } = cardFor({ reasons: [id] }, messages);
      assert.ok(messages[key], `${lang}: ${key}`);
      assert.deepEqual(lines, [messages[key].message], `${lang}: ${id}`);
      overlay.destroy();
    }
  }
  assert.match(EN.card_reason_model_conflicting_reading.message, /opposite/);
  assert.match(EN.card_reason_wording_says_otherwise.message, /sentence of the source/);
  // The three ids together: three lines, strongest first, as the companion lists them.
  const { lines, overlay } = cardFor({ reasons: ['rule:en.another_number', 'wording.says_otherwise', 'model.conflicting_reading'] });
  assert.deepEqual(lines, [
    EN.card_reason_rule_another_number.message, EN.card_reason_wording_says_otherwise.message, EN.card_reason_model_conflicting_reading.message,
  ]);
  overlay.destroy();
});

test('another_number with its reason_details says both values, inserted as text', () => {
  const details = { 'rule:en.another_number': { claim: '2,000', source: '4,500' } };
  const en = cardFor({ reasons: ['rule:en.another_number'], reasonDetails: details });
  assert.deepEqual(en.lines, ['The source gives another value: it says 4,500 where the sentence says 2,000.']);
  en.overlay.destroy();
  const fr = cardFor({ reasons: ['rule:fr.another_number'], reasonDetails: { 'rule:fr.another_number': { claim: '2 000', source: '4 500' } } }, FR);
  assert.deepEqual(fr.lines, ['La source donne une autre valeur\u00a0: elle dit «\u00a04 500\u00a0» là où la phrase dit «\u00a02 000\u00a0».']);
  fr.overlay.destroy();
  // Values from the companion (read off a page) are text, never markup, and never re-expanded.
  const hostile = cardFor({ reasons: ['rule:en.another_number'], reasonDetails: { 'rule:en.another_number': { claim: '$1 $$', source: HOSTILE } } });
  assert.equal(hostile.root.querySelectorAll('img, script').length, 0);
  assert.deepEqual(hostile.lines, [`The source gives another value: it says ${HOSTILE} where the sentence says $1 $$.`]);
  hostile.overlay.destroy();
  // Details for another id, or of the wrong shape: the plain words, as without details.
  for (const reasonDetails of [{ 'rule:fr.another_number': details['rule:en.another_number'] }, { 'rule:en.another_number': { claim: '2,000' } }, { 'rule:en.another_number': { claim: 2000, source: 4500 } }, null, 'x']) {
    const plain = cardFor({ reasons: ['rule:en.another_number'], reasonDetails });
    assert.deepEqual(plain.lines, [EN.card_reason_rule_another_number.message], JSON.stringify(reasonDetails));
    plain.overlay.destroy();
  }
});

test('unknown ids beside the new ones still degrade gracefully', () => {
  const { card, lines, overlay } = cardFor({
    reasons: ['model.telepathy', 'wording.says_otherwise', 'rule:en.no_such_family', 'wording.telepathy'],
    reasonDetails: { 'model.telepathy': { claim: 'a', source: 'b' } },
  });
  assert.deepEqual(lines, [EN.card_reason_wording_says_otherwise.message]);
  assert.doesNotMatch(card.textContent, /telepathy|no_such_family|rule:|wording\./);
  overlay.destroy();
});
