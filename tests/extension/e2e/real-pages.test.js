// Every real saved engine page (../shared/data/ai-pages/) in Debian's Chromium, served at its
// engine's own URL through Playwright's request interception (everything else the page asks for
// is refused, as a page without its scripts and styles), the toolbar action fired as a reader
// would, against the real companion. The cited sites cannot be reached from here, so their
// sentences come back "could not read": what is checked is capture and badge placement —
// at least 3 sentences judged, at least one with its citation, no badge outside the answer
// (helpers/real-pages.js ANSWER_REGIONS), and no visible badge beside no visible sentence or
// outside the answer's box (issue 60). Screenshots go to test-artifacts/.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../helpers/chromium.js';
import { startCompanion } from '../helpers/companion.js';
import { waitForResults } from '../helpers/overlay.js';
import { answerRegion, badgePlacement, pressUntilOverlay, realPages } from '../helpers/real-pages.js';

const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url));
const PAGES = realPages();
const figures = {};

let companion;
let browser;

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  companion = await startCompanion({ allowPrivate: [] });
  browser = await launchChromium();
  await browser.settings({ companion: companion.base, token: companion.token });
});

after(async () => {
  writeFileSync(path.join(ARTIFACTS, 'real-pages-chromium.json'), JSON.stringify(figures, null, 2) + '\n');
  await browser?.close();
  await companion?.stop();
});

for (const realPage of PAGES) {
  test(`${realPage.id}: at ${realPage.url}, ≥ 3 sentences judged, a citation resolved, no badge outside the answer`, async () => {
    const html = realPage.html();
    const page = await browser.context.newPage();
    await page.route('**/*', (route) =>
      route.request().url() === realPage.url
        ? route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html })
        : route.abort(),
    );
    await page.goto(realPage.url);
    const clicked = await pressUntilOverlay(page, () => browser.click(page));
    const { first, last } = await waitForResults(page, clicked, 240_000);
    const placed = await page.evaluate(badgePlacement, answerRegion(realPage));
    figures[realPage.id] = { ...placed, click_to_first_badge_ms: first, click_to_last_badge_ms: last };
    console.log(`# ${realPage.id}: ${placed.badges} sentences judged, ${placed.cited} with citations ${JSON.stringify(placed.kinds)}, ${placed.outside.length} outside the answer; last badge ${last} ms`);
    await page.screenshot({ path: path.join(ARTIFACTS, `real-chromium-${realPage.id.replace(/\//g, '--')}.png`) });

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
