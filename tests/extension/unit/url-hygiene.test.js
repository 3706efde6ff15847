// URL hygiene (engines.md): redirectors unwrapped, tracking dropped, text fragment kept as a hint.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadPage } from '../helpers/dom.js';

const { CiteLens } = loadPage('<!doctype html><p>x</p>', { url: 'https://www.google.com/search?q=x' });
const { normalizeUrl, decodeBingParam, isOwnHost } = CiteLens.urls;
const b64 = (s) => Buffer.from(s).toString('base64url');

const CASES = [
  ['Google /url?q=', 'https://www.google.com/url?q=https%3A%2F%2Fexample.org%2Fa%3Fx%3D1&sa=U&ved=2ah', 'https://example.org/a?x=1'],
  ['Google /url?url=', 'https://www.google.co.uk/url?sa=t&url=https://example.org/b', 'https://example.org/b'],
  ['Bing ck/a, unpadded base64url', `https://www.bing.com/ck/a?!&&p=abc&u=a1${b64('https://example.org/c?d=é')}&ntb=1`, 'https://example.org/c?d=%C3%A9'],
  ['ChatGPT tag', 'https://example.org/d?utm_source=chatgpt.com', 'https://example.org/d'],
  ['Copilot tags among real parameters', 'https://example.org/e?id=7&utm_source=copilot.com&utm_medium=chat&page=2', 'https://example.org/e?id=7&page=2'],
  ['ref=openai', 'https://example.org/f?ref=openai', 'https://example.org/f'],
  ['a real ref is kept', 'https://example.org/g?ref=v2', 'https://example.org/g?ref=v2'],
  ['click ids', 'https://example.org/h?gclid=1&fbclid=2&msclkid=3', 'https://example.org/h'],
  ['an ordinary fragment is kept', 'https://example.org/i#history', 'https://example.org/i#history'],
  ['the text directive goes', 'https://example.org/j#:~:text=hello%20world', 'https://example.org/j'],
  ['fragment and directive', 'https://example.org/k#top:~:text=x', 'https://example.org/k#top'],
  ['nested: Google to Bing', `https://www.google.com/url?q=${encodeURIComponent(`https://www.bing.com/ck/a?u=a1${b64('https://example.org/l')}`)}`, 'https://example.org/l'],
  ['DuckDuckGo', 'https://duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.org%2Fm', 'https://example.org/m'],
];

for (const [name, raw, expected] of CASES) {
  test(`normalizeUrl: ${name}`, () => {
    assert.equal(normalizeUrl(raw, 'https://www.google.com/search?q=x').url, expected);
  });
}

test('relative /url?q= on the page is unwrapped only for adapters that declare it', () => {
  const own = [{ path: /^\/url$/, params: ['q'] }];
  const base = 'http://127.0.0.1:8080/google.html';
  assert.equal(normalizeUrl('/url?q=http%3A%2F%2F127.0.0.1%3A9000%2Fa.html&sa=U', base, own).url, 'http://127.0.0.1:9000/a.html');
  assert.equal(normalizeUrl('/url?q=http%3A%2F%2F127.0.0.1%3A9000%2Fa.html', base).url, 'http://127.0.0.1:8080/url?q=http%3A%2F%2F127.0.0.1%3A9000%2Fa.html');
});

test('only http(s) pages without credentials are citations', () => {
  for (const raw of ['mailto:a@b.c', 'javascript:alert(1)', 'ftp://example.org/x', 'https://user:pw@example.org/', 'data:text/html,x']) {
    assert.equal(normalizeUrl(raw, 'https://example.com/'), null, raw);
  }
});

test('the text fragment hint is its textStart, decoded', () => {
  const hint = (raw) => normalizeUrl(raw, 'https://example.com/').hint;
  assert.equal(hint('https://example.org/a#:~:text=the%20tower%20now%20stands'), 'the tower now stands');
  assert.equal(hint('https://example.org/a#:~:text=It%20remained,in%201930'), 'It remained');
  assert.equal(hint('https://example.org/a#:~:text=built-,in%201889,-for'), 'in 1889');
  assert.equal(hint('https://example.org/a'), '');
});

test('Bing parameters decode with or without padding, and bad ones give up', () => {
  assert.equal(decodeBingParam('a1' + b64('https://x.org/?a=1')), 'https://x.org/?a=1');
  assert.equal(decodeBingParam('a1' + Buffer.from('https://x.org/ab').toString('base64')), 'https://x.org/ab');
  assert.equal(decodeBingParam('a1@@@'), null);
});

test('own hosts match the site and its subdomains, or a pattern', () => {
  assert.ok(isOwnHost('https://www.perplexity.ai/x', ['perplexity.ai']));
  assert.ok(!isOwnHost('https://notperplexity.ai/x', ['perplexity.ai']));
  assert.ok(isOwnHost('https://www.google.de/maps', [/(^|\.)google\.[a-z]{2,3}(\.[a-z]{2})?$/]));
});
