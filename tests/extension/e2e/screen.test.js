// The reader's screen (issue 60 items 1 to 3), in real Chromium with the real extension and the
// real toolbar click: at 1280×800 and 1920×1080, on a dark page (Perplexity's markup) and on
// Google's AI Overview with its "Show more" fold in its light and its dark theme. Compared as
// layout boxes (helpers/screen.js), not pixels: every visible badge inside the window, beside its
// own sentence's last line and over no word of the answer; no cut word in a badge or an attention
// row, each row showing its whole sentence; the summary and every card over none of the answer's
// words, and no card over the summary; the counts adding up. A folded sentence has no badge until
// the fold opens, and then has one beside it, never beside the page's next section. The verdicts
// come from a stand-in companion (helpers/stub-companion.js), every kind of them, the same every
// run: geometry does not depend on the model. Screenshots go to test-artifacts/screen-*.png.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../helpers/chromium.js';
import { answerRegion, badgePlacement, pressUntilOverlay, realPages, scrollToMarked } from '../helpers/real-pages.js';
import { layoutNow, waitForResults } from '../helpers/overlay.js';
import { openCard, readScreen, screenProblems } from '../helpers/screen.js';
import { startSites } from '../helpers/sites.js';
import { SCREEN_PAGES, SCREENS, foldState, screenVerdict } from '../helpers/screen-pages.js';
import { sentencesOf, startStubCompanion } from '../helpers/stub-companion.js';

const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url));

let sites;
let stub;
let browser;

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  sites = await startSites();
  stub = await startStubCompanion({ verdict: screenVerdict });
  browser = await launchChromium();
  await browser.settings({ companion: stub.base, token: stub.token });
});

after(async () => {
  await browser?.close();
  await stub?.close();
  await sites?.close();
});

/** Clicks CiteLens on the page and waits for the summary; the sentences the companion judged. */
async function check(page) {
  const requests = stub.requests.length;
  const clicked = Date.now();
  await browser.click(page);
  await waitForResults(page, clicked);
  assert.equal(stub.requests.length, requests + 1, 'one request per click');
  return sentencesOf(stub.requests[stub.requests.length - 1].answer.text).map((s) => s.text);
}

for (const { name, fixture, answer, fold } of SCREEN_PAGES) {
  for (const { width, height } of SCREENS) {
    test(`Chromium ${width}×${height}, ${name}: badges beside their words, nothing cut, nothing over the answer or the summary`, async () => {
      const page = await browser.context.newPage();
      try {
        await page.setViewportSize({ width, height });
        await page.goto(`${sites.engines}/${fixture}`);
        const sentences = await check(page);
        await layoutNow(page);
        const label = `chromium ${width}×${height} ${name}`;
        const m = await page.evaluate(readScreen, { answer, sentences });
        await page.screenshot({ path: path.join(ARTIFACTS, `screen-chromium-${name}-${width}.png`) });
        await page.evaluate(openCard, m.badges.find((b) => !b.hidden && b.kind === 'likely_support')?.index ?? 0);
        await page.screenshot({ path: path.join(ARTIFACTS, `screen-chromium-${name}-${width}-card.png`) });
        await page.keyboard.press('Escape');
        assert.deepEqual(screenProblems(m, sentences), [], label);
        assert.ok(m.badges.filter((b) => !b.hidden).length >= 3, `${label}: ${m.badges.filter((b) => !b.hidden).length} badges in view`);
        assert.ok(m.rows.length >= 2, `${label}: ${m.rows.length} attention rows`);
        console.log(`# ${label}: ${m.badges.filter((b) => !b.hidden).length} of ${m.badges.length} badges in view, ${m.rows.length} attention rows, ${m.cards.length} cards; "${m.counts}"`);

        if (fold) {
          // Folded: the sentences past the fold have no badge, and no badge is beside the page's
          // next section. Opened by the reader: they have one, beside their words.
          const folded = await page.evaluate(foldState, fold);
          assert.ok(folded.hiddenSentences.length >= 2, `${label}: sentences hidden by the fold ${JSON.stringify(folded)}`);
          const hidden = m.badges.filter((b) => folded.hiddenSentences.some((s) => sentences[b.index] === s));
          assert.ok(hidden.length >= 2 && hidden.every((b) => b.hidden), `${label}: folded sentences' badges ${JSON.stringify(hidden)}`);
          assert.deepEqual(folded.badgesBesideNext, [], `${label}: badges beside the page's next section`);
          await page.click(fold.open);
          await layoutNow(page);
          const open = await page.evaluate(readScreen, { answer, sentences });
          await page.screenshot({ path: path.join(ARTIFACTS, `screen-chromium-${name}-${width}-unfolded.png`) });
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

test('Chromium: the same folded AI Overview page gives the same badges every time (the capture waits for the page to settle)', async () => {
  const fixture = SCREEN_PAGES.find((p) => p.fold).fixture;
  const runs = [];
  for (let run = 0; run < 3; run++) {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    // The overview fills in late, as Google's scripts do after the page loads: a capture taken
    // on a fixed clock got more or fewer sentences depending on when it came.
    await page.goto(`${sites.engines}/${fixture}?late=150`);
    await check(page);
    const request = stub.requests[stub.requests.length - 1];
    runs.push({ text: request.answer.text, citations: request.citations.map((c) => `${c.offset} ${c.url}`) });
    await page.close();
  }
  assert.ok(runs[0].text.includes('It became a World Heritage Area in 1981.'), runs[0].text);
  for (const other of runs.slice(1)) assert.deepEqual(other, runs[0]);
});

// The real saved engine pages (../shared/data/ai-pages/), served at their engine's address, with
// the stand-in verdicts: placement only (issue 60 measured 5 badges in the gutter under a table of
// a Perplexity deep-research answer). Every visible badge beside a visible line of the answer and
// inside its box, at both window sizes.
for (const realPage of realPages()) {
  test(`Chromium, real page ${realPage.id}: every visible badge beside a visible sentence, inside the answer's box`, async () => {
    const html = realPage.html();
    const page = await browser.context.newPage();
    try {
      await page.route('**/*', (route) =>
        route.request().url() === realPage.url ? route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html }) : route.abort(),
      );
      for (const { width, height } of SCREENS) {
        await page.setViewportSize({ width, height });
        await page.goto(realPage.url);
        const clicked = await pressUntilOverlay(page, () => browser.click(page));
        await waitForResults(page, clicked);
        // At the answer's first sentence and at its middle one (deep-research tables lie there).
        for (const where of [0, 0.5]) {
          assert.ok(await page.evaluate(scrollToMarked, where), 'no sentence marked');
          await layoutNow(page);
          const placed = await page.evaluate(badgePlacement, answerRegion(realPage));
          const label = `${width}×${height}, scrolled to the sentence at ${where}`;
          await page.screenshot({ path: path.join(ARTIFACTS, `screen-chromium-real-${realPage.id.replace(/\//g, '--')}-${width}-${where}.png`) });
          console.log(`# chromium real ${realPage.id} ${label}: ${placed.shown} of ${placed.badges} badges in view`);
          assert.ok(placed.shown >= 1, `${label}: no badge in view`);
          assert.deepEqual(placed.besideNothing, [], `${label}: visible badges beside no visible sentence`);
          assert.deepEqual(placed.outsideBox, [], `${label}: visible badges outside the answer's box`);
          assert.deepEqual(placed.outside, [], `${label}: badges outside the answer`);
        }
      }
    } finally {
      await page.close();
    }
  });
}
