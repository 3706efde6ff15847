// What the reader is told when the companion refuses a field of what CiteLens read from a real
// page (issue 17: a July 2025 AI Overview chip's whole link text sent as its marker came back as
// "The answer is too long for the companion (413: citations[0].marker is longer than 64 characters)").
// Before the extension's modules: their words come from _locales/en (no i18n API in node).
import '../helpers/i18n.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldOf, words } from '../../../extension/background/errors.js';

test('a 413 or 422 caused by a field says that part of the page was read wrongly, not that the answer is too long', () => {
  for (const [status, detail] of [
    [413, 'citations[0].marker is longer than 64 characters'],
    [413, 'page.title is longer than 4096 characters'],
    [422, 'citations[2].url must be an http(s) address, got \'javascript:void(0)\''],
  ]) {
    const message = words.rejected(status, detail);
    assert.doesNotMatch(message, /too long/, message);
    assert.ok(message.includes(`(${status}: ${detail})`), message);
    assert.match(message, /CiteLens read that part of the page wrongly\. Select the answer text and click again/);
  }
  // The field the companion names in its JSON wins over the message's first word.
  assert.doesNotMatch(words.rejected(413, 'too many characters', 'citations[1].marker'), /too long/);
});

test('the answer itself too long, or too many citations, is still said so', () => {
  assert.equal(
    words.rejected(413, 'the answer is longer than 50000 characters'),
    'The answer is too long for the companion (413: the answer is longer than 50000 characters).',
  );
  assert.match(words.rejected(413, 'answer.text is longer than 50000 characters'), /^The answer is too long/);
  assert.match(words.rejected(429, ''), /busy.*Try again in a moment/);
});

test('fieldOf reads the field path a companion message starts with', () => {
  assert.equal(fieldOf('citations[12].marker is longer than 64 characters'), 'citations[12].marker');
  assert.equal(fieldOf('options.stream must be true or false'), 'options.stream');
  assert.equal(fieldOf('the answer is empty: select the answer text and try again'), '');
  assert.equal(fieldOf('more than 100 citations'), '');
});
