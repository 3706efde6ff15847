// Read through my browser (issue 11, part 3), as a reader meets it: the real extension with the
// real toolbar click, in Chromium and Firefox ESR, against the real companion (real model). The
// cited site answers 403 to the companion's User-Agent and serves the article to the browser; the
// overlay offers one button, the permit page asks for the host permission, the browser reads the
// page, and the sentence it supports turns fully supported, marked as read through the browser.
//
// The site is http://localhost:PORT, a host the manifest does not grant (its 127.0.0.1 grant is the
// companion's), so the optional host permission is really requested:
// - Firefox: `extensions.webextOptionalPermissionPrompts` false, so the real permissions.request
//   grants without the native prompt.
// - Chromium: its prompt is a native dialog no test driver can press, so this test loads a copy of
//   the extension whose manifest already lists http://localhost/* in host_permissions
//   (helpers/chromium.js grantHosts); permissions.request then resolves true without a prompt.
//   That grant is the one thing this test does not do as a reader would.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../helpers/chromium.js';
import { startCompanion } from '../helpers/companion.js';
import { launchFirefox, pasteToken } from '../helpers/firefox.js';
import { readOverlay, waitForResults } from '../helpers/overlay.js';

const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url));
const PAGES = fileURLToPath(new URL('../../fixtures/pages/', import.meta.url));

// [sentence, page its marker points at]: honey turns the companion away, tomatoes does not, gone is a 404.
const ANSWER = [
  ['Honeybees make honey from flower nectar.', 'honey'],
  ['Choose a pot of at least twenty litres for a cherry tomato.', 'tomatoes'],
  ['Bees see ultraviolet light.', 'gone'],
];
const MARKERS = { honey: 1, tomatoes: 2, gone: 3 };

function answerPage(sources) {
  const sentences = ANSWER.map(([text, page]) => `${text}<a class="citation" href="${sources}/pages/${page}.html">${MARKERS[page]}</a>`).join(' ');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bees and tomatoes - Perplexity</title>
<style>body{margin:0;font:16px/1.7 system-ui,sans-serif}.max-w-threadContentWidth{max-width:680px;margin:32px 0 0 60px}
.citation{display:inline-block;margin-left:4px;padding:0 6px;border-radius:9px;background:#eee;color:#555;font-size:12px;text-decoration:none}</style></head>
<body><main><div class="max-w-threadContentWidth"><h1>Bees and tomatoes</h1>
<div id="markdown-content-0" class="prose"><p>${sentences}</p></div></div></main></body></html>`;
}

function listen(handle) {
  const server = createServer((req, res) => {
    const { status, body } = handle(new URL(req.url, 'http://x').pathname, req.headers['user-agent'] || '');
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(body);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: server.address().port })));
}

let site;
let engine;
let companion;
let sources;
const hits = { companion: 0, browser: 0 };

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  site = await listen((pathname, agent) => {
    const name = /^\/pages\/([a-z]+)\.html$/.exec(pathname)?.[1];
    if (name !== 'honey' && name !== 'tomatoes') return { status: 404, body: '<h1>Not found</h1>' };
    // companion/sources/fetch.py's honest User-Agent: "CiteLens/<version> (citation checker; …)".
    if (name === 'honey') {
      if (agent.includes('CiteLens/')) {
        hits.companion++;
        return { status: 403, body: '<html><head><title>403 Forbidden</title></head><body><h1>Forbidden</h1></body></html>' };
      }
      hits.browser++;
    }
    return { status: 200, body: readFileSync(path.join(PAGES, `${name}.html`), 'utf8') };
  });
  sources = `http://localhost:${site.port}`;
  engine = await listen((pathname) => (pathname === '/answer.html' ? { status: 200, body: answerPage(sources) } : { status: 404, body: 'not found' }));
  // The test switch, in the companion only: it may fetch the site, and tells the extension so.
  companion = await startCompanion({ allowPrivate: [`localhost:${site.port}`] });
});

after(async () => {
  await companion?.stop();
  await Promise.all([site, engine].filter(Boolean).map(({ server }) => new Promise((r) => server.close(r))));
});

/** The overlay's parts this feature changes, read in the page. */
function readState(page) {
  return page.evaluate(() => {
    const root = document.querySelector('citelens-overlay')?.shadowRoot;
    if (!root) return null;
    const button = root.querySelector('.bar button[data-action="read-in-browser"]');
    return {
      kinds: [...root.querySelectorAll('.badge')].map((b) => b.dataset.kind),
      button: button ? { text: button.textContent, disabled: button.disabled } : null,
      note: root.querySelector('.bar .browser-note')?.textContent ?? '',
      status: root.querySelector('.bar .status')?.textContent ?? '',
      viaBrowser: root.querySelector('.bar .via-browser')?.textContent ?? '',
      done: !!root.querySelector('.bar button[data-action="export"]'),
    };
  });
}

async function waitFor(page, check, what, timeout = 120_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const state = await readState(page);
    if (state && check(state)) return state;
    if (Date.now() > deadline) throw new Error(`${what}: not reached in ${timeout} ms; last ${JSON.stringify(state)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Before: the refused page is inaccessible, the 404 too, the page the companion read is judged
 * supported (complete, sure or likely: issue 58, or partial), and one button offers the browser.
 */
async function assertBefore(page) {
  const state = await readState(page);
  assert.equal(state.kinds[0], 'inaccessible', JSON.stringify(state));
  assert.equal(state.kinds[2], 'inaccessible');
  assert.ok(['complete_support', 'likely_support', 'partial_support'].includes(state.kinds[1]), state.kinds[1]);
  assert.deepEqual(state.button, { text: 'Read through my browser', disabled: false });
  assert.equal(state.note, `localhost:${site.port} turned the companion away; your browser may be let in.`);
  assert.equal(await page.evaluate(() => document.querySelector('citelens-overlay').shadowRoot.querySelectorAll('[data-action="read-in-browser"]').length), 1);
}

/**
 * After: re-judged in place as complete support (shown green, or "likely" where the model reads it
 * with low confidence: issue 58), marked as read through the browser, the 404 left as it was.
 */
async function assertAfter(page) {
  const state = await waitFor(page, (s) => s.done && s.kinds[0] !== 'inaccessible', 'the re-check');
  assert.ok(['complete_support', 'likely_support'].includes(state.kinds[0]), JSON.stringify(state));
  assert.equal(state.kinds[2], 'inaccessible');
  assert.equal(state.button, null, 'nothing left for the browser to read');
  assert.equal(state.viaBrowser, '1 source read through your browser');
  const overlay = await readOverlay(page);
  assert.equal(overlay.badges.length, ANSWER.length);
  assert.equal(overlay.badges[0].judgment, 'complete_support');
  const verdict = overlay.badges[0].kind === 'likely_support' ? 'likely supported by source 1: check the quote' : 'fully supported by source 1';
  assert.equal(overlay.badges[0].label, `Sentence 1: ${verdict} — show evidence`);
}

/** The card of the first sentence says where its source was read. */
async function readCardVia(page) {
  await page.evaluate(() => document.querySelector('citelens-overlay').shadowRoot.querySelector('.badge[data-index="0"]').focus());
  return page.evaluate(() => {
    const card = document.querySelector('citelens-overlay').shadowRoot.querySelector('.card');
    return { hidden: card.hidden, via: [...card.querySelectorAll('.source.via-browser .via')].map((el) => el.textContent), quote: card.querySelector('blockquote')?.textContent ?? '' };
  });
}

test('Chromium: the button, the permit page (refused, then allowed), badges re-judged, the audit says via browser', async () => {
  const browser = await launchChromium({ grantHosts: ['http://localhost/*'] });
  try {
    await browser.settings({ companion: companion.base, token: companion.token });
    const page = await browser.context.newPage();
    await page.goto(`http://127.0.0.1:${engine.port}/answer.html`);
    await browser.click(page);
    await waitForResults(page, Date.now());
    await assertBefore(page);
    assert.ok(hits.companion >= 1 && hits.browser === 0, JSON.stringify(hits));
    await page.screenshot({ path: path.join(ARTIFACTS, 'chromium-browser-read-before.png') });

    // First the reader says no: the overlay says so, in words they can act on.
    let [permit] = await Promise.all([
      browser.context.waitForEvent('page'),
      page.locator('citelens-overlay .bar button[data-action="read-in-browser"]').click(),
    ]);
    await permit.waitForLoadState();
    assert.match(permit.url(), /^chrome-extension:\/\/[a-p]{32}\/permit\/permit\.html\?id=/);
    await permit.locator('#hosts li').first().waitFor();
    assert.deepEqual(await permit.locator('#hosts li').allTextContents(), ['http://localhost']);
    // The background closes the permit page once it has the answer, sometimes before the
    // driver's click returns: the page's closing is what proves the click, not the click's return.
    await Promise.all([permit.waitForEvent('close'), permit.getByRole('button', { name: 'Cancel' }).click().catch(() => {})]);
    const refused = await waitFor(page, (s) => s.status.startsWith('CiteLens was not allowed'), 'the refusal');
    assert.equal(refused.status, `CiteLens was not allowed to read localhost:${site.port} through your browser, so those sources stay unread. To read them, press Read through my browser again and choose Allow and read, then allow it when your browser asks.`);
    assert.deepEqual(refused.button, { text: 'Read through my browser', disabled: false });
    assert.equal(hits.browser, 0, 'nothing read without the permission');

    // Then from the keyboard: focus the button, Enter; allow on the permit page.
    await page.evaluate(() => document.querySelector('citelens-overlay').shadowRoot.querySelector('[data-action="read-in-browser"]').focus());
    [permit] = await Promise.all([browser.context.waitForEvent('page'), page.keyboard.press('Enter')]);
    await permit.locator('#hosts li').first().waitFor();
    await permit.screenshot({ path: path.join(ARTIFACTS, 'chromium-browser-read-permit.png') });
    await Promise.all([permit.waitForEvent('close'), permit.getByRole('button', { name: 'Allow and read' }).click().catch(() => {})]);
    await assertAfter(page);
    assert.ok(hits.browser >= 1, 'the browser read the page');
    assert.ok(await browser.worker.evaluate(() => chrome.permissions.contains({ origins: ['http://localhost/*'] })));

    const card = await readCardVia(page);
    assert.equal(card.hidden, false);
    assert.deepEqual(card.via, ['Read through your browser']);
    assert.match(card.quote, /Honeybees make honey from flower nectar/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'chromium-browser-read-after.png') });
    await page.keyboard.press('Escape');

    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('citelens-overlay .bar button[data-action="export"]').click()]);
    const audit = JSON.parse(readFileSync(await download.path(), 'utf8'));
    writeFileSync(path.join(ARTIFACTS, 'audit-browser-read.json'), JSON.stringify(audit, null, 2));
    const honey = `${sources}/pages/honey.html`;
    assert.deepEqual(
      audit.sources.map((s) => [s.url.replace(sources, ''), s.status, s.via, s.browser_may_read]).sort(),
      [['/pages/gone.html', 'inaccessible', 'companion', false], ['/pages/honey.html', 'ok', 'browser', false], ['/pages/tomatoes.html', 'ok', 'companion', false]],
    );
    assert.equal(audit.provenance.verdicts, 'companion', 'the re-check after reading in the browser is held too');
    const cardOf = audit.cards.find((c) => c.cited_url === honey);
    assert.deepEqual([cardOf.via, cardOf.support_judgment], ['browser', 'complete_support']);
    assert.equal(audit.cards.find((c) => c.cited_url.endsWith('/tomatoes.html')).via, 'companion');
    await page.close();
  } finally {
    await browser.close();
  }
});

test('Firefox ESR: the real optional-permission request, badges re-judged in place', async () => {
  const firefox = await launchFirefox({ prefs: { 'extensions.webextOptionalPermissionPrompts': false } });
  try {
    await (await pasteToken(firefox, companion)).close();
    const page = await firefox.browser.newPage();
    await page.goto(`http://127.0.0.1:${engine.port}/answer.html`);
    await firefox.click(page);
    await waitForResults(page, Date.now());
    await assertBefore(page);

    const before = new Set(await firefox.browser.pages());
    await page.click('citelens-overlay >>> .bar button[data-action="read-in-browser"]');
    const permitUrl = `moz-extension://${firefox.uuid}/permit/permit.html?id=`;
    let permit = null;
    for (const deadline = Date.now() + 15_000; !permit && Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
      for (const p of await firefox.browser.pages()) {
        if (before.has(p)) continue;
        const href = await p.evaluate(() => location.href).catch(() => '');
        if (href.startsWith(permitUrl) && (await p.evaluate(() => document.querySelectorAll('#hosts li').length).catch(() => 0))) permit = p;
      }
    }
    assert.ok(permit, 'the permit page opened');
    assert.deepEqual(await permit.$$eval('#hosts li', (lis) => lis.map((li) => li.textContent)), ['http://localhost']);
    await permit.click('#allow');
    await assertAfter(page);
    const card = await readCardVia(page);
    assert.deepEqual(card.via, ['Read through your browser']);
    await page.screenshot({ path: path.join(ARTIFACTS, 'firefox-browser-read-after.png') });
    await page.close();
  } finally {
    await firefox.close();
  }
});
