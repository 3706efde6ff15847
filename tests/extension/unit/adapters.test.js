// Each adapter against its saved engine page and the expected JSON beside it (Zotero and
// Hypothesis habit). UPDATE_EXPECTED=1 rewrites the expected files; review the diff before
// committing it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { FIXTURES, UNIT_SOURCES, cases, readExpected, renderFixture } from '../helpers/fixtures.js';
import { loadPage, selectContents } from '../helpers/dom.js';

/** What a capture sends, or the code of the error the reader sees. */
function run(testCase) {
  const { window, document, CiteLens } = loadPage(renderFixture(testCase.fixture, UNIT_SOURCES), {
    url: testCase.url,
    pageScripts: testCase.pageScripts,
  });
  CiteLens.adapters.prepareFor(document, testCase.url);
  const selection = testCase.select ? selectContents(window, testCase.select) : null;
  try {
    return CiteLens.adapters.captureAnswer(document, { url: testCase.url, selection }).capture;
  } catch (error) {
    if (!(error instanceof window.Error) || !error.code) throw error;
    return { error: error.code, message: error.message };
  }
}

for (const testCase of cases()) {
  test(`adapter: ${testCase.name}`, () => {
    const actual = JSON.parse(JSON.stringify(run(testCase)));
    if (process.env.UPDATE_EXPECTED && !testCase.url.startsWith('http://127.0.0.1')) {
      writeFileSync(path.join(FIXTURES, testCase.expected), JSON.stringify(actual, null, 2) + '\n');
    }
    assert.deepEqual(actual, readExpected(testCase.expected));
  });
}

test('every marker stands right after a sentence, or right after the words of an inline link', () => {
  for (const testCase of cases()) {
    const capture = run(testCase);
    if (capture.error) continue;
    for (const c of capture.citations) {
      assert.ok(c.offset > 0 && c.offset <= capture.text.length, `${testCase.name}: offset ${c.offset}`);
      const before = capture.text.slice(0, c.offset);
      assert.ok(/[.!?]$/.test(before) || before.endsWith(c.marker), `${testCase.name}: marker after "${before.slice(-20)}"`);
    }
  }
});
