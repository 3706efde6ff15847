// Every real saved engine page (../shared/data/ai-pages/, helpers/real-pages.js) loaded in jsdom
// at its engine's own URL, captured as the extension captures it, and compared with the expected
// capture beside the engine fixtures (tests/fixtures/engines/real-pages/). UPDATE_EXPECTED=1
// writes them; review the diff before committing. Pages without an expected file yet (pages
// added to the shared folder later) still have to pass every check but the comparison.
//
// jsdom has no layout, so no turn is on screen: a conversation is read at its latest citing turn
// (core.js answerBlocks). The turns-on-screen and caret rules are tested below with positions
// given to the turns by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadPage } from '../helpers/dom.js';
import { EXPECTED, realPages, roughSentences } from '../helpers/real-pages.js';

// Throws, and so fails this file in words, when the shared pages are not beside the repository.
const PAGES = realPages();
const squash = (s) => s.replace(/\s+/g, ' ').trim();

/** @param {import('../helpers/real-pages.js').RealPage} page @param {(window: any) => void} [arrange] */
function capture(page, arrange) {
  const loaded = loadPage(page.html(), { url: page.url });
  const { window, document, CiteLens } = loaded;
  CiteLens.adapters.prepareFor(document, page.url);
  if (arrange) arrange(window);
  const result = CiteLens.adapters.captureAnswer(document, { url: page.url, selection: window.getSelection() });
  return { ...loaded, ...result, adapter: CiteLens.adapters.detect(document, page.url) };
}

/** Outermost elements matching `selectors` inside `root`. */
function outermost(root, selectors) {
  const all = selectors.flatMap((s) => [...root.querySelectorAll(s)]);
  return [...new Set(all)].filter((el) => !all.some((other) => other !== el && other.contains(el)));
}

for (const page of PAGES) {
  test(`real page ${page.id}: captured at ${page.url}`, () => {
    const { capture: actual, container, document, adapter } = capture(page);
    assert.ok(adapter, `${page.id}: no engine adapter recognises the page at ${page.url}`);

    // At least one citation resolved to a web page, each marker after its sentence, labels short.
    assert.ok(actual.citations.length >= 1, `${page.id}: no citation resolved`);
    for (const c of actual.citations) {
      assert.match(c.url, /^https?:\/\/[^/]+/, c.url);
      assert.ok(c.offset > 0 && c.offset <= actual.text.length, `${page.id}: offset ${c.offset}`);
      assert.ok(c.marker.length < 64, `${page.id}: marker of ${c.marker.length} characters: ${c.marker}`);
    }
    assert.ok(roughSentences(actual.text).length >= 1);

    // Answer boundaries: nothing from the source cards, agent steps or tool output the adapter
    // leaves out, nor from the turns it did not read.
    const turns = outermost(document, adapter.selectors.turns || []).filter((t) => !t.contains(container) && !container.contains(t));
    for (const el of [...outermost(container, adapter.selectors.skip || []), ...turns]) {
      const words = squash(el.textContent || '').slice(0, 40);
      if (words.length >= 40) assert.ok(!squash(actual.text).includes(words), `${page.id}: "${words}" is not answer text`);
    }

    const json = JSON.parse(JSON.stringify(actual));
    if (process.env.UPDATE_EXPECTED) {
      mkdirSync(EXPECTED, { recursive: true });
      writeFileSync(page.expected, JSON.stringify(json, null, 2) + '\n');
    }
    if (!existsSync(page.expected)) {
      console.log(`# ${page.id}: no expected capture yet (${path.basename(page.expected)}); UPDATE_EXPECTED=1 writes it`);
      return;
    }
    assert.deepEqual(json, JSON.parse(readFileSync(page.expected, 'utf8')));
  });
}

/** Gives elements a place on a 900-pixel screen, as a layout would. */
function place(window, positions) {
  const view = window.Element.prototype;
  const original = view.getBoundingClientRect;
  view.getBoundingClientRect = function () {
    const at = positions.find(([el]) => el === this);
    if (!at) return original.call(this);
    const [, top, height] = at;
    return { top, bottom: top + height, height, width: 700, left: 0, right: 700, x: 0, y: top, toJSON() {} };
  };
  Object.defineProperty(window, 'innerHeight', { value: 900, configurable: true });
}

const find = (id) => {
  const page = PAGES.find((p) => p.id === id);
  assert.ok(page, `${id} is missing from the shared pages`);
  return page;
};

test('several short turns on screen, one of them citing: every turn on screen is read', () => {
  // Perplexity, February 2026: "はい。" cites Perplexity's docs, "いいえ。" and a LaTeX answer cite nothing.
  const page = find('perplexity/obsidian-ai-exporter-chat-simple-2026-02');
  const { capture: actual } = capture(page, (window) => {
    const turns = [...window.document.querySelectorAll('[role="tabpanel"][id$="-content-default"]')];
    assert.equal(turns.length, 3);
    place(window, turns.map((t, i) => [t, 300 + 250 * i, 200]));
  });
  assert.match(actual.text, /^はい。\nいいえ。\nいくつか代表的な数式を LaTeX 形式で書きます。/);
  assert.ok(roughSentences(actual.text).length >= 3);
  assert.deepEqual(JSON.parse(JSON.stringify(actual.citations.map((c) => [c.offset, c.url]))), [[3, 'https://docs.perplexity.ai/docs/agent-api/presets']]);
  assert.ok(!actual.text.includes('LaTeX 形式でいくつか数式を表示して'), 'the questions are not answer text');
});

test('turns off screen: the citing turn nearest the screen, not an uncited one on it', () => {
  // ChatGPT, February 2026: the first turns (on screen) cite nothing; the deep-research result below does.
  const page = find('chatgpt/obsidian-ai-exporter-chat-simple-2026-02');
  const { capture: actual } = capture(page, (window) => {
    const turns = [...window.document.querySelectorAll('[data-testid^="conversation-turn-"]')];
    place(window, turns.map((t, i) => [t, 100 + 400 * i, 380]));
  });
  assert.match(actual.text, /^ChatGPTの機能概要\n/);
  assert.ok(actual.citations.length >= 20);
});

/** Puts a caret (a collapsed selection, what a click leaves) at the start of `el`'s text. */
function caretIn(window, el) {
  const walker = window.document.createTreeWalker(el, window.NodeFilter.SHOW_TEXT);
  let text = walker.nextNode();
  while (text && !text.data.trim()) text = walker.nextNode();
  const range = window.document.createRange();
  range.setStart(text, 0);
  window.getSelection().removeAllRanges();
  window.getSelection().addRange(range);
}

test('a click (caret) inside a turn picks that turn, not the latest', () => {
  // Perplexity, January 2026: seven deep-research turns; the first one is clicked.
  const page = find('perplexity/ozand-bookmark-postgresql-deep-research-2026-01');
  const { capture: actual } = capture(page, (window) => caretIn(window, window.document.querySelector('#markdown-content-0 p')));
  assert.match(actual.text, /^Excellent\. Now I have all the research complete/);
  assert.ok(actual.citations.some((c) => c.url.startsWith('https://www.instaclustr.com/')));
  assert.ok(!actual.text.includes('10 steps completed'), "the agent's steps are not answer text");
  assert.ok(!actual.text.includes('Code Interpreter Graph'), 'nor are its chart cards');
  // Google AI Mode, May 2026: the first turn cites nothing; clicked, it is still the one read.
  const mode = find('google-ai-mode/ai-chat-exporter-multiturn-ta-2026-05');
  assert.throws(
    () => capture(mode, (window) => caretIn(window, window.document.querySelector('[data-scope-id="turn"] [data-container-id="main-col"]'))),
    (error) => error.code === 'no_citations',
  );
});

test('Google AI Mode: uuid citation buttons resolve through the page\'s TgQPHd comment map', () => {
  const { capture: actual } = capture(find('google-ai-mode/ai-chat-exporter-multiturn-ta-2026-05'));
  const urls = new Set(actual.citations.map((c) => c.url));
  // One button names four Instagram posts and a WSWS article (docs/engines.md: uuid → sources).
  for (const url of ['https://www.instagram.com/p/DUUipXTCVyC/', 'https://www.wsws.org/ta/articles/2020/12/21/enge-d20.html']) {
    assert.ok(urls.has(url), url);
  }
  assert.ok(!actual.text.includes('6 sites'), 'the source cards beside the answer are not answer text');
});
