// What the overlay says: badge names, the summary sentence, and text-fragment links.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadPage } from '../helpers/dom.js';

const { CiteLens } = loadPage('<!doctype html><p>x</p>', { url: 'https://example.com/' });
const O = CiteLens.overlay;

test('badge names say the sentence, the verdict, the sources and what pressing does', () => {
  assert.equal(O.badgeLabel(0, 'complete_support', [1]), 'Sentence 1: fully supported by source 1 — show evidence');
  assert.equal(O.badgeLabel(1, 'partial_support', [1, 3]), 'Sentence 2: partly supported by sources 1 and 3 — show evidence');
  assert.equal(O.badgeLabel(2, 'no_support', [2]), 'Sentence 3: not supported by source 2 — show details');
  assert.equal(O.badgeLabel(2, 'no_support', [2, 4, 5]), 'Sentence 3: not supported by sources 2, 4 and 5 — show details');
  assert.equal(O.badgeLabel(3, 'contradicted', [3]), 'Sentence 4: contradicted by source 3 — show evidence');
  assert.equal(O.badgeLabel(4, 'inaccessible', [4]), 'Sentence 5: could not read source 4 — show details');
  assert.equal(O.badgeLabel(5, 'no_citation', []), 'Sentence 6: no citation');
  assert.equal(O.badgeLabel(6, 'not_checked', [1]), 'Sentence 7: not checked against source 1 (language) — show details');
  assert.equal(O.badgeLabel(1, 'no_support', [2], { found: [{ label: '[4]' }] }), 'Sentence 2: not supported by source 2; found in [4] — show evidence');
});

test('every kind has an icon and a word, not colour alone, and no two kinds share an icon', () => {
  const kinds = ['complete_support', 'likely_support', 'partial_support', 'no_support', 'contradicted', 'inaccessible', 'not_checked', 'no_citation'];
  for (const kind of kinds) assert.ok(O.KINDS[kind].icon && O.KINDS[kind].word, kind);
  assert.equal(new Set(kinds.map((k) => O.KINDS[k].icon)).size, kinds.length);
  // "?" has one meaning, as in `citelens verify`: a sentence that cites nothing (issue 60).
  assert.equal(O.KINDS.no_citation.icon, '?');
  assert.equal(O.kindOf({ judgment: 'no_support', contradicted: true }), 'contradicted');
  assert.equal(O.kindOf({ judgment: 'partial_support', contradicted: false }), 'partial_support');
});

test('complete support read with low confidence is its own kind; without confidence it is the sure one', () => {
  assert.equal(O.kindOf({ judgment: 'complete_support', confidence: 'low' }), 'likely_support');
  assert.equal(O.kindOf({ judgment: 'complete_support', confidence: 'high' }), 'complete_support');
  assert.equal(O.kindOf({ judgment: 'complete_support' }), 'complete_support');
  assert.equal(O.kindOf({ judgment: 'complete_support', confidence: null }), 'complete_support');
  assert.equal(O.kindOf({ judgment: 'partial_support', confidence: 'low' }), 'partial_support');
  assert.notEqual(O.KINDS.likely_support.icon, O.KINDS.complete_support.icon);
  assert.notDeepEqual(O.PALETTE.likely_support, O.PALETTE.complete_support);
  assert.equal(O.verdictPhrase('likely_support', ['[1]']), 'likely supported by source [1]: check the quote');
});

test('the summary sentence names every non-zero count, and its parts sum to the sentences', () => {
  const counts = { complete_support: 9, partial_support: 2, no_support: 0, inaccessible: 1, no_citation: 2 };
  assert.equal(O.countsPhrase(counts), '9 of 14 sentences fully supported · 2 partly · 1 inaccessible · 2 without citation');
  assert.equal(O.countsPhrase({ complete_support: 1 }), '1 of 1 sentence fully supported');
  assert.equal(O.countsPhrase({ complete_support: 1, not_checked: 2 }), '1 of 3 sentences fully supported · 2 not checked (language)');
  // Issue 60: "… · 2 not supported · 1 contradicted" read as 9 of 8; the contradicted one is
  // one of the not supported, said so.
  assert.equal(O.countsPhrase({ complete_support: 0, no_support: 2 }, { no_support: 1 }), '0 of 2 sentences fully supported · 2 not supported, 1 of them contradicted');
  const lines = [
    { judgment: 'complete_support', confidence: 'high' },
    { judgment: 'complete_support' },
    { judgment: 'complete_support', confidence: 'low' },
    { judgment: 'partial_support', contradicted: true },
    { judgment: 'no_support', contradicted: true },
    { judgment: 'no_support' },
    { judgment: 'inaccessible' },
    { judgment: 'no_citation' },
  ];
  const { counts: tallied, contradicted } = O.tally(lines);
  const phrase = O.countsPhrase(tallied, contradicted);
  assert.equal(
    phrase,
    '2 of 8 sentences fully supported · 1 likely supported (check the quote) · 1 partly, 1 of them contradicted · 2 not supported, 1 of them contradicted · 1 inaccessible · 1 without citation',
  );
  const parts = phrase.split(' · ').map((p) => Number(/^(\d+)/.exec(p)[1]));
  assert.equal(parts.reduce((a, b) => a + b, 0), lines.length);
});

