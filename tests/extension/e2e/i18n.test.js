// The extension in the browser's language, in Debian's Chromium with the real toolbar click and
// the real companion (and Firefox ESR in French): with the browser in French the badges, their names, the card, the summary
// bar and the options page are French (_locales/fr); the same page in an English browser is in
// English. Chromium on Linux takes its UI language from --lang and LANGUAGE, and uses it only
// when its French locale pack is there (Debian: chromium-l10n); Firefox ESR follows the pref
// intl.locale.requested when its French language pack is installed (firefox-esr-l10n-fr).
// Without a pack its test is skipped and says why. Screenshots go to test-artifacts/.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM, EXTENSION_ID, launchChromium } from '../helpers/chromium.js';
import { startCompanion } from '../helpers/companion.js';
import { FIREFOX, launchFirefox, pasteToken } from '../helpers/firefox.js';
import { EN, FR } from '../helpers/i18n.js';
import { startSites } from '../helpers/sites.js';
import { readOverlay, waitForResults } from '../helpers/overlay.js';

const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url));
// Debian's chromium ships en-US only; chromium-l10n adds the others.
const FRENCH_PACK = path.join(path.dirname(CHROMIUM.replace(/^\/usr\/bin\//, '/usr/lib/chromium/')), 'locales', 'fr.pak');
// In CI (scripts/setup.sh installs both packs) a missing pack fails the test instead of skipping it.
const NO_FRENCH = existsSync(FRENCH_PACK) || process.env.CI ? false : `Chromium has no French locale pack (${FRENCH_PACK}): apt-get install chromium-l10n`;
const FIREFOX_FRENCH = path.join(path.dirname(FIREFOX.replace(/^\/usr\/bin\//, '/usr/lib/firefox-esr/')), 'browser', 'extensions', 'langpack-fr@firefox-esr.mozilla.org.xpi');
const NO_FIREFOX_FRENCH = existsSync(FIREFOX_FRENCH) || process.env.CI ? false : `Firefox ESR has no French language pack (${FIREFOX_FRENCH}): apt-get install firefox-esr-l10n-fr`;
const FIXTURE = 'perplexity.html'; // a sentence of each kind (e2e-expectations.json)

let sites;
let companion;

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  sites = await startSites();
  companion = await startCompanion({ allowPrivate: [new URL(sites.sources).host] });
});

after(async () => {
  await companion?.stop();
  await sites?.close();
});

/** Checks the fixture in a browser whose UI language is `lang`, and returns what the reader sees. */
async function checkIn(lang) {
  const browser = await launchChromium({ lang });
  try {
    await browser.settings({ companion: companion.base, token: companion.token });
    const ui = await browser.worker.evaluate(() => chrome.i18n.getUILanguage());
    const page = await browser.context.newPage();
    await page.goto(`${sites.engines}/${FIXTURE}`);
    await browser.click(page);
    await waitForResults(page, Date.now());
    const overlay = await readOverlay(page);
    const buttons = await page.evaluate(() =>
      [...document.querySelector('citelens-overlay').shadowRoot.querySelectorAll('.bar button')].map((b) => b.getAttribute('aria-label') || b.textContent),
    );
    // The card of the first badge, opened from the keyboard.
    await page.locator('citelens-overlay .badge').first().focus();
    const card = page.locator('citelens-overlay .card');
    await card.waitFor({ state: 'visible' });
    const heading = await card.locator('h2').innerText();
    const cardText = await card.innerText();
    await page.screenshot({ path: path.join(ARTIFACTS, `chromium-i18n-${lang}.png`) });
    await page.close();
    const options = await browser.context.newPage();
    await options.goto(`chrome-extension://${EXTENSION_ID}/options/options.html`);
    const optionsPage = await options.evaluate(() => ({
      lang: document.documentElement.lang,
      title: document.title,
      pair: document.getElementById('pair').textContent,
      test: document.getElementById('test').textContent,
    }));
    await options.close();
    return { ui, overlay, buttons, heading, cardText, optionsPage };
  } finally {
    await browser.close();
  }
}

/** The badge word each kind must show, from a messages.json. */
const wordOf = (messages, kind) => messages[`badge_${kind}`].message;

/**
 * The summary's "fully supported" count and its likely part (complete support read with low
 * confidence, issue 58: "1 likely supported (check the quote)"), in the words of a messages.json:
 * the part said after " · " when there are likely sentences, and no likely words when there are none.
 */
function assertCompleteCounts(bar, badges, messages, firstPart) {
  const likely = badges.filter((b) => b.kind === 'likely_support').length;
  const sure = badges.filter((b) => b.judgment === 'complete_support').length - likely;
  assert.match(bar, firstPart(sure, badges.length), bar);
  const lang = messages.language_tag.message;
  const part = (n, form) => messages[`counts_likely_${form}`].message.replace('$COUNT$', String(n));
  if (likely) {
    const form = new Intl.PluralRules(lang).select(likely) === 'one' ? 'one' : 'other';
    assert.ok(bar.includes(` · ${part(likely, form)}`), `"${part(likely, form)}" in "${bar}"`);
  } else {
    for (const form of ['one', 'other']) assert.ok(!bar.includes(part('', form).trim()), bar);
  }
}
const FRENCH_FIRST = (sure, total) => new RegExp(`^CiteLensPhrases? entièrement soutenues?\u00a0: ${sure} sur ${total}`);

test('a French browser: badges, their names, the card, the summary and the options page in French', { skip: NO_FRENCH }, async () => {
  const seen = await checkIn('fr');
  assert.match(seen.ui, /^fr/, 'the browser runs in French');
  const { badges, bar } = seen.overlay;
  assert.ok(badges.length >= 6, `${badges.length} badges`);
  for (const badge of badges) {
    assert.equal(badge.word, wordOf(FR, badge.kind), `badge ${badge.index} (${badge.kind})`);
    assert.match(badge.label, /^Phrase \d+\u00a0: /, badge.label);
    assert.doesNotMatch(badge.label, /Sentence|supported|show (evidence|details)/, badge.label);
  }
  // Every kind of the fixture, in French words ("Soutenu", "Contredit", "Sans citation"…).
  const kinds = new Set(badges.map((b) => b.kind));
  for (const kind of ['no_citation', 'inaccessible']) assert.ok(kinds.has(kind), `a ${kind} badge`);

  assertCompleteCounts(bar, badges, FR, FRENCH_FIRST);
  assert.match(bar, /Rappel des citations \d{1,3}[\u00a0\u202f]% · précision \d{1,3}[\u00a0\u202f]%/, bar);
  assert.match(bar, /\d+\u00a0sans citation/, bar);
  assert.doesNotMatch(bar, /sentence|fully supported|Citation recall|Export audit card/, bar);
  assert.ok(seen.buttons.includes('Exporter la fiche d’audit'), seen.buttons.join(' | '));
  assert.ok(seen.buttons.includes('Fermer CiteLens'), seen.buttons.join(' | '));
  assert.match(seen.heading, /— phrase \d+$/, seen.heading);
  assert.ok(seen.cardText.includes('Source ') || seen.cardText.includes('La réponse ne donne aucune source'), seen.cardText);

  assert.deepEqual(seen.optionsPage, {
    lang: 'fr',
    title: FR.options_title.message,
    pair: FR.options_pair_button.message,
    test: FR.options_test.message,
  });
});

test('the same page in an English browser is in English', async () => {
  const seen = await checkIn('en-US');
  const { badges, bar } = seen.overlay;
  assert.ok(badges.length >= 6, `${badges.length} badges`);
  for (const badge of badges) {
    assert.equal(badge.word, wordOf(EN, badge.kind), `badge ${badge.index} (${badge.kind})`);
    assert.match(badge.label, /^Sentence \d+: /, badge.label);
  }
  assertCompleteCounts(bar, badges, EN, (sure, total) => new RegExp(`^CiteLens${sure} of ${total} sentences? fully supported`));
  assert.match(bar, /Citation recall \d{1,3}% · precision \d{1,3}%/, bar);
  assert.ok(seen.buttons.includes('Export audit card'), seen.buttons.join(' | '));
  assert.match(seen.heading, /— sentence \d+$/, seen.heading);
  assert.deepEqual(seen.optionsPage, { lang: 'en', title: 'CiteLens options', pair: 'Pair with the companion', test: 'Test connection' });
});

test('Firefox ESR in French: badges, their names and the summary in French', { skip: NO_FIREFOX_FRENCH }, async () => {
  const firefox = await launchFirefox({ prefs: { 'intl.locale.requested': 'fr' } });
  try {
    const options = await pasteToken(firefox, companion);
    assert.equal(await options.evaluate(() => browser.i18n.getUILanguage()), 'fr', 'the browser runs in French');
    assert.equal(await options.evaluate(() => document.getElementById('test').textContent), FR.options_test.message);
    await options.close();
    const page = await firefox.browser.newPage();
    await page.goto(`${sites.engines}/${FIXTURE}`);
    await firefox.click(page);
    await waitForResults(page, Date.now());
    const { badges, bar } = await readOverlay(page);
    assert.ok(badges.length >= 6, `${badges.length} badges`);
    for (const badge of badges) {
      assert.equal(badge.word, wordOf(FR, badge.kind), `badge ${badge.index} (${badge.kind})`);
      assert.match(badge.label, /^Phrase \d+\u00a0: /, badge.label);
    }
    assertCompleteCounts(bar, badges, FR, FRENCH_FIRST);
    assert.match(bar, /Rappel des citations \d{1,3}[\u00a0\u202f]% · précision \d{1,3}[\u00a0\u202f]%/, bar);
    await page.screenshot({ path: path.join(ARTIFACTS, 'firefox-i18n-fr.png') });
  } finally {
    await firefox.close();
  }
});
