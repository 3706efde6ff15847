// Support found in another source of the answer (issue 12) and a sentence its source refutes
// (issue 10), as a reader meets them: the real extension with the real toolbar click, in
// Chromium and Firefox ESR, against the real companion (real model) fetching locally served
// pages. The answer is built so the pipeline cannot miss: its second sentence cites the wrong one
// of two pages (the right one is cited by its last sentence), its third cites nothing though a
// cited page says it, and its fourth cites a page that says plainly the opposite.
// Screenshots and the exported audit go to test-artifacts/.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../helpers/chromium.js';
import { startCompanion } from '../helpers/companion.js';
import { launchFirefox, pasteToken } from '../helpers/firefox.js';
import { BADGE_LABEL, readOverlay, waitForResults } from '../helpers/overlay.js';

const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url));
const PAGES = fileURLToPath(new URL('../../fixtures/pages/', import.meta.url));
const REASON_MESSAGES = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../../extension/_locales/en/messages.json', import.meta.url)), 'utf8'),
);

const WALL = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Can you see the Great Wall from space? | Sky Facts</title></head>
<body><nav><a href="/">Home</a> · <a href="/space">Space</a></nav><article><h1>Can you see the Great Wall from space?</h1>
<p>The Great Wall of China is not visible from the Moon with the naked eye.</p>
<p>The wall is only a few metres wide, far too narrow to be seen from almost 400,000 kilometres away.</p>
<p>Astronauts on the International Space Station have said that the wall is very hard to see even from low orbit.</p>
<p>The idea that it can be seen from the Moon first appeared in print decades before anyone went to space.</p>
</article><footer>© 2025 Sky Facts</footer></body></html>`;

// [sentence, the page its marker points at]; markers are numbered by first appearance, as
// Perplexity numbers them: honey 1, colony 2, wall 3, tomatoes 4.
const ANSWER = [
  ['Honeybees make honey from flower nectar.', 'honey'],
  ['Tomatoes need at least six hours of direct sun a day to ripen well.', 'colony'],
  ['The queen can lay up to 2,000 eggs a day in spring.', null],
  ['The Great Wall of China is visible from the Moon with the naked eye.', 'wall'],
  ['Choose a pot of at least twenty litres for a cherry tomato.', 'tomatoes'],
];
const MARKERS = { honey: 1, colony: 2, wall: 3, tomatoes: 4 };

/** A Perplexity thread page (the markup its adapter reads) citing pages on `sources`. */
function answerPage(sources) {
  const sentences = ANSWER.map(([text, page]) =>
    page ? `${text}<a class="citation" href="${sources}/pages/${page}.html">${MARKERS[page]}</a>` : text,
  ).join(' ');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bees, tomatoes and the Great Wall - Perplexity</title>
<style>body{margin:0;font:16px/1.7 system-ui,sans-serif;background:#fff;color:#111}.max-w-threadContentWidth{max-width:680px;margin:32px 0 0 60px}
.citation{display:inline-block;margin-left:4px;padding:0 6px;border-radius:9px;background:#eee;color:#555;font-size:12px;text-decoration:none}</style></head>
<body><main><div class="max-w-threadContentWidth"><h1>Bees, tomatoes and the Great Wall</h1>
<div id="markdown-content-0" class="prose"><p>${sentences}</p></div></div></main></body></html>`;
}

function listen(handle) {
  const server = createServer((req, res) => {
    const { status, body } = handle(new URL(req.url, 'http://x').pathname);
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(body);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${server.address().port}` })));
}

let sources;
let engine;
let companion;

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  // Two origins: links to the answer page's own host are never sources.
  sources = await listen((pathname) => {
    const name = /^\/pages\/([a-z]+)\.html$/.exec(pathname)?.[1];
    if (name === 'wall') return { status: 200, body: WALL };
    if (name && Object.hasOwn(MARKERS, name)) return { status: 200, body: readFileSync(path.join(PAGES, `${name}.html`), 'utf8') };
    return { status: 404, body: '<h1>Not found</h1>' };
  });
  engine = await listen((pathname) => (pathname === '/answer.html' ? { status: 200, body: answerPage(sources.origin) } : { status: 404, body: 'not found' }));
  companion = await startCompanion({ allowPrivate: [new URL(sources.origin).host] });
});

after(async () => {
  await companion?.stop();
  await Promise.all([sources, engine].filter(Boolean).map(({ server }) => new Promise((r) => server.close(r))));
});

/** Every badge with its note, and the highlight over each sentence, read in the page. */
function readNotes(page) {
  return page.evaluate(() => {
    const root = document.querySelector('citelens-overlay').shadowRoot;
    const texts = {};
    if (globalThis.CSS && CSS.highlights) CSS.highlights.forEach((h, name) => (texts[name] = [...h].map((r) => r.toString().trim())));
    return {
      badges: [...root.querySelectorAll('.badge')].map((b) => ({
        index: Number(b.dataset.index),
        kind: b.dataset.kind,
        label: b.getAttribute('aria-label'),
        note: b.querySelector('.elsewhere')?.textContent ?? null,
        // What the badge shows after its icon: "No citation — found in [2]".
        said: [...b.children].filter((el) => !el.classList.contains('icon')).map((el) => el.textContent).join(' '),
        background: getComputedStyle(b).backgroundColor,
      })),
      highlights: texts,
    };
  });
}

/** What the reader is told about each sentence, checked the same way in both browsers. */
function assertVerdicts(notes, overlay) {
  const byIndex = (i) => notes.badges.find((b) => b.index === i);
  assert.equal(notes.badges.length, ANSWER.length, JSON.stringify(notes.badges));
  for (const badge of overlay.badges) assert.match(badge.label, BADGE_LABEL);

  // The tomato sentence cites the colony page [2]; the tomato page [4] says it.
  const misplaced = byIndex(1);
  assert.notEqual(misplaced.kind, 'complete_support', 'its own verdict stays its citation\'s');
  assert.equal(misplaced.note, 'Not in [2] — found in [4]');
  assert.match(misplaced.said, / Not in \[2\] — found in \[4\]$/);
  assert.match(misplaced.label, /; found in \[4\] — show evidence$/);
  // The queen sentence cites nothing; the colony page [2] says it.
  assert.equal(byIndex(2).kind, 'no_citation');
  assert.equal(byIndex(2).said, 'No citation — found in [2]');
  // The sentences their own pages support carry no note.
  assert.equal(byIndex(0).note, null);
  assert.equal(byIndex(4).note, null);

  // The Great Wall sentence: refuted, said in an icon and a word, in its own colour and highlight.
  const refuted = overlay.badges.find((b) => b.index === 3);
  assert.equal(refuted.kind, 'contradicted');
  assert.equal(refuted.icon, '⚠');
  assert.equal(refuted.word, 'Contradicted');
  assert.equal(refuted.label, 'Sentence 4: contradicted by source 3 — show evidence');
  assert.equal(byIndex(3).note, null, 'a page that refutes a sentence never counts as support found');
  const plain = overlay.badges.find((b) => b.kind === 'no_support');
  if (plain) assert.notEqual(byIndex(3).background, byIndex(plain.index).background);
  assert.deepEqual(notes.highlights['citelens-contradicted'], [ANSWER[3][0]]);
  assert.ok(notes.highlights[`citelens-${refuted.judgment}`].includes(ANSWER[3][0]), 'and its judgment\'s highlight');

  assert.match(overlay.bar, /\d+ not supported, 1 of them contradicted/, overlay.bar);
  assert.ok(overlay.bar.includes('Found in another source: 1 sentence with a misplaced citation, 1 without citation'), overlay.bar);
}

/** The card the badge opens by hover: its notes, boxes, quotes and links. */
function readCard(page) {
  return page.evaluate(() => {
    const card = document.querySelector('citelens-overlay').shadowRoot.querySelector('.card');
    return {
      hidden: card.hidden,
      note: card.querySelector('.note.elsewhere')?.textContent ?? null,
      found: [...card.querySelectorAll('.source.found')].map((box) => ({
        head: box.querySelector('.source-head').textContent,
        quote: box.querySelector('blockquote')?.textContent ?? '',
        href: box.querySelector('a.open')?.getAttribute('href') ?? '',
      })),
      reasonsHead: card.querySelector('.reasons .reasons-head')?.textContent ?? null,
      reasons: [...card.querySelectorAll('.reasons li')].map((li) => li.textContent),
      refuting: [...card.querySelectorAll('.source.refutes')].map((box) => ({
        text: box.textContent,
        quote: box.querySelector('blockquote')?.textContent ?? '',
        href: box.querySelector('a.open')?.getAttribute('href') ?? '',
      })),
    };
  });
}

test('Chromium: "found in" notes, the refuted badge and highlight, the cards, the summary and the audit', async () => {
  const browser = await launchChromium();
  try {
    await browser.settings({ companion: companion.base, token: companion.token });
    const page = await browser.context.newPage();
    await page.goto(`${engine.origin}/answer.html`);
    const clicked = Date.now();
    await browser.click(page);
    const { last } = await waitForResults(page, clicked);
    console.log(`# overlay-elsewhere chromium: click → summary ${last} ms`);
    const overlay = await readOverlay(page);
    assertVerdicts(await readNotes(page), overlay);
    await page.screenshot({ path: path.join(ARTIFACTS, 'chromium-elsewhere-badges.png') });

    // Hover the misplaced sentence's badge: the page it should have cited, quoted, with a link
    // that opens that page at the quote.
    await page.locator('citelens-overlay .badge[data-index="1"]').hover();
    await page.locator('citelens-overlay .card').waitFor({ state: 'visible' });
    let card = await readCard(page);
    assert.equal(card.note, 'Not in [2] — found in [4].');
    assert.equal(card.found.length, 1, JSON.stringify(card.found));
    assert.match(card.found[0].head, /^\[4\]127\.0\.0\.1 — Growing tomatoes on a balcony/);
    assert.match(card.found[0].quote, /six hours of direct sun/);
    assert.ok(card.found[0].href.startsWith(`${sources.origin}/pages/tomatoes.html#:~:text=`), card.found[0].href);
    await page.screenshot({ path: path.join(ARTIFACTS, 'chromium-elsewhere-card.png') });
    await page.keyboard.press('Escape');
    await page.locator('citelens-overlay .card').waitFor({ state: 'hidden' });

    // The open-at-quote link lands on the page with the quote: Chromium scrolls to and marks it.
    const opened = await browser.context.newPage();
    await opened.goto(card.found[0].href);
    assert.ok((await opened.locator('body').innerText()).includes(card.found[0].quote.trim()));
    await opened.close();

    // Hover the refuted sentence's badge: the quote that says otherwise, from its own source.
    await page.locator('citelens-overlay .badge[data-index="3"]').hover();
    await page.locator('citelens-overlay .card').waitFor({ state: 'visible' });
    card = await readCard(page);
    assert.equal(card.refuting.length, 1);
    assert.match(card.refuting[0].text, /says otherwise:/);
    assert.equal(card.refuting[0].quote, 'The Great Wall of China is not visible from the Moon with the naked eye.');
    assert.ok(card.refuting[0].href.startsWith(`${sources.origin}/pages/wall.html#:~:text=`), card.refuting[0].href);
    const evidence = await page.evaluate(() => CSS.highlights.get('citelens-evidence')?.size ?? 0);
    assert.equal(evidence, 2, 'the sentence and the refuting quote are marked as evidence');
    // "Why this verdict" (issue 26): what decided it, in the reader's words, from the
    // statement's reason ids; never an id shown as it is.
    assert.equal(card.reasonsHead, REASON_MESSAGES.card_reasons_heading.message);
    const reasonTexts = Object.entries(REASON_MESSAGES)
      .filter(([key]) => key.startsWith('card_reason_'))
      .map(([, m]) => m.message);
    assert.ok(card.reasons.length >= 1, 'a refuted sentence says why');
    for (const line of card.reasons) assert.ok(reasonTexts.includes(line), line);
    await page.screenshot({ path: path.join(ARTIFACTS, 'chromium-contradicted-card.png') });
    await page.keyboard.press('Escape');

    // A narrower window: a note too wide for the gutter goes beneath the verdict instead of
    // over the answer's words.
    await page.setViewportSize({ width: 980, height: 900 });
    await page.waitForFunction(() => document.querySelector('citelens-overlay').shadowRoot.querySelector('.badge[data-index="1"]').classList.contains('stacked'));
    const fit = await page.evaluate(() => {
      const answer = document.querySelector('#markdown-content-0 p').getBoundingClientRect();
      const root = document.querySelector('citelens-overlay').shadowRoot;
      return [...root.querySelectorAll('.badge')].map((b) => {
        const r = b.getBoundingClientRect();
        return { index: b.dataset.index, clear: r.left >= answer.right && r.right <= innerWidth, height: r.height };
      });
    });
    assert.ok(fit.every((b) => b.clear), JSON.stringify(fit));
    assert.ok(fit[1].height > fit[0].height, 'the stacked badge is taller, not wider');
    await page.screenshot({ path: path.join(ARTIFACTS, 'chromium-elsewhere-narrow.png') });

    // The audit export keeps the support found elsewhere apart from the cards (api.md). At this
    // width the summary folds to its chip (dock.js): unfold it as a reader would.
    const chip = page.locator('citelens-overlay .panel.collapsed .chip');
    if (await chip.count()) await chip.click();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('citelens-overlay .bar button[data-action="export"]').click(),
    ]);
    const audit = JSON.parse(readFileSync(await download.path(), 'utf8'));
    writeFileSync(path.join(ARTIFACTS, 'audit-elsewhere.json'), JSON.stringify(audit, null, 2));
    const elsewhere = audit.elsewhere.map((c) => [c.statement_index, c.cited_url.replace(sources.origin, ''), c.cited_urls.map((u) => u.replace(sources.origin, ''))]);
    assert.deepEqual(elsewhere, [[1, '/pages/tomatoes.html', ['/pages/colony.html']], [2, '/pages/colony.html', []]]);
    assert.ok(audit.cards.every((c) => c.cited_url !== `${sources.origin}/pages/tomatoes.html` || c.statement_index === 4), 'never mixed into cards');
    assert.equal(audit.summary.misplaced_citations, 1);
    assert.equal(audit.summary.uncited_but_supported, 1);
    assert.deepEqual(audit.cards.filter((c) => c.contradicted).map((c) => c.statement_index), [3]);
    await page.close();
  } finally {
    await browser.close();
  }
});

test('Firefox ESR: the same notes, refuted badge and highlight', async () => {
  const firefox = await launchFirefox();
  try {
    await (await pasteToken(firefox, companion)).close();

    const page = await firefox.browser.newPage();
    await page.goto(`${engine.origin}/answer.html`);
    const clicked = Date.now();
    await firefox.click(page);
    const { last } = await waitForResults(page, clicked);
    console.log(`# overlay-elsewhere firefox: click → summary ${last} ms`);
    assertVerdicts(await readNotes(page), await readOverlay(page));
    await page.hover('citelens-overlay >>> .badge[data-index="1"]');
    // Polled: a selector wait watches the document for mutations, not our shadow root.
    await page.waitForFunction(() => !document.querySelector('citelens-overlay').shadowRoot.querySelector('.card').hidden, { polling: 50 });
    const card = await readCard(page);
    assert.match(card.found[0]?.quote ?? '', /six hours of direct sun/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'firefox-elsewhere.png') });
    await page.close();
  } finally {
    await firefox.close();
  }
});
