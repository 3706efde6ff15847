// Every engine's fixture page, in Debian's Chromium with the real toolbar click, against the real
// companion (real model) fetching locally served cited pages. Asserts what a reader sees and
// saves: badges, the evidence card, the fragment link, the summary, the exported audit card.
// Dead links and uncited sentences are facts of the pipeline and asserted; the model's own
// verdicts are compared with what each fixture sentence was written to be and the agreement is
// printed, as a figure, not asserted (model quality is measured by scripts/evaluate.py).
// Screenshots go to test-artifacts/; click→badge times are printed.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, EXTENSION_ID } from '../helpers/chromium.js';
import { startCompanion } from '../helpers/companion.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { startSites } from '../helpers/sites.js';
import { BADGE_LABEL, compareVerdicts, readOverlay, verdictsByText, waitForResults } from '../helpers/overlay.js';

const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url));
const EXPECTATIONS = JSON.parse(readFileSync(path.join(FIXTURES, 'e2e-expectations.json'), 'utf8'));
const ENGINES = Object.entries(EXPECTATIONS).filter(([name]) => !name.startsWith('_'));
const FIVE_FIELDS = ['answer_statement', 'cited_url', 'support_judgment', 'evidence_sentences', 'unsupported_assertions'];

let sites;
let companion;
let browser;
const timings = {};
const agreement = {};

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  sites = await startSites();
  companion = await startCompanion({ allowPrivate: [new URL(sites.sources).host] });
  browser = await launchChromium();
  await browser.settings({ companion: companion.base, token: companion.token });
});

after(async () => {
  writeFileSync(path.join(ARTIFACTS, 'timings-chromium.json'), JSON.stringify(timings, null, 2) + '\n');
  writeFileSync(path.join(ARTIFACTS, 'verdicts-chromium.json'), JSON.stringify(agreement, null, 2) + '\n');
  const all = Object.values(agreement);
  const agreed = all.reduce((n, a) => n + a.agreed, 0);
  const judged = all.reduce((n, a) => n + a.judged, 0);
  console.log(`# model verdicts agree with the fixtures' intended ones on ${agreed} of ${judged} sentences (test-artifacts/verdicts-chromium.json)`);
  await browser?.close();
  await companion?.stop();
  await sites?.close();
});

/** The article's own sentences, to check that a quote really comes from the cited page. */
function articleText(url) {
  const slug = new URL(url).pathname.split('/').pop();
  return readFileSync(path.join(FIXTURES, 'articles', slug), 'utf8').replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
}

for (const [engine, { fixture, expect }] of ENGINES) {
  test(`${engine}: badges, evidence card, fragment link, summary and audit export`, async () => {
    const page = await browser.context.newPage();
    await page.goto(`${sites.engines}/${fixture}`);
    const clicked = Date.now();
    await browser.click(page);
    const { first, last } = await waitForResults(page, clicked);
    timings[engine] = { click_to_first_badge_ms: first, click_to_last_badge_ms: last };
    console.log(`# ${engine}: click → first badge ${first} ms, → last badge ${last} ms`);

    // Badges: real buttons with names that say verdict, sources and action.
    const overlay = await readOverlay(page);
    assert.ok(overlay.badges.length >= Object.keys(expect).length, `${overlay.badges.length} badges`);
    for (const badge of overlay.badges) {
      assert.equal(badge.tag, 'BUTTON');
      assert.match(badge.label, BADGE_LABEL);
      assert.ok(badge.icon && badge.word, 'icon and word, not colour alone');
      assert.ok(!badge.hidden, `badge ${badge.index} is in view`);
    }

    // Each sentence's verdict, read from its card opened by keyboard focus.
    const verdicts = await verdictsByText(page);
    agreement[engine] = compareVerdicts(verdicts, expect);

    // Summary: the counts are those of the badges, with ALCE recall and precision.
    const judged = (j) => overlay.badges.filter((b) => b.judgment === j).length;
    assert.match(overlay.bar, new RegExp(`^CiteLens${judged('complete_support')} of ${overlay.badges.length} sentences? fully supported`));
    for (const [judgment, words] of [['partial_support', 'partly'], ['no_support', 'not supported'], ['inaccessible', 'inaccessible'], ['no_citation', 'without citation']]) {
      if (judged(judgment)) assert.ok(overlay.bar.includes(`${judged(judgment)} ${words}`), `${judgment} in "${overlay.bar}"`);
    }
    const contradicted = overlay.badges.filter((b) => b.kind === 'contradicted').length;
    if (contradicted) assert.ok(overlay.bar.includes(`${contradicted} contradicted`));
    assert.match(overlay.bar, /Citation recall \d{1,3}% · precision \d{1,3}%/);
    for (const judgment of ['complete_support', 'partial_support', 'no_support', 'inaccessible', 'no_citation']) {
      assert.equal(overlay.highlights[`citelens-${judgment}`] || 0, judged(judgment), `highlight citelens-${judgment}`);
    }

    // Hover a supported sentence's badge: the card quotes the cited page and links to the quote.
    const supported =
      overlay.badges.find((b) => b.kind === 'complete_support') || overlay.badges.find((b) => b.kind === 'partial_support');
    assert.ok(supported, 'at least one sentence the model finds supported');
    await page.locator(`citelens-overlay .badge[data-index="${supported.index}"]`).hover();
    const card = page.locator('citelens-overlay .card');
    await card.waitFor({ state: 'visible' });
    const quote = (await card.locator('blockquote').first().innerText()).trim();
    const href = await card.locator('a.open').first().getAttribute('href');
    const source = href.replace(/#.*$/, '');
    assert.ok(source.startsWith(`${sites.sources}/articles/`), href);
    assert.ok(articleText(source).includes(quote.replace(/\s+/g, ' ')), `quote "${quote}" is on ${source}`);
    assert.match(href, /#:~:text=[^&]+/);
    const evidence = await page.evaluate(() => CSS.highlights.get('citelens-evidence')?.size ?? 0);
    assert.ok(evidence >= 2, 'the sentence and the quote are marked as evidence');
    await page.screenshot({ path: path.join(ARTIFACTS, `chromium-${engine}.png`) });
    await page.keyboard.press('Escape');
    await card.waitFor({ state: 'hidden' });

    // Export: the audit card file, named after the host and the time, with the five fields.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('citelens-overlay .bar button[data-action="export"]').click(),
    ]);
    assert.match(download.suggestedFilename(), /^citelens-audit-127\.0\.0\.1-\d{8}-\d{4}\.json$/);
    const audit = JSON.parse(readFileSync(await download.path(), 'utf8'));
    writeFileSync(path.join(ARTIFACTS, `audit-${engine}.json`), JSON.stringify(audit, null, 2));
    assert.equal(audit.page.url, `${sites.engines}/${fixture}`);
    assert.ok(audit.cards.length >= overlay.badges.filter((b) => b.kind !== 'no_citation').length);
    for (const card of audit.cards) {
      assert.deepEqual(Object.keys(card).slice(0, 5), FIVE_FIELDS);
      assert.ok(card.cited_url.startsWith(`${sites.sources}/articles/`), card.cited_url);
      assert.ok(verdicts.some((v) => v.text === card.answer_statement), card.answer_statement);
    }
    if (Object.values(expect).some((kinds) => kinds.includes('inaccessible'))) {
      const dead = audit.cards.filter((c) => c.support_judgment === 'inaccessible');
      assert.ok(dead.length >= 1 && dead.every((c) => !c.evidence_sentences.length), 'the dead link is reported, never guessed');
    }
    await page.close();
  });
}

test('badges stay with their sentences on scroll, resize and when the engine re-renders', async () => {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 1280, height: 600 });
  await page.goto(`${sites.engines}/chatgpt.html`);
  await browser.click(page);
  await waitForResults(page, Date.now());
  const place = () =>
    page.evaluate(() => {
      const root = document.querySelector('citelens-overlay').shadowRoot;
      const badge = root.querySelector('.badge[data-index="1"]');
      const ranges = [];
      CSS.highlights.forEach((h, name) => name !== 'citelens-evidence' && ranges.push(...h));
      const connected = ranges.length > 0 && ranges.every((r) => r.startContainer.isConnected && r.startContainer.nodeType === 3);
      return { top: badge.getBoundingClientRect().top, left: badge.getBoundingClientRect().left, hidden: badge.hidden, connected };
    });
  const start = await place();
  await page.mouse.wheel(0, 120);
  await page.waitForFunction((top) => {
    const b = document.querySelector('citelens-overlay').shadowRoot.querySelector('.badge[data-index="1"]');
    return Math.abs(b.getBoundingClientRect().top - (top - 120)) < 2;
  }, start.top);
  await page.setViewportSize({ width: 1000, height: 600 });
  await page.waitForFunction((left) => {
    const b = document.querySelector('citelens-overlay').shadowRoot.querySelector('.badge[data-index="1"]');
    return b.getBoundingClientRect().left < left - 100;
  }, start.left);
  // Where the narrower page put it: the re-render below must leave it there. (Not start.top - 120:
  // at 1,000 px the lines wrap anew, and how badges of neighbouring sentences share a line
  // depends on the verdicts the model gives.)
  const resized = await place();
  // The engine re-renders the answer: same words, new nodes.
  await page.evaluate(() => {
    const answer = document.querySelectorAll('.markdown')[1];
    answer.replaceWith(answer.cloneNode(true));
  });
  await page.waitForFunction(() => {
    const ranges = [];
    CSS.highlights.forEach((h) => ranges.push(...h));
    const badge = document.querySelector('citelens-overlay').shadowRoot.querySelector('.badge[data-index="1"]');
    // Live Ranges whose nodes were removed collapse onto the parent: re-anchored ones hold text.
    return ranges.length > 0 && ranges.every((r) => r.startContainer.isConnected && r.startContainer.nodeType === 3 && !r.collapsed) && !badge.hidden;
  });
  // The overlay moves badges on the next animation frame after new ranges arrive; read them
  // after it (read before it, a badge can still stand where the collapsed ranges put it).
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  const after = await place();
  assert.ok(after.connected && !after.hidden, JSON.stringify(after));
  assert.ok(Math.abs(after.top - resized.top) < 2, `${after.top} vs ${resized.top}`);

  // A second click on the unchanged page clears everything.
  await browser.click(page);
  await page.locator('citelens-overlay').waitFor({ state: 'detached' });
  assert.equal(await page.evaluate(() => CSS.highlights.size), 0);
  await page.close();
});

test('a wrong token: the bar says to pair again or paste the token from `citelens token`', async () => {
  await browser.settings({ companion: companion.base, token: 'not-the-token' });
  try {
    const page = await browser.context.newPage();
    await page.goto(`${sites.engines}/copilot.html`);
    await browser.click(page);
    const bar = page.locator('citelens-overlay .bar');
    await bar.getByText('(401)').waitFor({ timeout: 15_000 });
    assert.match(await bar.innerText(), /did not accept the pairing token \(401\): open CiteLens options and press Pair with the companion \(or paste the token from\s+citelens token\)/);
    await page.close();
  } finally {
    await browser.settings({ companion: companion.base, token: companion.token });
  }
});

test('options: "Test connection" pairs with the running companion', async () => {
  const page = await browser.context.newPage();
  await page.goto(`chrome-extension://${EXTENSION_ID}/options/options.html`);
  await page.fill('#companion', companion.base);
  await page.fill('#token', companion.token);
  await page.click('#test');
  await page.locator('#result.ok').waitFor({ timeout: 15_000 });
  assert.match(await page.locator('#result').innerText(), /^Connected: CiteLens companion \S+ \(.+\) accepted the token\.$/);
  await page.fill('#token', 'wrong');
  await page.click('#test');
  await page.locator('#result.error').getByText('(401)').waitFor();
  await page.fill('#token', companion.token);
  await page.click('#save');
  await page.close();
});
