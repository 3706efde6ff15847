// What the reader sees when something is not right, in real Chromium with the real toolbar
// click: companion not running, not paired, a page without citations, drifted markup, a page
// the browser keeps extensions out of, the second click that clears, and a real companion stopped
// while it checks an answer.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { launchChromium, EXTENSION_ID } from '../helpers/chromium.js';
import { startCompanion } from '../helpers/companion.js';
import { startSites } from '../helpers/sites.js';

let sites;
let browser;
let deadPort;

before(async () => {
  sites = await startSites();
  browser = await launchChromium();
  // A port that was free a moment ago: nothing listens there, as when the companion is not started.
  deadPort = await new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
});

after(async () => {
  await browser?.close();
  await sites?.close();
});

const bar = (page) => page.locator('citelens-overlay .bar');

async function open(name) {
  const page = await browser.context.newPage();
  await page.goto(`${sites.engines}/${name}`);
  return page;
}

test('companion not running: the bar says how to start it', async () => {
  await browser.settings({ companion: `http://127.0.0.1:${deadPort}`, token: 'any' });
  const page = await open('perplexity.html');
  await browser.click(page);
  await assert.doesNotReject(bar(page).getByText('Start it with').waitFor({ timeout: 10_000 }));
  assert.match(await bar(page).innerText(), new RegExp(`not running at http://127\\.0\\.0\\.1:${deadPort}\\. Start it with\\s+citelens serve`));
  assert.equal(await bar(page).getAttribute('role'), 'alert');

  // A second click on the same page clears the overlay.
  await browser.click(page);
  await page.locator('citelens-overlay').waitFor({ state: 'detached', timeout: 5_000 });
  await page.close();
});

test('a second click after the answer changed checks it again instead of clearing', async () => {
  await browser.settings({ companion: `http://127.0.0.1:${deadPort}`, token: 'any' });
  const page = await open('phind.html');
  await browser.click(page);
  await bar(page).getByText('not running').waitFor({ timeout: 10_000 });
  // The engine streams a longer answer into the same page.
  await page.evaluate(() => {
    const p = document.createElement('p');
    p.textContent = 'Reefs also face cyclones and crown-of-thorns starfish.';
    document.querySelector('.answer-body').append(p);
    document.querySelector('.answer-body').replaceWith(document.querySelector('.answer-body').cloneNode(true));
  });
  await browser.click(page);
  await page.waitForTimeout(500);
  await bar(page).getByText('not running').waitFor({ timeout: 10_000 });
  assert.equal(await page.locator('citelens-overlay').count(), 1);
  await page.close();
});

test('not paired: the bar says where the token goes, and its button opens the options', async () => {
  await browser.settings({ companion: `http://127.0.0.1:${deadPort}`, token: '' });
  const page = await open('chatgpt.html');
  await browser.click(page);
  await bar(page).getByText('not paired').waitFor({ timeout: 10_000 });
  assert.match(await bar(page).innerText(), /open CiteLens options and press Pair with the companion \(or paste the token from\s+citelens token\)/);
  const [options] = await Promise.all([
    browser.context.waitForEvent('page'),
    bar(page).getByRole('button', { name: 'Open CiteLens options' }).click(),
  ]);
  assert.equal(options.url(), `chrome-extension://${EXTENSION_ID}/options/options.html`);
  await options.close();
  await page.close();
});

test('an answer without citations says there is nothing to check', async () => {
  const page = await open('no-citations.html');
  await browser.click(page);
  await bar(page).getByText('no citation links').waitFor({ timeout: 10_000 });
  assert.equal(await page.locator('citelens-overlay').getAttribute('data-error'), 'no_citations');
  await page.close();
});

test('drifted markup fails loudly, then works on the selected answer', async () => {
  await browser.settings({ companion: `http://127.0.0.1:${deadPort}`, token: 'any' });
  const page = await open('drift-perplexity.html');
  await browser.click(page);
  await bar(page).getByText('No answer found here — select the answer text and click again.').waitFor({ timeout: 10_000 });

  await page.evaluate(() => {
    const range = document.createRange();
    range.selectNodeContents(document.getElementById('answer-text'));
    getSelection().removeAllRanges();
    getSelection().addRange(range);
  });
  await browser.click(page);
  // The capture succeeded (the generic adapter read the selection); only the companion is missing.
  await bar(page).getByText('not running').waitFor({ timeout: 10_000 });
  await page.close();
});

// Issue 25.2: the stream's `error` line (api.md) from the real `citelens serve`, stopped as a reader
// stops it, reaches the bar in words that say what to do, instead of "the stream ended early".
test('the companion stopped while it checks: the bar says so and how to start it again', async () => {
  const companion = await startCompanion({ allowPrivate: [new URL(sites.sources).host] });
  let stopped = false;
  try {
    await browser.settings({ companion: companion.base, token: companion.token });
    // Every cited page is held back: the check is still waiting for them when the companion stops.
    const page = await open('perplexity.html?sources=held');
    await browser.click(page);
    await bar(page).getByText('Checking').waitFor({ timeout: 30_000 });
    await companion.stop();
    stopped = true;
    await bar(page).getByText('was stopped').waitFor({ timeout: 15_000 });
    assert.match(
      await bar(page).innerText(),
      /The companion was stopped before it finished checking this answer\. Start it again with\s+citelens serve\s*, then click the CiteLens button\./,
    );
    assert.equal(await bar(page).getAttribute('role'), 'alert');
    mkdirSync('test-artifacts', { recursive: true });
    await page.screenshot({ path: 'test-artifacts/chromium-companion-stopped.png' });
    await page.close();
  } finally {
    if (!stopped) await companion.stop();
  }
});

test('a page the browser keeps extensions out of: the toolbar button says so', async () => {
  const page = await browser.context.newPage();
  await page.goto('chrome://version/');
  await browser.click(page);
  const badge = await browser.worker.evaluate(async () => {
    // Without the tabs permission a tab cannot be found by URL; it is the active one.
    const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
    for (let i = 0; i < 50; i++) {
      const text = await chrome.action.getBadgeText({ tabId: tab.id });
      if (text) return { text, title: await chrome.action.getTitle({ tabId: tab.id }) };
      await new Promise((r) => setTimeout(r, 100));
    }
    return null;
  });
  assert.equal(badge?.text, '!');
  assert.match(badge.title, /^CiteLens cannot read this page/);
  await page.close();
});

test('options: a wrong address and a stopped companion each get a clear answer', async () => {
  const page = await browser.context.newPage();
  await page.goto(`chrome-extension://${EXTENSION_ID}/options/options.html`);
  await page.fill('#companion', 'https://example.com');
  await page.click('#test');
  await page.locator('#result.error').getByText('use http://127.0.0.1:PORT').waitFor();

  await page.fill('#companion', `http://127.0.0.1:${deadPort}`);
  await page.fill('#token', 'abc');
  await page.click('#test');
  await page.locator('#result.error').getByText('not running').waitFor();
  const saved = await browser.worker.evaluate(() => chrome.storage.local.get(null));
  assert.deepEqual(saved, { companion: `http://127.0.0.1:${deadPort}`, token: 'abc' });
  await page.close();
});
