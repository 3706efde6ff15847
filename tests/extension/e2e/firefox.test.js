// Firefox ESR over WebDriver BiDi (puppeteer-core): the same unpacked folder installs, pairs in
// its options page, and one engine's capture and overlay work against the real companion.
// The toolbar button is pressed through Firefox's own action entry point (helpers/firefox.js
// says why BiDi alone cannot).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCompanion } from '../helpers/companion.js';
import { launchFirefox, pasteToken } from '../helpers/firefox.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { startSites } from '../helpers/sites.js';
import { BADGE_LABEL, agreementOf, compareVerdicts, readCard, readOverlay, verdictsByText, waitForResults } from '../helpers/overlay.js';

const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url));
const { fixture, expect } = JSON.parse(readFileSync(path.join(FIXTURES, 'e2e-expectations.json'), 'utf8')).perplexity;
// How many of the page's judged sentences must get the verdict the fixture was written for: a
// guard against regressions, not a measure of the model (research/evaluation/evaluate.py). Measured with the
// companion of issue 36 item 1, 2026-12-03: 5 of 6, as in Chromium ("The Eiffel Tower is made of
// steel." is partial, not contradicted; before item 1 all 6 agreed). The floor is that less 1
// sentence, 4 of 6: less 2 would let half the page go. With companion 0.16.0 (issue 58: a "likely
// supported" badge agrees with a sentence written to be complete), 2026-12-06: 6 of 6. A sentence written to be contradicted is
// never shown as supported, fully or likely, with no tolerance (issue 36 item 5).
const JUDGED = 6;
const AGREEMENT_FLOOR = 4;
const MYTH = 'The Eiffel Tower is made of steel.';

let sites;
let companion;
let firefox;

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  sites = await startSites();
  companion = await startCompanion({ allowPrivate: [new URL(sites.sources).host] });
  firefox = await launchFirefox();
});

after(async () => {
  await firefox?.close();
  await companion?.stop();
  await sites?.close();
});

test('the extension installs in Firefox ESR and pairs in its options page', async () => {
  assert.equal(firefox.id, 'citelens@citelens.dev');
  const options = await pasteToken(firefox, companion);
  assert.match(await options.$eval('#result', (el) => el.textContent), /^Connected: CiteLens companion/);
  await options.close();
});

test('Perplexity in Firefox: capture, streamed badges, highlights and the evidence card', async () => {
  const page = await firefox.browser.newPage();
  await page.goto(`${sites.engines}/${fixture}`);
  const clicked = Date.now();
  await firefox.click(page);
  const { first, last } = await waitForResults(page, clicked);
  console.log(`# firefox perplexity: click → first badge ${first} ms, → last badge ${last} ms`);
  writeFileSync(path.join(ARTIFACTS, 'timings-firefox.json'), JSON.stringify({ perplexity: { click_to_first_badge_ms: first, click_to_last_badge_ms: last } }, null, 2) + '\n');

  const overlay = await readOverlay(page);
  assert.ok(overlay.badges.length >= Object.keys(expect).length);
  for (const badge of overlay.badges) assert.match(badge.label, BADGE_LABEL);
  const verdicts = compareVerdicts(await verdictsByText(page), expect);
  console.log(`# firefox perplexity: model verdicts agree with the intended ones on ${verdicts.agreed} of ${verdicts.judged} sentences`);
  const { disagreements, greenContradicted } = agreementOf({ perplexity: verdicts });
  assert.deepEqual(greenContradicted, [], 'written to be contradicted, shown as supported (fully or likely)');
  assert.equal(verdicts.judged, JUDGED, 'the fixture changed: measure the agreement again and restate AGREEMENT_FLOOR');
  assert.ok(
    verdicts.agreed >= AGREEMENT_FLOOR,
    `${verdicts.agreed} of ${verdicts.judged} sentences agree (floor ${AGREEMENT_FLOOR}); the others:\n${disagreements.join('\n')}`,
  );
  // Every complete judgment (sure and likely) under citelens-complete_support; the likely ones
  // (read with low confidence, issue 58) drawn over it as citelens-likely_support too.
  const complete = overlay.badges.filter((b) => b.judgment === 'complete_support').length;
  const likely = overlay.badges.filter((b) => b.kind === 'likely_support').length;
  assert.equal(overlay.highlights['citelens-complete_support'] || 0, complete, 'CSS Custom Highlights in Firefox');
  assert.equal(overlay.highlights['citelens-likely_support'] || 0, likely, 'citelens-likely_support in Firefox');
  assert.ok(Object.keys(overlay.highlights).length >= 3, JSON.stringify(overlay.highlights));
  assert.match(overlay.bar, /Citation recall \d+% · precision \d+%/);

  const supported =
    overlay.badges.find((b) => b.kind === 'complete_support') || overlay.badges.find((b) => b.kind === 'partial_support');
  assert.ok(supported, 'at least one sentence the model finds supported');
  await page.hover(`citelens-overlay >>> .badge[data-index="${supported.index}"]`);
  // Polled: a selector wait watches the document for mutations, not our shadow root.
  await page.waitForFunction(() => !document.querySelector('citelens-overlay').shadowRoot.querySelector('.card').hidden, { polling: 50 });
  const href = await page.$eval('citelens-overlay >>> .card a.open', (a) => a.getAttribute('href'));
  assert.ok(href.startsWith(`${sites.sources}/articles/`) && href.includes('#:~:text='), href);
  await page.screenshot({ path: path.join(ARTIFACTS, 'firefox-perplexity.png') });
  await page.close();
});

// Issue 36 item 5, as in engines.test.js: the myth page ("It is not: the Eiffel Tower is not made
// of steel.") served bare, without its site's chrome, contradicts the sentence, and the denial is
// its quote.
test(`Firefox: "${MYTH}" citing the myth page served bare is contradicted, quoting the denial`, async () => {
  const page = await firefox.browser.newPage();
  await page.goto(`${sites.engines}/${fixture}?sources=bare`);
  await firefox.click(page);
  await waitForResults(page, Date.now());
  const card = await readCard(page, MYTH);
  assert.ok(card, `a badge for "${MYTH}"`);
  console.log(`# firefox myth page bare: "${MYTH}" is ${card.kind}; card: ${JSON.stringify(card.groups.length ? card.groups : card.quotes)}`);
  assert.equal(card.kind, 'contradicted');
  assert.ok(card.links.length && card.links.every((href) => href.startsWith(`${sites.sources}/bare/articles/eiffel-myths.html`)), JSON.stringify(card.links));
  // A contradicted card quotes the refutation, its link opening the page at that sentence.
  assert.deepEqual(card.quotes, ['It is not: the Eiffel Tower is not made of steel.'], JSON.stringify(card));
  assert.ok(card.links.every((href) => href.includes('#:~:text=It%20is%20not')), JSON.stringify(card.links));
  await page.screenshot({ path: path.join(ARTIFACTS, 'firefox-myth-bare.png') });
  await page.close();
});
