// The reader's screen in Firefox ESR (issue 60 item 3), as e2e/screen.test.js measures it in
// Chromium: the same pages, window sizes, stand-in verdicts and layout boxes (helpers/screen.js),
// the toolbar button pressed through Firefox's own action (helpers/firefox.js). A folded AI
// Overview sentence has no badge until the fold opens. Screenshots: test-artifacts/screen-firefox-*.png.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchFirefox, pasteToken } from '../helpers/firefox.js';
import { afterLayout, layoutPasses, waitForResults } from '../helpers/overlay.js';
import { readScreen, screenProblems } from '../helpers/screen.js';
import { answerRegion, badgePlacement, pressUntilOverlay, realPages, scrollToMarked } from '../helpers/real-pages.js';
import { SCREEN_PAGES, SCREENS, foldState, screenVerdict } from '../helpers/screen-pages.js';
import { startSites } from '../helpers/sites.js';
import { sentencesOf, startStubCompanion } from '../helpers/stub-companion.js';

const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url));

let sites;
let stub;
let firefox;

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  sites = await startSites();
  stub = await startStubCompanion({ verdict: screenVerdict });
  firefox = await launchFirefox();
  await (await pasteToken(firefox, stub)).close();
});

after(async () => {
  await firefox?.close();
  await stub?.close();
  await sites?.close();
});

/** Has the overlay lay the page out as it is now and waits for that pass (helpers/overlay.js layoutNow). */
async function layoutNow(page) {
  const passes = await layoutPasses(page);
  await page.evaluate(() => window.dispatchEvent(new Event('resize')));
  return afterLayout(page, passes);
}

for (const { name, fixture, answer, fold } of SCREEN_PAGES) {
  for (const { width, height } of SCREENS) {
    test(`Firefox ${width}×${height}, ${name}: badges beside their words, nothing cut, nothing over the answer or the summary`, async () => {
      const page = await firefox.browser.newPage();
      try {
        await page.setViewport({ width, height });
        await page.goto(`${sites.engines}/${fixture}`);
        const requests = stub.requests.length;
        const clicked = Date.now();
        await firefox.click(page);
        await waitForResults(page, clicked);
        assert.equal(stub.requests.length, requests + 1, 'one request per click');
        const sentences = sentencesOf(stub.requests[stub.requests.length - 1].answer.text).map((s) => s.text);
        await layoutNow(page);
        const label = `firefox ${width}×${height} ${name}`;
        const m = await page.evaluate(readScreen, { answer, sentences });
        await page.screenshot({ path: path.join(ARTIFACTS, `screen-firefox-${name}-${width}.png`) });
        assert.deepEqual(screenProblems(m, sentences), [], label);
        assert.ok(m.badges.filter((b) => !b.hidden).length >= 3, `${label}: badges in view`);
        assert.ok(m.rows.length >= 2, `${label}: ${m.rows.length} attention rows`);
        console.log(`# ${label}: ${m.badges.filter((b) => !b.hidden).length} of ${m.badges.length} badges in view, ${m.rows.length} attention rows; "${m.counts}"`);

        if (fold) {
          const folded = await page.evaluate(foldState, fold);
          assert.ok(folded.hiddenSentences.length >= 2, `${label}: ${JSON.stringify(folded)}`);
          const hidden = m.badges.filter((b) => folded.hiddenSentences.some((s) => sentences[b.index] === s));
          assert.ok(hidden.length >= 2 && hidden.every((b) => b.hidden), `${label}: folded sentences' badges ${JSON.stringify(hidden)}`);
          assert.deepEqual(folded.badgesBesideNext, [], `${label}: badges beside the page's next section`);
          await page.click(fold.open);
          await layoutNow(page);
          const open = await page.evaluate(readScreen, { answer, sentences });
          await page.screenshot({ path: path.join(ARTIFACTS, `screen-firefox-${name}-${width}-unfolded.png`) });
          assert.deepEqual(screenProblems(open, sentences), [], `${label}, unfolded`);
          const shown = open.badges.filter((b) => hidden.some((h) => h.index === b.index));
          assert.ok(shown.every((b) => !b.hidden && b.sentenceLine), `${label}, unfolded: ${JSON.stringify(shown)}`);
        }
      } finally {
        await page.close();
      }
    });
  }
}

// The real saved engine pages at their engine's address, with the stand-in verdicts: placement
// only, as in e2e/screen.test.js.
for (const realPage of realPages()) {
  test(`Firefox, real page ${realPage.id}: every visible badge beside a visible sentence, inside the answer's box`, async () => {
    const html = realPage.html();
    const page = await firefox.browser.newPage();
    try {
      await page.setRequestInterception(true);
      page.on('request', (request) =>
        request.url() === realPage.url ? request.respond({ status: 200, contentType: 'text/html; charset=utf-8', body: html }) : request.abort(),
      );
      const { width, height } = SCREENS[0];
      await page.setViewport({ width, height });
      await page.goto(realPage.url);
      const clicked = await pressUntilOverlay(page, () => firefox.click(page));
      await waitForResults(page, clicked);
      for (const where of [0, 0.5]) {
        assert.ok(await page.evaluate(scrollToMarked, where), 'no sentence marked');
        await layoutNow(page);
        const placed = await page.evaluate(badgePlacement, answerRegion(realPage));
        const label = `${width}×${height}, scrolled to the sentence at ${where}`;
        await page.screenshot({ path: path.join(ARTIFACTS, `screen-firefox-real-${realPage.id.replace(/\//g, '--')}-${width}-${where}.png`) });
        console.log(`# firefox real ${realPage.id} ${label}: ${placed.shown} of ${placed.badges} badges in view`);
        assert.ok(placed.shown >= 1, `${label}: no badge in view`);
        assert.deepEqual(placed.besideNothing, [], `${label}: visible badges beside no visible sentence`);
        assert.deepEqual(placed.outsideBox, [], `${label}: visible badges outside the answer's box`);
        assert.deepEqual(placed.outside, [], `${label}: badges outside the answer`);
      }
    } finally {
      await page.close();
    }
  });
}
