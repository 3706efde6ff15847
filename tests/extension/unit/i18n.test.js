// The extension's words in English and French (_locales, shared/i18n.js): every key the code
// uses exists in both languages, the two languages have the same keys and placeholders, French
// follows French typography, the overlay modules hold no English words of their own, and the
// overlay really speaks French with the French messages.
import { EN, FR, i18n } from '../helpers/i18n.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { JSDOM } from 'jsdom';
import { loadPage } from '../helpers/dom.js';
import { EXTENSION } from '../helpers/fixtures.js';

const LANGS = { en: EN, fr: FR };

/** Every file of the extension, relative to its folder. */
function walk(dir = '') {
  return readdirSync(path.join(EXTENSION, dir)).flatMap((name) => {
    const rel = dir ? `${dir}/${name}` : name;
    return statSync(path.join(EXTENSION, rel)).isDirectory() ? (name === '_locales' ? [] : walk(rel)) : [rel];
  });
}
const read = (/** @type {string} */ rel) => readFileSync(path.join(EXTENSION, rel), 'utf8');
/** JS without its comments (doc comments show `t('key')` as examples). */
const code = (/** @type {string} */ text) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');

/** The message keys the extension uses: t('…'), plural(n, '…', '…'), data-i18n*="…", __MSG_…__. */
function usedKeys() {
  const used = new Map();
  const add = (/** @type {string} */ key, /** @type {string} */ file) => used.set(key, [...(used.get(key) || []), file]);
  for (const file of walk()) {
    if (file.endsWith('.js')) {
      const text = code(read(file));
      for (const m of text.matchAll(/\bt\(\s*'([a-z0-9_]+)'/g)) add(m[1], file);
      // plural(count, 'x_one', 'x_other', …): the pair, wherever the count's expression ends
      for (const m of text.matchAll(/'([a-z0-9_]+_one)',\s*'([a-z0-9_]+_other)'/g)) add(m[1], file), add(m[2], file);
    } else if (file.endsWith('.html')) {
      for (const m of read(file).matchAll(/data-i18n(?:-[a-z-]+)?="([a-z0-9_]+)"/g)) add(m[1], file);
    }
    if (file.endsWith('.json') || file.endsWith('.html') || file.endsWith('.js')) {
      for (const m of read(file).matchAll(/__MSG_([A-Za-z0-9_]+)__/g)) add(m[1], file);
    }
  }
  add('language_tag', 'shared/i18n.js'); // t('language_tag') in language(), the one call by name
  return used;
}

test('the scan finds the keys of every part: overlay, content, options, permit, background, manifest', () => {
  const files = new Set([...usedKeys().values()].flat());
  for (const file of ['overlay/labels.js', 'overlay/card.js', 'overlay/summary-bar.js', 'overlay/badges.js', 'content/controller.js',
    'adapters/core.js', 'options/options.html', 'options/pairing.js', 'permit/permit.html', 'permit/permit.js',
    'background/errors.js', 'background/companion.js', 'background/settings.js', 'background.js', 'manifest.json']) {
    assert.ok(files.has(file), `no message key found in ${file}`);
  }
});

test('every key the extension uses exists in English and in French', () => {
  for (const [key, files] of usedKeys()) {
    for (const [lang, messages] of Object.entries(LANGS)) assert.ok(key in messages, `${key} (${files.join(', ')}) is missing from ${lang}`);
  }
});

test('English and French have the same keys, and every key is used', () => {
  assert.deepEqual(Object.keys(FR).sort(), Object.keys(EN).sort());
  const used = usedKeys();
  assert.deepEqual(Object.keys(EN).filter((k) => !used.has(k)), [], 'messages no code uses');
  for (const key of Object.keys(EN)) {
    if (key.endsWith('_one')) assert.ok(`${key.slice(0, -4)}_other` in EN, `${key} has no _other`);
    if (key.endsWith('_other')) assert.ok(`${key.slice(0, -6)}_one` in EN, `${key} has no _one`);
  }
});

test('placeholders: declared where used, the same in both languages, $1…$9', () => {
  for (const key of Object.keys(EN)) {
    const shapes = Object.entries(LANGS).map(([lang, messages]) => {
      const entry = messages[key];
      const used = [...new Set([...entry.message.matchAll(/\$([A-Za-z0-9_]+)\$/g)].map((m) => m[1].toLowerCase()))].sort();
      const declared = Object.keys(entry.placeholders || {}).sort();
      assert.deepEqual(used, declared, `${lang} ${key}: placeholders used vs declared`);
      assert.doesNotMatch(entry.message.replace(/\$[A-Za-z0-9_]+\$/g, ''), /\$\d/, `${lang} ${key}: use named placeholders`);
      for (const p of Object.values(entry.placeholders || {})) assert.match(p.content, /^\$[1-9]$/, `${lang} ${key}`);
      return Object.fromEntries(Object.entries(entry.placeholders || {}).map(([n, p]) => [n, p.content]));
    });
    assert.deepEqual(shapes[1], shapes[0], `${key}: French placeholders differ from English`);
    // `commands` stay commands in every language.
    assert.deepEqual(FR[key].message.match(/`[^`]*`/g) || [], EN[key].message.match(/`[^`]*`/g) || [], `${key}: commands`);
  }
});

test('French typography: a non-breaking space before : ; ? ! and inside « », the typographic apostrophe', () => {
  for (const [key, { message }] of Object.entries(FR)) {
    const text = message.replace(/`[^`]*`/g, '').replace(/https?:\/\/\S+/g, '');
    assert.doesNotMatch(text, /(^|[^\u00a0\u202f])[;?!](\s|$)/, `${key}: ${text}`);
    assert.doesNotMatch(text, /(^|[^\u00a0\u202f]):(\s|$)/, `${key}: ${text}`);
    assert.doesNotMatch(text, /«(?!\u00a0)|(?<!\u00a0)»/, `${key}: ${text}`);
    assert.doesNotMatch(text, /'/, `${key}: ${text}`);
  }
});

test('the manifest takes its name, description and button title from the messages; the name stays CiteLens', () => {
  const manifest = JSON.parse(read('manifest.json'));
  assert.equal(manifest.default_locale, 'en');
  assert.equal(manifest.name, '__MSG_extension_name__');
  assert.equal(manifest.description, '__MSG_extension_description__');
  assert.equal(manifest.action.default_title, '__MSG_action_title__');
  assert.equal(EN.extension_name.message, 'CiteLens');
  assert.equal(FR.extension_name.message, 'CiteLens');
});

test('the pages keep their English words in the HTML as the messages say them (what shows before load)', () => {
  for (const file of ['options/options.html', 'permit/permit.html']) {
    const { document } = new JSDOM(read(file)).window;
    for (const el of document.querySelectorAll('[data-i18n]')) {
      const text = [...el.childNodes].map((n) => (n.nodeName === 'CODE' ? `\`${n.textContent}\`` : n.textContent)).join('');
      assert.equal(text, EN[el.getAttribute('data-i18n')].message, `${file} ${el.getAttribute('data-i18n')}`);
    }
  }
});

test('the words of the overlay, the content side and the pages are all messages: no English literal in their code', () => {
  const files = walk().filter((f) => /^(overlay|content|options|permit)\/.*\.js$/.test(f) || /^(background\/(errors|settings|companion)|background)\.js$/.test(f));
  // Not words for the reader: an abort reason nobody sees, the probe the connection test sends.
  const allowed = new Set(['the tab went away', 'CiteLens connection test', 'CiteLens connection test.']);
  for (const file of files.filter((f) => f !== 'overlay/styles.js')) {
    for (const m of code(read(file)).matchAll(/'((?:[^'\\\n]|\\.)*)'|`((?:[^`\\]|\\.)*)`|"((?:[^"\\\n]|\\.)*)"/g)) {
      const literal = (m[1] ?? m[2] ?? m[3]).replace(/\$\{[^}]*\}/g, ' ');
      if (allowed.has(literal)) continue;
      assert.doesNotMatch(literal, /[A-Za-z]{2,}\s+[a-z]{2,}\s+[a-z]{2,}|^[A-Z][a-z]+\s+[a-z]{2,}/, `${file}: "${literal}"`);
    }
  }
});

test('t: the browser API when there is one, else the installed messages; placeholders and $$ as browsers do', () => {
  assert.equal(i18n.t('sources_numbered', '1, 2', 4), 'sources 1, 2 and 4');
  assert.equal(i18n.t('no_such_key'), 'no_such_key');
  assert.equal(i18n.format({ message: 'Costs $$$AMOUNT$ ($1)', placeholders: { amount: { content: '$1' } } }, ['5']), 'Costs $5 (5)');
  const saved = globalThis.chrome;
  globalThis.chrome = { i18n: { getMessage: (key, subs) => (key === 'badge_no_support' ? `from the API ${subs.length}` : '') } };
  try {
    assert.equal(i18n.t('badge_no_support'), 'from the API 0');
    assert.equal(i18n.t('badge_contradicted'), 'Contradicted', 'a key the API lacks falls back to the messages');
  } finally {
    globalThis.chrome = saved;
  }
});

test('English: plural forms by count (1 sentence, 0 and 2 sentences), percentages', () => {
  const { CiteLens } = loadPage('<!doctype html><p>x</p>', { url: 'https://example.com/' });
  assert.equal(CiteLens.i18n.plural(1, 'count_sentences_one', 'count_sentences_other', 1), '1 sentence');
  assert.equal(CiteLens.i18n.plural(0, 'count_sentences_one', 'count_sentences_other', 0), '0 sentences');
  assert.equal(CiteLens.i18n.percent(0.87), '87%');
});

test('French: the overlay speaks French, with French plurals and numbers', () => {
  const { CiteLens, document } = loadPage('<!doctype html><p>x</p>', { url: 'https://example.com/', messages: FR });
  const O = CiteLens.overlay;
  assert.equal(O.KINDS.complete_support.word, 'Soutenu');
  assert.equal(O.KINDS.no_citation.word, 'Sans citation');
  assert.equal(O.badgeLabel(2, 'no_support', [2]), 'Phrase 3\u00a0: non soutenue par la source 2 — voir le détail');
  assert.equal(O.badgeLabel(1, 'partial_support', [1, 3, 4]), 'Phrase 2\u00a0: partiellement soutenue par les sources 1, 3 et 4 — voir les preuves');
  assert.equal(O.badgeLabel(5, 'no_citation', []), 'Phrase 6\u00a0: sans citation');
  // French counts 0 and 1 in the singular; a number and its word stay on one line (no-break space).
  assert.equal(O.countsPhrase({ complete_support: 1 }), 'Phrase entièrement soutenue\u00a0: 1 sur 1');
  // The contradicted sentence is one of the non-supported ones, said among them (issue 60).
  assert.equal(
    O.countsPhrase({ complete_support: 9, likely_support: 1, partial_support: 2, no_support: 1, inaccessible: 2, no_citation: 0 }, { no_support: 1 }),
    'Phrases entièrement soutenues\u00a0: 9 sur 15 · 1\u00a0probablement soutenue (vérifiez la citation) · 2\u00a0partiellement · 1\u00a0non soutenue, dont 1\u00a0contredite · 2\u00a0inaccessibles',
  );
  assert.equal(CiteLens.i18n.plural(0, 'count_sentences_one', 'count_sentences_other', 0), '0\u00a0phrase');
  // A no-break space (narrow in newer CLDR data, which Chromium has; node's ICU may be older).
  assert.match(CiteLens.i18n.percent(0.87), /^87[\u00a0\u202f]%$/);
  assert.equal(O.elsewhereCountsPhrase(2, 1), 'Trouvé dans une autre source\u00a0: 2\u00a0phrases avec une citation mal placée, 1\u00a0sans citation');

  const bar = new O.SummaryBar(document.body, { onExport() {}, onClose() {}, onOptions() {} });
  bar.done({ counts: { complete_support: 2, no_support: 1 }, recall: 0.5, precision: 0.75 });
  assert.match(bar.el.querySelector('.metrics').textContent, /^Rappel des citations 50[\u00a0\u202f]% · précision 75[\u00a0\u202f]%$/);
  assert.equal(O.basisPhrase({ statements: 1, citations: 2, block_cited: 0 }), 'Rappel calculé sur 1\u00a0phrase dont les sources ont pu être lues, précision sur 2\u00a0citations');
  assert.equal(
    O.basisPhrase({ statements: 3, citations: 3, block_cited: 2 }),
    'Rappel calculé sur 3\u00a0phrases dont les sources ont pu être lues (2\u00a0citées par le lien de leur paragraphe), précision sur 3\u00a0citations',
  );
  assert.equal(bar.el.querySelector('[data-action="export"]').textContent, 'Exporter la fiche d’audit');
  assert.equal(bar.el.querySelector('[data-action="close"]').getAttribute('aria-label'), 'Fermer CiteLens');
});
