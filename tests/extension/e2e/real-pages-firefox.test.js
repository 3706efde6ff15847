// The real saved engine pages in Firefox ESR (puppeteer-core over WebDriver BiDi), each served at
// its engine's own URL through request interception, the toolbar button pressed through
// Firefox's own action entry point (helpers/firefox.js), against the real companion. The same
// checks as real-pages.test.js: at least 3 sentences judged, one with its citation, no badge
// outside the answer, no visible badge beside no visible sentence or outside the answer's box.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCompanion } from '../helpers/companion.js';
import { launchFirefox } from '../helpers/firefox.js';
import { waitForResults } from '../helpers/overlay.js';
import { answerRegion, badgePlacement, pressUntilOverlay, realPages } from '../helpers/real-pages.js';

const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url));
const PAGES = realPages();
const figures = {};

let companion;
let firefox;

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  companion = await startCompanion({ allowPrivate: [] });
  firefox = await launchFirefox();
  // Pairs as the options page would (firefox.test.js drives that page itself).
  const options = await firefox.openExtensionPage('options/options.html');
  await options.evaluate((values) => (globalThis.browser || globalThis.chrome).storage.local.set(values), {
    companion: companion.base,
    token: companion.token,
  });
  await options.close();
});

after(async () => {
  writeFileSync(path.join(ARTIFACTS, 'real-pages-firefox.json'), JSON.stringify(figures, null, 2) + '\n');
  await firefox?.close();
  await companion?.stop();
});

for (const realPage of PAGES) {
  test(`Firefox: ${realPage.id} at ${realPage.url}, ≥ 3 sentences judged, a citation resolved, no badge outside the answer`, async () => {
    const html = realPage.html();
    const page = await firefox.browser.newPage();
    await page.setRequestInterception(true);
    page.on('request', (request) =>
      request.url() === realPage.url
        ? request.respond({ status: 200, contentType: 'text/html; charset=utf-8', body: html })
        : request.abort(),
    );
    await page.goto(realPage.url);
    const clicked = await pressUntilOverlay(page, () => firefox.click(page));
    const { last } = await waitForResults(page, clicked, 240_000);
    const placed = await page.evaluate(badgePlacement, answerRegion(realPage));
    figures[realPage.id] = { ...placed, click_to_last_badge_ms: last };
    console.log(`# firefox ${realPage.id}: ${placed.badges} sentences judged, ${placed.cited} with citations, ${placed.outside.length} outside the answer; last badge ${last} ms`);
    await page.screenshot({ path: path.join(ARTIFACTS, `real-firefox-${realPage.id.replace(/\//g, '--')}.png`) });

    assert.ok(placed.badges >= 3, `${placed.badges} sentences judged`);
    assert.ok(placed.cited >= 1, 'no sentence kept its citation');
    assert.equal(placed.ranges, placed.badges, 'every badge marks its sentence');
    assert.deepEqual(placed.outside, [], 'badges outside the answer');
    // Issue 60: no visible badge beside no visible sentence, none outside the answer's box.
    assert.deepEqual(placed.besideNothing, [], 'visible badges beside no visible sentence');
    assert.deepEqual(placed.outsideBox, [], "visible badges outside the answer's box");
    await page.close();
  });
}
