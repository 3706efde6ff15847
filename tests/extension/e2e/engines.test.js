// Every engine's fixture page, in Debian's Chromium with the real toolbar click, against the real
// companion (real model) fetching locally served cited pages. Asserts what a reader sees and
// saves: badges, the evidence card, the fragment link, the summary, the exported audit card.
// Dead links and uncited sentences are facts of the pipeline and asserted; the model's own
// verdicts are compared with what each fixture sentence was written to be, the agreement is
// printed, and it must stay above a floor: a guard against regressions, not a measure of the
// model's quality (research/evaluation/evaluate.py measures that). A sentence written to be contradicted is
// never shown as supported, fully or likely, with no tolerance (issue 36 item 5), nor is the myth page's
// "made of steel", with the page in its site's chrome or bare.
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
import {
  BADGE_LABEL,
  afterLayout,
  agreementOf,
  compareVerdicts,
  layoutNow,
  layoutPasses,
  readCard,
  readOverlay,
  verdictsByText,
  waitForResults,
} from '../helpers/overlay.js';

const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url));
const EXPECTATIONS = JSON.parse(readFileSync(path.join(FIXTURES, 'e2e-expectations.json'), 'utf8'));
const ENGINES = Object.entries(EXPECTATIONS).filter(([name]) => !name.startsWith('_'));
const FIVE_FIELDS = ['answer_statement', 'cited_url', 'support_judgment', 'evidence_sentences', 'unsupported_assertions'];
// How many of the judged sentences must get the verdict the fixture was written for (issue 36
// item 5). Measured with the companion of issue 36 item 1 (wording.says_otherwise,
// model.conflicting_reading), 2026-12-03: 40 of 47 in Chromium (the 7 others: both "made of
// steel" sentences and google-ai-mode's "300 metres tall" and "rarely windy" partial, two
// "partial" sentences complete, phind's "not dead" partial). (Before item 1 the shipped model gave
// 37 or 38 of the 40 sentences the fixtures then had, about 93 %; 40 of 47 is 85 %: worse,
// reported.) With companion 0.13.0 (en.restates_negated), 2026-12-05: 42 of 47, both "made of
// steel" sentences now contradicted as written for. The floor is the measured figure less 2
// sentences: 40 of 47, at most 7 disagreements. With companion 0.16.0 (issue 58: complete support
// read with low confidence is shown "likely supported", and a likely badge agrees with a sentence
// written to be complete), 2026-12-06: 40 of 47 (the 7 others: chatgpt's "light pollution" likely,
// not partial; "made of puddled iron" and three "partial" sentences not supported; "rarely windy"
// partial, not unsupported; phind's "not dead" partial). The floor stays 40: the measure is at it,
// with no sentence to spare. Stated in sentences; a fixture sentence more or less changes JUDGED
// and the floor is measured again.
const JUDGED = 47;
const AGREEMENT_FLOOR = 40;

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
  const { agreed, judged } = agreementOf(agreement);
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

for (const [engine, { fixture, expect, block_cited: blockCited = [] }] of ENGINES) {
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
    // Trust: no sentence its article was written to refute is shown supported, fully or likely. No tolerance.
    assert.deepEqual(agreement[engine].greenContradicted, [], 'written to be contradicted, shown as supported');
    // A sentence cited only by its paragraph's chip says so in its card, and no other does.
    for (const v of verdicts) assert.equal(v.citedByBlock, blockCited.some((f) => v.text.includes(f)), `cited by the paragraph's link: "${v.text}"`);

    // Summary: the counts are those of the badges, with ALCE recall and precision.
    // Complete support read with low confidence (issue 58) is counted apart, as "likely supported":
    // `sure` are the complete judgments shown green, `likely` the others.
    const judged = (j) => overlay.badges.filter((b) => b.judgment === j).length;
    const likely = overlay.badges.filter((b) => b.kind === 'likely_support').length;
    const sure = judged('complete_support') - likely;
    assert.match(overlay.bar, new RegExp(`^CiteLens${sure} of ${overlay.badges.length} sentences? fully supported`));
    if (likely) assert.ok(overlay.bar.includes(` · ${likely} likely supported (check the quote)`), `likely_support in "${overlay.bar}"`);
    else assert.doesNotMatch(overlay.bar, /likely supported/);
    for (const [judgment, words] of [['partial_support', 'partly'], ['no_support', 'not supported'], ['inaccessible', 'inaccessible'], ['no_citation', 'without citation']]) {
      if (judged(judgment)) assert.ok(overlay.bar.includes(`${judged(judgment)} ${words}`), `${judgment} in "${overlay.bar}"`);
    }
    // A contradicted sentence is one of its judgment's count, said there (issue 60): the parts
    // sum to the sentences (waitForResults checked that too).
    for (const judgment of ['no_support', 'partial_support']) {
      const contradicted = overlay.badges.filter((b) => b.kind === 'contradicted' && b.judgment === judgment).length;
      if (contradicted) assert.match(overlay.bar, new RegExp(`${judged(judgment)} ${judgment === 'no_support' ? 'not supported' : 'partly'}, ${contradicted} of them contradicted`));
    }
    assert.match(overlay.bar, /Citation recall \d{1,3}% · precision \d{1,3}%/);
    // And over what they were computed (issue 25): the sentences whose sources could be read.
    const basis = /Recall over the (\d+) sentences? whose sources could be read(?: \((\d+) cited by (?:its|their) paragraph's link\))?, precision over \d+ citations?/.exec(overlay.bar);
    assert.ok(basis, overlay.bar);
    assert.equal(Number(basis[1]), overlay.badges.length - judged('inaccessible') - judged('no_citation'), overlay.bar);
    assert.equal(Number(basis[2] || 0), blockCited.length, overlay.bar);
    // Highlights: one per judgment, every complete one (sure and likely) under
    // citelens-complete_support, the likely ones drawn over it as citelens-likely_support too.
    for (const judgment of ['complete_support', 'partial_support', 'no_support', 'inaccessible', 'no_citation']) {
      assert.equal(overlay.highlights[`citelens-${judgment}`] || 0, judged(judgment), `highlight citelens-${judgment}`);
    }
    assert.equal(overlay.highlights['citelens-likely_support'] || 0, likely, 'highlight citelens-likely_support');

    // Hover a supported sentence's badge: the card quotes the cited page and links to the quote.
    const supported = ['complete_support', 'partial_support', 'likely_support'].map((k) => overlay.badges.find((b) => b.kind === k)).find(Boolean);
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
    // Without room beside the answer the summary folds to its chip (summary-bar.js, dock.js; the
    // chatgpt page at this size): unfold it as a reader would, or its buttons are not shown.
    const chip = page.locator('citelens-overlay .panel.collapsed .chip');
    if (await chip.count()) await chip.click();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('citelens-overlay .bar button[data-action="export"]').click(),
    ]);
    assert.match(download.suggestedFilename(), /^citelens-audit-127\.0\.0\.1-\d{8}-\d{4}\.json$/);
    const audit = JSON.parse(readFileSync(await download.path(), 'utf8'));
    writeFileSync(path.join(ARTIFACTS, `audit-${engine}.json`), JSON.stringify(audit, null, 2));
    assert.equal(audit.page.url, `${sites.engines}/${fixture}`);
    // Built from the result the companion holds (the summary's result_id), so it vouches for it.
    assert.equal(audit.provenance.verdicts, 'companion');
    assert.match(audit.tool.model.sha256['model.onnx'], /^[0-9a-f]{64}$/);
    assert.ok(audit.cards.length >= overlay.badges.filter((b) => b.kind !== 'no_citation').length);
    for (const card of audit.cards) {
      assert.deepEqual(Object.keys(card).slice(0, 5), FIVE_FIELDS);
      assert.ok(card.cited_url.startsWith(`${sites.sources}/articles/`), card.cited_url);
      assert.ok(verdicts.some((v) => v.text === card.answer_statement), card.answer_statement);
    }
    // Saved for a batch audit: the request body as sent, on one line (citelens audit-batch's INPUT).
    const [saved] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('citelens-overlay .bar button[data-action="save-batch"]').click(),
    ]);
    assert.match(saved.suggestedFilename(), /^citelens-batch-127\.0\.0\.1-\d{8}-\d{4}\.jsonl$/);
    const line = readFileSync(await saved.path(), 'utf8');
    assert.equal(line.indexOf('\n'), line.length - 1, 'one JSON line');
    const body = JSON.parse(line);
    assert.equal(body.page.url, `${sites.engines}/${fixture}`);
    assert.equal(body.page.engine, audit.page.engine);
    assert.ok(body.answer.text.length > 0 && body.citations.length >= audit.cards.length / 4);
    assert.ok(body.citations.every((c) => typeof c.offset === 'number' && typeof c.url === 'string'));
    if (Object.values(expect).some((kinds) => kinds.includes('inaccessible'))) {
      const dead = audit.cards.filter((c) => c.support_judgment === 'inaccessible');
      assert.ok(dead.length >= 1 && dead.every((c) => !c.evidence_sentences.length), 'the dead link is reported, never guessed');
    }
    await page.close();
  });
}

test(`the model gives the verdicts the fixtures were written for on at least ${AGREEMENT_FLOOR} of the ${JUDGED} sentences it judges, and never shows a contradicted one as supported`, (t) => {
  const { agreed, judged, disagreements, greenContradicted } = agreementOf(agreement);
  if (!judged) return t.skip('no engine page was checked');
  assert.deepEqual(greenContradicted, [], 'sentences written to be contradicted, shown as supported (fully or likely)');
  // Every page checked: the count the floor was set for (a changed fixture restates the floor).
  if (Object.keys(agreement).length === ENGINES.length) assert.equal(judged, JUDGED, 'the fixtures changed: measure the agreement again and restate AGREEMENT_FLOOR');
  // Some pages checked (--test-name-pattern): the same number of disagreements at most.
  assert.ok(judged - agreed <= JUDGED - AGREEMENT_FLOOR, `${agreed} of ${judged} sentences agree (floor ${AGREEMENT_FLOOR} of ${JUDGED}); the others:\n${disagreements.join('\n')}`);
});

// Issue 36 item 5: the myth page says "Many visitors assume that such a tall tower must be made
// of steel. It is not: the Eiffel Tower is not made of steel." A sentence saying it is made of
// steel, citing that page, is contradicted, its quote the denial, whether the page comes in a news
// site's chrome (nav, cookie banner, related links) or bare (the article alone): the chrome once
// changed what the companion read. The denial is the sentence word for
// word with "not" put in (the rule en.restates_negated, not a score on a bar: docs/rules.md). The
// sentence is perplexity.html's.
const MYTH = 'The Eiffel Tower is made of steel.';
for (const [variant, query, path_] of [
  ["in its site's chrome", '', '/articles/eiffel-myths.html'],
  ['bare', '?sources=bare', '/bare/articles/eiffel-myths.html'],
]) {
  test(`"${MYTH}" citing the myth page is contradicted, quoting the denial: the page served ${variant}`, async () => {
    const page = await browser.context.newPage();
    await page.goto(`${sites.engines}/perplexity.html${query}`);
    await browser.click(page);
    await waitForResults(page, Date.now());
    const card = await readCard(page, MYTH);
    assert.ok(card, `a badge for "${MYTH}"`);
    console.log(`# myth page ${variant}: "${MYTH}" is ${card.kind}; card: ${JSON.stringify(card.groups.length ? card.groups : card.quotes)}`);
    assert.equal(card.kind, 'contradicted', `"${MYTH}" against the page that denies it (${variant})`);
    // The page read is this variant's.
    assert.ok(card.links.length && card.links.every((href) => href.startsWith(`${sites.sources}${path_}`)), JSON.stringify(card.links));
    // A contradicted card quotes the refutation, its link opening the page at that sentence.
    assert.deepEqual(card.quotes, ['It is not: the Eiffel Tower is not made of steel.'], JSON.stringify(card));
    assert.ok(card.links.every((href) => href.includes('#:~:text=It%20is%20not')), JSON.stringify(card.links));
    await page.screenshot({ path: path.join(ARTIFACTS, `chromium-myth-${query ? 'bare' : 'wrapped'}.png`) });
    await page.close();
  });
}

// Issue 25.1: the extension counts positions in UTF-16 code units, the companion once read them
// as code points, and every character beyond U+FFFF before a marker moved the later spans.
const EMOJI_SENTENCES = [
  '🐝 Honeybees pollinate roughly one third of the food crops that people eat.',
  'Almond orchards in California depend almost entirely on honeybees, a beekeeper told the Cafe\u0301 🌰 Amande.',
  'In Hebrew a bee is דבורה, in Arabic نحلة and in Chinese 蜜蜂, and 𠮷 is a rarer character.',
  '🦠 Colony collapse disorder was first reported in the United States in 2006.',
  '👩‍🔬 Researchers think that Varroa mites, pesticides such as neonicotinoids and poor nutrition all weaken colonies.',
  '🌍 Honeybees are not native to North America.',
  'English colonists brought the first hives to Virginia in 1622 🚢.',
];

test('an answer with emoji, a combining accent, CJK and right-to-left words: each badge marks its own sentence', async () => {
  const page = await browser.context.newPage();
  await page.goto(`${sites.engines}/emoji-chatgpt.html`);
  await browser.click(page);
  await waitForResults(page, Date.now());
  // The sentence each badge's card names, and the words its verdict's highlight covers in the page.
  const verdicts = await verdictsByText(page);
  assert.deepEqual(verdicts.map((v) => v.text), EMOJI_SENTENCES);
  const marked = await page.evaluate(() => {
    const out = {};
    CSS.highlights.forEach((h, name) => {
      if (name !== 'citelens-evidence' && name !== 'citelens-contradicted' && name !== 'citelens-likely_support') out[name] = [...h].map((r) => r.toString().replace(/\s+/g, ' ').trim());
    });
    return out;
  });
  const { badges } = await readOverlay(page);
  assert.equal(Object.values(marked).flat().length, EMOJI_SENTENCES.length, JSON.stringify(marked));
  for (const badge of badges) {
    const sentence = verdicts.find((v) => v.index === badge.index).text;
    assert.ok(marked[`citelens-${badge.judgment}`]?.includes(sentence), `badge ${badge.index} (${badge.judgment}) marks "${sentence}": ${JSON.stringify(marked)}`);
  }
  await page.screenshot({ path: path.join(ARTIFACTS, 'chromium-emoji.png') });
  await page.close();
});

test('badges stay with their sentences on scroll, resize and when the engine re-renders', async () => {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 1280, height: 600 });
  await page.goto(`${sites.engines}/chatgpt.html`);
  await browser.click(page);
  await waitForResults(page, Date.now());
  await layoutNow(page);
  // Badge 1's box, every badge's place, and whether the highlights hold Ranges over live text.
  const place = () =>
    page.evaluate(() => {
      const root = document.querySelector('citelens-overlay').shadowRoot;
      const badges = {};
      for (const b of root.querySelectorAll('.badge')) {
        const r = b.getBoundingClientRect();
        badges[b.dataset.index] = b.hidden ? 'hidden' : `${Math.round(r.left)},${Math.round(r.top)}`;
      }
      const badge = root.querySelector('.badge[data-index="1"]');
      const ranges = [];
      CSS.highlights.forEach((h, name) => name !== 'citelens-evidence' && ranges.push(...h));
      const connected = ranges.length > 0 && ranges.every((r) => r.startContainer.isConnected && r.startContainer.nodeType === 3);
      return { top: badge.getBoundingClientRect().top, left: badge.getBoundingClientRect().left, hidden: badge.hidden, connected, badges };
    });
  const start = await place();
  await page.mouse.wheel(0, 120);
  await page.waitForFunction((top) => {
    const b = document.querySelector('citelens-overlay').shadowRoot.querySelector('.badge[data-index="1"]');
    return Math.abs(b.getBoundingClientRect().top - (top - 120)) < 2;
  }, start.top);
  // The place the overlay gives once it has laid out the narrower page. Read before that pass,
  // it is where the scroll left the badges: a wait for the badge to move says nothing when the
  // scroll has moved it already.
  const passes = await layoutPasses(page);
  await page.setViewportSize({ width: 1000, height: 600 });
  await afterLayout(page, passes);
  const resized = await place();
  assert.ok(resized.left < start.left - 100, `badge 1 follows the narrower answer's edge: ${resized.left} (was ${start.left})`);
  // The engine re-renders the answer: same words, new nodes.
  await page.evaluate(() => {
    const answer = document.querySelectorAll('.markdown')[1];
    answer.replaceWith(answer.cloneNode(true));
  });
  // Live Ranges whose nodes were removed collapse onto the parent: re-anchored ones hold text,
  // and the overlay places the badges in the same task as it shows them.
  await page.waitForFunction(() => {
    const ranges = [];
    CSS.highlights.forEach((h) => ranges.push(...h));
    return ranges.length > 0 && ranges.every((r) => r.startContainer.isConnected && r.startContainer.nodeType === 3 && !r.collapsed);
  });
  const after = await place();
  assert.ok(after.connected && !after.hidden, JSON.stringify(after));
  // Every badge, those of the re-rendered answer too, back where the same words stood.
  assert.deepEqual(after.badges, resized.badges);

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
