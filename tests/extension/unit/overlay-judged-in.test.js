// Issue 39 item 5: the evidence card names, in one quiet last line, the language the sentence was
// judged in (in the reader's interface language: English or French) and the model that judged it,
// with its version; a sentence no model judged names its language alone, never the default model
// that its statement line still names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadPage } from '../helpers/dom.js';
import { EN, FR } from '../helpers/i18n.js';

const E5 = 'citelens-e5-multilingual-nli';
const URL_A = 'https://x.org/a';
const REQUEST = { citations: [{ id: 'c1', marker: '1', url: URL_A, offset: 29 }] };

/** A statement line as the companion streams it (docs/api.md), in Spanish, judged by e5 0.1.4. */
function lineOf(extra = {}) {
  return {
    type: 'statement', index: 0, text: 'La torre mide 330 metros.', span: [0, 25], citations: ['c1'],
    judgment: 'complete_support', contradicted: false, score: 0.93,
    per_citation: [{ citation: 'c1', url: URL_A, judgment: 'complete_support', score: 0.93, irrelevant: false, evidence: [] }],
    evidence_sentences: [], unsupported_assertions: [], language: 'es', model: E5, model_version: '0.1.4',
    ...extra,
  };
}

/** The card of `line`, opened, in the words of `messages`; its judged-in line's text, or null. */
function cardOf(line, messages = EN) {
  const page = loadPage('<!doctype html><body><p id="s">La torre mide 330 metros.</p></body>', { url: 'https://example.com/', messages });
  // Test-only stand-ins: jsdom has no layout, so nothing to observe and no rectangles.
  page.window.ResizeObserver = class { observe() {} disconnect() {} };
  page.window.Range.prototype.getClientRects ??= () => [];
  const overlay = new page.CiteLens.overlay.Overlay(page.document, { onExport() {}, onClose() {}, onOptions() {} });
  const range = page.document.createRange();
  range.selectNodeContents(page.document.getElementById('s'));
  overlay.show(0, [range], page.CiteLens.content.statementView(line, REQUEST, new Map([[URL_A, { status: 'ok' }]])));
  overlay.openCard(0, 'click');
  const card = overlay.host.shadowRoot.querySelector('.card');
  const judged = card.querySelectorAll('.judged-in');
  assert.ok(judged.length <= 1, 'one line at most');
  const text = judged.length ? judged[0].textContent : null;
  overlay.destroy();
  return { card, text, judged: judged[0] || null };
}

test('a judged sentence: "Judged in Spanish by" the model and its version, last in the card', () => {
  const { card, text, judged } = cardOf(lineOf());
  assert.equal(text, `Judged in Spanish by ${E5} 0.1.4`);
  assert.equal(card.lastElementChild, judged, 'after the sources: a quiet line, not a verdict');
  assert.equal(judged.tagName, 'P');
});

test('the same line in French, with the language named in French', () => {
  assert.equal(cardOf(lineOf(), FR).text, `Jugée en espagnol par ${E5} 0.1.4`);
  assert.equal(cardOf(lineOf({ language: 'en', model: 'citelens-minilm-nli', model_version: '0.3.4' }), FR).text, 'Jugée en anglais par citelens-minilm-nli 0.3.4');
  assert.equal(cardOf(lineOf({ language: 'fr' })).text, `Judged in French by ${E5} 0.1.4`);
});

test('a sentence in a language no model reads: its language, no model, and the reason as the companion gave it', () => {
  const why = 'the answer is in Tamil; CiteLens reads English and French';
  const tamil = lineOf({
    text: 'கோபுரம் 330 மீட்டர் உயரம்.', language: 'ta', model: '', model_version: '', judgment: 'not_checked', score: 0,
    per_citation: [{ citation: 'c1', url: URL_A, judgment: 'not_checked', score: 0, irrelevant: false, evidence: [], reason: why }],
  });
  for (const [messages, expected] of [[EN, 'In Tamil, not judged by a model'], [FR, 'En tamoul, non jugée par un modèle']]) {
    const { card, text } = cardOf(tamil, messages);
    assert.equal(text, expected);
    assert.ok(card.textContent.includes(why), 'the reason stays, as the companion worded it');
  }
});

test('a sentence no model read never names the default model its line carries', () => {
  for (const judgment of ['not_checked', 'inaccessible', 'no_citation']) {
    const line = lineOf({ judgment, language: 'fr', model: 'citelens-minilm-nli', model_version: '0.3.4' });
    if (judgment === 'no_citation') Object.assign(line, { citations: [], per_citation: [] });
    const { card, text } = cardOf(line);
    assert.equal(text, 'In French, not judged by a model', judgment);
    assert.doesNotMatch(card.textContent, /minilm/, judgment);
  }
  // A sentence citing nothing whose support was found elsewhere was read by its model.
  const found = { url: URL_A, citation: 'c1', marker: '1', judgment: 'complete_support', score: 0.9, evidence: [] };
  const elsewhere = lineOf({ judgment: 'no_citation', citations: [], per_citation: [], found_elsewhere: [found] });
  assert.equal(cardOf(elsewhere).text, `Judged in Spanish by ${E5} 0.1.4`);
});

test('an unidentified language has its own words, and a code the browser cannot name stays the code', () => {
  const und = lineOf({ language: 'und', model: '', model_version: '', judgment: 'not_checked', per_citation: [] });
  assert.equal(cardOf(und).text, 'In an unidentified language, not judged by a model');
  assert.equal(cardOf(und, FR).text, 'En langue non identifiée, non jugée par un modèle');
  assert.equal(cardOf(lineOf({ language: 'zz' })).text, `Judged in zz by ${E5} 0.1.4`);
  assert.equal(cardOf(lineOf({ language: 'not a code' })).text, `Judged in not a code by ${E5} 0.1.4`);
});

test("an older companion's line without a language, or without the model of a judged sentence, shows no line", () => {
  const { language, ...older } = lineOf();
  assert.equal(language, 'es');
  assert.equal(cardOf(older).text, null);
  assert.equal(cardOf(lineOf({ model: undefined, model_version: undefined })).text, null);
  // Without a version, the name alone.
  assert.equal(cardOf(lineOf({ model_version: undefined })).text, `Judged in Spanish by ${E5}`);
});

test("the companion's words are text, never markup", () => {
  const hostile = lineOf({ model: '<img src=x onerror=alert(1)>', model_version: '<b>1</b>', language: '<i>es</i>' });
  const { judged } = cardOf(hostile);
  assert.equal(judged.children.length, 0);
  assert.equal(judged.textContent, 'Judged in <i>es</i> by <img src=x onerror=alert(1)> <b>1</b>');
});
