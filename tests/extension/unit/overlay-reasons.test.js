// "Why this verdict" in the evidence card: the statement's `reasons` ids (docs/api.md) said in the
// reader's words, one line each, in English and in French; ids this version does not know, and
// an older companion's lines without `reasons`, show nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadPage } from '../helpers/dom.js';
import { EN, FR } from '../helpers/i18n.js';

function overlayOn(messages) {
  const page = loadPage('<!doctype html><body><p id="s">The tower is 330 metres high.</p></body>', { url: 'https://example.com/', messages });
  // Test-only stand-ins: jsdom has no layout, so nothing to observe and no rectangles.
  page.window.ResizeObserver = class { observe() {} disconnect() {} };
  page.window.Range.prototype.getClientRects ??= () => [];
  const overlay = new page.CiteLens.overlay.Overlay(page.document, { onExport() {}, onClose() {}, onOptions() {} });
  return { ...page, overlay };
}

/** The card of one statement, opened; `extra` is merged into its view (reasons, judgment…). */
function cardFor(extra, messages = EN) {
  const { document, overlay, CiteLens } = overlayOn(messages);
  const range = document.createRange();
  range.selectNodeContents(document.getElementById('s'));
  overlay.show(0, [range], {
    index: 0, judgment: 'partial_support', kind: 'partial_support', text: 'The tower is 330 metres high.', unsupported: [], supportingSources: [1],
    sources: [{ n: 1, url: 'https://x.org/a', title: '', judgment: 'partial_support', irrelevant: false, reason: '', quotes: [] }],
    ...extra,
  });
  overlay.openCard(0, 'click');
  const card = overlay.host.shadowRoot.querySelector('.card');
  return { card, overlay, CiteLens, lines: [...card.querySelectorAll('.reasons li')].map((li) => li.textContent) };
}

test('a rule and a score reason: both lines under "Why this verdict", in English', () => {
  const { card, lines, overlay } = cardFor({ reasons: ['rule:en.framed', 'score.below_complete'] });
  assert.equal(card.querySelector('.reasons-head').textContent, 'Why this verdict');
  assert.deepEqual(lines, [EN.card_reason_rule_framed.message, EN.card_reason_score.message]);
  assert.match(lines[0], /^A wording rule found that the source reports this as a claim, myth or hope/);
  assert.match(lines[1], /^Too little of the sentence \(its words, numbers or names\) is found in the source/);
  // The list is named by its heading, for screen readers.
  const list = card.querySelector('.reasons ul');
  assert.equal(card.querySelector(`#${list.getAttribute('aria-labelledby')}`).textContent, 'Why this verdict');
  overlay.destroy();
});

test('the same reasons in French with the French messages', () => {
  const { card, lines, overlay } = cardFor({ reasons: ['rule:en.framed', 'score.below_complete'] }, FR);
  assert.equal(card.querySelector('.reasons-head').textContent, 'Pourquoi ce verdict');
  assert.deepEqual(lines, [FR.card_reason_rule_framed.message, FR.card_reason_score.message]);
  assert.match(lines[0], /^Une règle de formulation a trouvé que la source rapporte cela/);
  assert.match(lines[1], /^Trop peu de la phrase/);
  overlay.destroy();
});

test('an id this version does not know shows no "Why this verdict", and never the id itself', () => {
  for (const reasons of [['model.telepathy'], ['rule:en.no_such_family'], ['rule:framed'], [42, null], []]) {
    const { card, overlay } = cardFor({ reasons });
    assert.equal(card.querySelector('.reasons'), null, JSON.stringify(reasons));
    assert.doesNotMatch(card.textContent, /Why this verdict|telepathy|no_such_family|rule:/, JSON.stringify(reasons));
    overlay.destroy();
  }
  // Beside a known id, the unknown one is skipped and the known one shown.
  const { lines, overlay } = cardFor({ reasons: ['model.telepathy', 'claims.unsupported'] });
  assert.deepEqual(lines, ['Part of the sentence is not found in the source.']);
  overlay.destroy();
});

test("an older companion's statement without `reasons` renders, without the section", () => {
  const { card, overlay } = cardFor({});
  assert.equal(card.hidden, false);
  assert.match(card.querySelector('h2').textContent, /sentence 1/);
  assert.equal(card.querySelector('.reasons'), null);
  assert.doesNotMatch(card.textContent, /Why this verdict/);
  overlay.destroy();
});

test('a fully supported statement says the model read the source as saying it', () => {
  const { card, lines, overlay } = cardFor({
    judgment: 'complete_support', kind: 'complete_support', reasons: ['model.entailment'],
    sources: [{ n: 1, url: 'https://x.org/a', title: '', judgment: 'complete_support', irrelevant: false, reason: '', quotes: [] }],
  });
  assert.equal(card.querySelector('.reasons-head').textContent, 'Why this verdict');
  assert.deepEqual(lines, ['The model reads the source as saying this.']);
  overlay.destroy();
});

test('every reason id has its words; a family group speaks once; both score ids give one line', () => {
  const { CiteLens } = loadPage('<!doctype html><p>x</p>', { url: 'https://example.com/' });
  // A plain array of this realm (the page's arrays are another realm's: deepEqual tells them apart).
  const words = (reasons) => [...CiteLens.overlay.reasonWords(reasons)];
  assert.deepEqual(words(undefined), []);
  assert.deepEqual(words('model.entailment'), [], 'not a list');
  assert.deepEqual(words(['score.below_complete', 'score.below_partial']), [EN.card_reason_score.message]);
  assert.deepEqual(words(['model.contradiction']), [EN.card_reason_model_contradiction.message]);
  assert.deepEqual(words(['model.no_entailment']), [EN.card_reason_model_no_entailment.message]);
  const groups = {
    card_reason_rule_framed: ['framed', 'framed_numbers'],
    card_reason_rule_negated: ['negated', 'negated_between', 'negates', 'restates_negated'],
    card_reason_rule_substituted: ['substituted'],
    // Issue 36 item 2: another value for the same quantity has words of its own (and its values
    // when the companion sends them, overlay-says-otherwise.test.js).
    card_reason_rule_another_number: ['another_number'],
    card_reason_rule_opposite: ['opposite', 'reversed', 'passive_reversed'],
    card_reason_rule_scope: ['scope_universal', 'scope_only', 'scope_part_of', 'scope_partial'],
  };
  for (const [key, families] of Object.entries(groups)) {
    for (const lang of ['en', 'fr']) {
      for (const family of families) assert.deepEqual(words([`rule:${lang}.${family}`]), [EN[key].message], `rule:${lang}.${family}`);
    }
    assert.match(EN[key].message, /^A wording rule found/, 'says a rule, not the model, decided');
    assert.deepEqual(words(families.map((f) => `rule:en.${f}`)), [EN[key].message], `${key} once`);
  }
  // The model's contradiction says what its missing entailment would: one line, not two.
  assert.deepEqual(words(['model.contradiction', 'model.no_entailment']), [EN.card_reason_model_contradiction.message]);
  // Strongest first, as the companion lists them.
  assert.deepEqual(words(['model.contradiction', 'rule:fr.opposite', 'claims.unsupported']), [
    EN.card_reason_model_contradiction.message, EN.card_reason_rule_opposite.message, EN.card_reason_claims_unsupported.message,
  ]);
});

test('the view of a statement line carries its reasons; a line without them gives an empty list', () => {
  const { CiteLens } = loadPage('<!doctype html><p>x</p>', { url: 'https://example.com/' });
  const request = { citations: [{ id: 'c1', url: 'https://x.org/a' }] };
  const line = {
    type: 'statement', index: 0, text: 'A.', span: [0, 2], citations: ['c1'], judgment: 'complete_support', contradicted: false, score: 0.9,
    per_citation: [{ citation: 'c1', url: 'https://x.org/a', judgment: 'complete_support', score: 0.9, irrelevant: false, evidence: [], reasons: ['model.entailment'] }],
    evidence_sentences: [], unsupported_assertions: [],
  };
  const view = (l) => JSON.parse(JSON.stringify(CiteLens.content.statementView(l, request, new Map())));
  assert.deepEqual(view({ ...line, reasons: ['model.entailment'] }).reasons, ['model.entailment']);
  assert.deepEqual(view(line).reasons, []);
  assert.deepEqual(view({ ...line, reasons: 'model.entailment' }).reasons, []);
});
