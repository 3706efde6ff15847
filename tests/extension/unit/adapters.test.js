// Each adapter against its saved engine page and the expected JSON beside it (Zotero and
// Hypothesis habit). UPDATE_EXPECTED=1 rewrites the expected files; review the diff before
// committing it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { FIXTURES, UNIT_SOURCES, cases, readExpected, renderFixture } from '../helpers/fixtures.js';
import { loadPage, selectContents } from '../helpers/dom.js';

/** What a capture sends, or the code of the error the reader sees; `origin`: where the cited pages are. */
function run(testCase) {
  const { window, document, CiteLens } = loadPage(renderFixture(testCase.fixture, testCase.origin || UNIT_SOURCES), {
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

test("an AI Overview chip closing a paragraph or list item says where its block begins; one among the block's own markers does not", () => {
  const [blocks] = cases().filter((c) => c.fixture === 'google-ai-overview-blocks.html');
  const capture = JSON.parse(JSON.stringify(run(blocks)));
  const line = (/** @type {string} */ words) => capture.text.indexOf(words);
  const byOffset = capture.citations.map((c) => [capture.text.slice(c.block_start ?? c.offset, c.offset).slice(0, 30), c.block_start ?? null]);
  assert.deepEqual(byOffset, [
    ['The Great Barrier Reef stretch', 0],
    ['Bleaching: corals expel the al', line('Bleaching')],
    ['', null], // after "not a single organism.": words of its block follow it
    ['', null], // closes a block that holds another marker: it cites its own sentence
  ]);
});

test('an engine whose chips cite one sentence never sends block_start', () => {
  for (const testCase of cases().filter((c) => !c.fixture.startsWith('google-'))) {
    const capture = run(testCase);
    if (!capture.error) assert.ok(capture.citations.every((c) => !('block_start' in c)), testCase.name);
  }
});

// Issue 25.3: an engine's company publishes documentation too, and answers cite it; only the
// engine's own app pages (threads, searches, sign-in) are never sources (core.js: ownHosts,
// ownPages). Each engine's fixture, its cited pages moved to such a site, keeps every citation;
// moved into the engine's app, it keeps none.
const COMPANY_SITES = {
  copilot: {
    docs: ['https://learn.microsoft.com/en-us/windows', 'https://support.microsoft.com/en-us', 'https://www.microsoft.com/en-us', 'https://techcommunity.microsoft.com'],
    app: ['https://copilot.microsoft.com', 'https://www.bing.com', 'https://login.microsoftonline.com', 'https://m365.cloud.microsoft'],
  },
  chatgpt: {
    docs: ['https://help.openai.com/en', 'https://openai.com/index', 'https://platform.openai.com/docs'],
    app: ['https://chatgpt.com', 'https://chat.openai.com'],
  },
  perplexity: {
    docs: ['https://www.perplexity.ai/hub/blog', 'https://docs.perplexity.ai'],
    app: ['https://www.perplexity.ai/search', 'https://www.perplexity.ai/discover'],
  },
  phind: {
    docs: ['https://www.phind.com/blog'],
    app: ['https://www.phind.com/search', 'https://www.phind.com/agent'],
  },
  google: {
    docs: [
      'https://support.google.com/websearch', 'https://developers.google.com/search', 'https://cloud.google.com/docs',
      'https://sites.google.com/view/reef-lab', 'https://blog.google/outreach', 'https://www.youtube.com/@reefs',
      'https://patents.google.com/patent', 'https://books.google.com/books',
    ],
    app: ['https://www.google.com', 'https://maps.google.com', 'https://accounts.google.com', 'https://lh3.googleusercontent.com', 'https://www.gstatic.com'],
  },
};

/** The cited URLs of a fixture whose cited pages are moved to `origin`. */
function movedTo(testCase, origin) {
  const capture = run({ ...testCase, origin });
  return capture.error ? [] : capture.citations.filter((c) => c.url.startsWith(origin)).map((c) => c.url);
}

for (const testCase of cases()) {
  const baseline = run(testCase);
  const sites = !baseline.error && baseline.adapter !== 'generic' && COMPANY_SITES[baseline.engine.replace(/^google-.*/, 'google')];
  const cited = sites ? baseline.citations.filter((c) => c.url.startsWith(UNIT_SOURCES)).length : 0;
  if (!cited) continue;
  test(`adapter: ${testCase.name}: its company's documentation is a source, its app pages are not`, () => {
    for (const origin of sites.docs) assert.equal(movedTo(testCase, origin).length, cited, `citations of ${origin} kept`);
    for (const origin of sites.app) assert.deepEqual(movedTo(testCase, origin), [], `citations of ${origin} dropped`);
  });
}

test("the generic reader of a drifted engine page keeps the engine's app pages out, and only those", () => {
  const [drifted] = cases().filter((c) => c.select && c.fixture === 'drift-perplexity.html');
  // The chips ("archi", "travel"); words linked in the prose to the engine's own site are its UI.
  assert.equal(movedTo(drifted, 'https://www.perplexity.ai/hub/blog').length, 2);
  assert.deepEqual(movedTo(drifted, 'https://www.perplexity.ai/search'), []);
});
