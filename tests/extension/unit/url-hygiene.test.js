// URL hygiene (docs/engines.md): the cases that tests/companion/text/test_urls.py runs too, over the one
// rules file; then what only the extension does (relative links, adapters' own redirectors).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPage } from '../helpers/dom.js';
import { EXTENSION } from '../helpers/fixtures.js';

const CASES = JSON.parse(readFileSync(fileURLToPath(new URL('../../fixtures/url-cases.json', import.meta.url)), 'utf8'));
const RULES_JSON = JSON.parse(readFileSync(path.join(EXTENSION, 'shared', 'url-rules.json'), 'utf8'));
const plain = (value) => JSON.parse(JSON.stringify(value));

/** A fresh page, its scripts reading `rules` (the shipped ones unless a test flips one). */
function load(rules) {
  const { window, CiteLens } = loadPage('<!doctype html><p>x</p>', { url: CASES.base });
  if (!rules) return CiteLens;
  // Test-only: evaluate the scripts again over other rules, as if url-rules.js held them.
  window.CiteLens = { urlRules: rules };
  for (const file of ['adapters/url-hygiene.js', 'overlay/fragment.js']) {
    window.eval(readFileSync(path.join(EXTENSION, file), 'utf8'));
  }
  return window.CiteLens;
}

/** @param {any} CiteLens @param {{name: string, input: string, url: string|null, hint: string}} c */
function checkUrl(CiteLens, c) {
  const got = CiteLens.urls.normalizeUrl(c.input, CASES.base);
  if (c.url === null) return assert.equal(got, null);
  assert.deepEqual(plain(got), { url: c.url, hint: c.hint });
  // The companion cleans again what the extension cleaned: the same page must come out.
  assert.equal(CiteLens.urls.normalizeUrl(c.url, CASES.base).url, c.url);
}

const CL = load();
const KEPT = load({ ...RULES_JSON, fragment: { ...RULES_JSON.fragment, keep_plain: true } });

for (const c of CASES.urls) {
  test(`normalizeUrl: ${c.name}`, () => checkUrl(CL, c));
}
for (const c of CASES.fragment_links) {
  test(`fragmentUrl: ${c.name}`, () => assert.equal(CL.overlay.fragmentUrl(c.url, c.quote), c.link));
}
for (const c of CASES.keep_plain_fragments.urls) {
  test(`normalizeUrl, plain fragments kept: ${c.name}`, () => checkUrl(KEPT, c));
}
for (const c of CASES.keep_plain_fragments.fragment_links) {
  test(`fragmentUrl, plain fragments kept: ${c.name}`, () => assert.equal(KEPT.overlay.fragmentUrl(c.url, c.quote), c.link));
}

test('the content scripts load the rules of url-rules.json (scripts/sync_url_rules.py writes them)', () => {
  assert.deepEqual(plain(CL.urlRules), RULES_JSON);
});

test('relative links resolve against the page', () => {
  assert.equal(CL.urls.normalizeUrl('/a/b?utm_source=x#top', 'https://example.com/dir/page').url, 'https://example.com/a/b');
  assert.equal(CL.urls.normalizeUrl('//example.org/c', 'https://example.com/').url, 'https://example.org/c');
});

test('relative /url?q= on the page is unwrapped only for adapters that declare it', () => {
  const own = [{ path: /^\/url$/, params: ['q'] }];
  const base = 'http://127.0.0.1:8080/google.html';
  assert.equal(CL.urls.normalizeUrl('/url?q=http%3A%2F%2F127.0.0.1%3A9000%2Fa.html&sa=U', base, own).url, 'http://127.0.0.1:9000/a.html');
  assert.equal(CL.urls.normalizeUrl('/url?q=http%3A%2F%2F127.0.0.1%3A9000%2Fa.html', base).url, 'http://127.0.0.1:8080/url?q=http%3A%2F%2F127.0.0.1%3A9000%2Fa.html');
});

test('Bing parameters decode with or without padding, and bad ones give up', () => {
  const b64 = (s) => Buffer.from(s).toString('base64url');
  assert.equal(CL.urls.decodeBingParam('a1' + b64('https://x.org/?a=1')), 'https://x.org/?a=1');
  assert.equal(CL.urls.decodeBingParam('a1' + Buffer.from('https://x.org/ab').toString('base64')), 'https://x.org/ab');
  assert.equal(CL.urls.decodeBingParam('a1@@@'), null);
});

test('own hosts match the site and its subdomains, or a pattern', () => {
  assert.ok(CL.urls.isOwnHost('https://www.perplexity.ai/x', ['perplexity.ai']));
  assert.ok(!CL.urls.isOwnHost('https://notperplexity.ai/x', ['perplexity.ai']));
  assert.ok(CL.urls.isOwnHost('https://www.google.de/maps', [/(^|\.)google\.[a-z]{2,3}(\.[a-z]{2})?$/]));
});
