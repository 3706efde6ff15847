// One-click pairing in real Chromium (and Firefox ESR) with the real companion (`citelens serve`)
// and the real `citelens pair` command: the options page's button, the same code in the page and
// in the companion's terminal, the reader's confirmation, the token in storage.local; and a web
// page that tries to start a pairing gets nowhere.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { launchChromium, EXTENSION_ID } from '../helpers/chromium.js';
import { citelensCommand, startCompanion } from '../helpers/companion.js';
import { launchFirefox } from '../helpers/firefox.js';
import { startSites } from '../helpers/sites.js';

const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url));
const OPTIONS = `chrome-extension://${EXTENSION_ID}/options/options.html`;

let companion;
let browser;
let sites;
let xdg;

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  companion = await startCompanion({ allowPrivate: [] });
  sites = await startSites();
  browser = await launchChromium();
  // The reader's terminal: `citelens pair` finds the token file of the running companion here.
  xdg = mkdtempSync(path.join(tmpdir(), 'citelens-pair-'));
  mkdirSync(path.join(xdg, 'citelens'), { mode: 0o700 });
  writeFileSync(path.join(xdg, 'citelens', 'token'), `${companion.token}\n`, { mode: 0o600 });
});

after(async () => {
  await browser?.close();
  await sites?.close();
  await companion?.stop();
  if (xdg) rmSync(xdg, { recursive: true, force: true });
});

/** `citelens pair ...` as the reader types it in another terminal. */
async function citelensPair(...args) {
  const port = new URL(companion.base).port;
  try {
    const { stdout } = await promisify(execFile)(citelensCommand(), ['pair', ...args, '--port', port], {
      env: { ...process.env, XDG_CONFIG_HOME: xdg },
      timeout: 60_000,
    });
    return { code: 0, stdout };
  } catch (error) {
    return { code: error.code, stdout: error.stdout, stderr: error.stderr };
  }
}

/** What is waiting at the companion, asked as the terminal asks (token, no Origin). */
async function pending() {
  const response = await fetch(`${companion.base}/v1/pair`, { headers: { 'X-CiteLens-Token': companion.token } });
  assert.equal(response.status, 200);
  return (await response.json()).pending;
}

test('Pair with the companion: the same code in the page and the terminal, confirmed, token saved', async () => {
  await browser.settings({ companion: companion.base, token: '' });
  const page = await browser.context.newPage();
  await page.goto(OPTIONS);
  await page.getByRole('button', { name: 'Pair with the companion' }).click();
  const shown = page.locator('#pair-code');
  await shown.waitFor({ state: 'visible', timeout: 15_000 });
  const digits = (await shown.innerText()).replace(/\s+/g, '');
  assert.match(digits, /^\d{4}$/);
  const status = page.locator('#pair-status');
  assert.equal(await status.getAttribute('data-state'), 'waiting');
  assert.match(await status.innerText(), new RegExp(`run\\s+citelens pair ${digits}`));
  assert.equal(await page.locator('#pair').isDisabled(), true);
  await page.screenshot({ path: path.join(ARTIFACTS, 'chromium-pairing-code.png') });

  // The companion's terminal names this extension's origin and shows the same code.
  const terminal = companion.log();
  assert.ok(
    terminal.includes(`Pairing request from chrome-extension://${EXTENSION_ID}: code ${digits.split('').join('-')}`),
    terminal.slice(-600),
  );
  // Nothing is stored before the reader confirms.
  assert.equal(await browser.worker.evaluate(() => chrome.storage.local.get('token').then((s) => s.token)), '');

  const confirmed = await citelensPair(digits);
  assert.equal(confirmed.code, 0, confirmed.stderr);
  assert.match(confirmed.stdout, /Paired: the extension \(chrome-extension:\/\/fklgpffhkpenbggfhkflghdlonombjol\)/);

  await page.locator('#pair-status[data-state="paired"]').waitFor({ timeout: 15_000 });
  assert.match(await status.innerText(), /^Paired with CiteLens companion \S+ \(.+\); the token is saved\.$/);
  const stored = await browser.worker.evaluate(() => chrome.storage.local.get(['token', 'companion']));
  assert.deepEqual(stored, { token: companion.token, companion: companion.base });
  assert.equal(await page.locator('#token').inputValue(), companion.token);
  assert.equal(await pending(), null, 'the request is used up');
  await page.screenshot({ path: path.join(ARTIFACTS, 'chromium-pairing-paired.png') });
  await page.close();
});

test('a wrong code in the terminal leaves the extension unpaired, and it says why', async () => {
  await browser.settings({ companion: companion.base, token: '' });
  const page = await browser.context.newPage();
  await page.goto(OPTIONS);
  await page.getByRole('button', { name: 'Pair with the companion' }).click();
  await page.locator('#pair-code').waitFor({ state: 'visible', timeout: 15_000 });
  const digits = (await page.locator('#pair-code').innerText()).replace(/\s+/g, '');
  const wrong = String((Number(digits) + 1) % 10_000).padStart(4, '0');
  for (let i = 0; i < 3; i++) assert.equal((await citelensPair(wrong)).code, 1);
  await page.locator('#pair-status[data-state="error"]').waitFor({ timeout: 15_000 });
  assert.match(await page.locator('#pair-status').innerText(), /ended before it was confirmed/);
  assert.equal(await browser.worker.evaluate(() => chrome.storage.local.get('token').then((s) => s.token)), '');
  await page.close();
});

test('a web page cannot start a pairing, by any kind of request', async () => {
  const page = await browser.context.newPage();
  await page.goto(`${sites.engines}/perplexity.html`);
  const tried = await page.evaluate(async (base) => {
    const out = [];
    const attempts = [
      // The CSRF shape: the request arrives, the answer cannot be read.
      { mode: 'no-cors', method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: '{}' },
      // A CORS request with JSON needs a preflight, which the companion never grants.
      { mode: 'cors', method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' },
    ];
    for (const init of attempts) {
      try {
        const response = await fetch(`${base}/v1/pair/start`, init);
        out.push(`${init.mode}: ${response.type} ${response.status}`);
      } catch (error) {
        out.push(`${init.mode}: ${error.name}`);
      }
    }
    return out;
  }, companion.base);
  assert.deepEqual(tried, ['no-cors: opaque 0', 'cors: TypeError']);
  assert.equal(await pending(), null);
  assert.ok(!/Pairing request from http/.test(companion.log()), 'the terminal never showed a page');
  await page.close();
});

test('Firefox ESR pairs the same way: its moz-extension origin starts, and collects the token', async () => {
  await browser?.close();
  browser = null;
  const firefox = await launchFirefox();
  try {
    const options = await firefox.openExtensionPage('options/options.html');
    await options.waitForSelector('#companion');
    await options.evaluate(() => (document.getElementById('companion').value = ''));
    await options.type('#companion', companion.base);
    await options.click('#pair');
    await options.waitForSelector('#pair-code:not([hidden])', { timeout: 15_000 });
    const digits = (await options.$eval('#pair-code', (el) => el.textContent)).replace(/\s+/g, '');
    assert.match(digits, /^\d{4}$/);
    assert.ok(
      companion.log().includes(`Pairing request from moz-extension://${firefox.uuid}: code ${digits.split('').join('-')}`),
      companion.log().slice(-600),
    );
    assert.equal((await citelensPair(digits)).code, 0);
    await options.waitForSelector('#pair-status[data-state="paired"]', { timeout: 15_000 });
    assert.match(await options.$eval('#pair-status', (el) => el.textContent), /^Paired with CiteLens companion/);
    assert.equal(await options.$eval('#token', (el) => el.value), companion.token);
    assert.equal(await pending(), null);
  } finally {
    await firefox.close();
  }
});
