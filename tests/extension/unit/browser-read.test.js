// Read through my browser: which sources qualify, the permission patterns, which URLs are never
// read (the host cases tests/companion/test_pipeline.py runs too), and the background's
// reader against a real local HTTP server (Node's fetch standing in for the browser's).
// Before the extension's modules: their words come from _locales/en (no i18n API in node).
import '../helpers/i18n.js';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fit, readPages } from '../../../extension/background/browser-read.js';

const HOSTS = JSON.parse(readFileSync(fileURLToPath(new URL('../../fixtures/host-cases.json', import.meta.url)), 'utf8'));
// The background module loaded the classic scripts it imports (url-rules.js, browser-read.js).
const { browserRead } = /** @type {any} */ (globalThis).CiteLens;

test('only inaccessible sources marked browser_may_read, not yet read there, qualify', () => {
  const sources = [
    { url: 'https://a.example/1', status: 'inaccessible', browser_may_read: true, via: 'companion' },
    { url: 'https://b.example/2', status: 'inaccessible', browser_may_read: false, via: 'companion' },
    { url: 'https://c.example/3', status: 'ok', browser_may_read: false, via: 'companion' },
    { url: 'https://d.example/4', status: 'inaccessible', browser_may_read: true, via: 'browser' },
    { url: 'https://e.example/5', status: 'inaccessible' },
    { url: 'https://a.example/1', status: 'inaccessible', browser_may_read: true },
  ];
  assert.deepEqual(browserRead.browserReadable(sources), ['https://a.example/1']);
  assert.deepEqual(browserRead.browserReadable(new Map(sources.map((s) => [s.url, s])).values()), ['https://a.example/1']);
});

test('permission patterns: scheme and host of each page, once, no port and no path', () => {
  assert.deepEqual(
    browserRead.originPatterns(['https://www.nytimes.com/2025/a.html?x=1', 'https://www.nytimes.com/b', 'http://localhost:8123/a', 'https://WSJ.com/c']),
    ['http://localhost/*', 'https://wsj.com/*', 'https://www.nytimes.com/*'],
  );
});

for (const host of HOSTS.private) {
  test(`never read through the browser: ${host}`, () => {
    assert.match(browserRead.refusal(`http://${host}/a`), /^blocked address: /);
  });
}
for (const host of HOSTS.public) {
  test(`may be read through the browser: ${host}`, () => {
    assert.equal(browserRead.refusal(`http://${host}/a`), '');
  });
}

test('other refusals: schemes, user names, broken addresses; the allow-list is exact', () => {
  assert.match(browserRead.refusal('file:///etc/passwd'), /only http and https/);
  assert.match(browserRead.refusal('ftp://example.org/a'), /only http and https/);
  assert.match(browserRead.refusal('https://user:pw@example.org/a'), /user name or password/);
  assert.equal(browserRead.refusal('not a url'), 'not a valid address');
  assert.equal(browserRead.refusal('http://localhost:3000/a', ['localhost:3000']), '');
  assert.match(browserRead.refusal('http://localhost:3001/a', ['localhost:3000']), /^blocked address/);
  assert.match(browserRead.refusal('http://127.0.0.1/a', ['127.0.0.1:8080']), /^blocked address/);
  assert.equal(browserRead.refusal('https://127.0.0.1/a', ['127.0.0.1:443']), '');
});

let server;
let base;
let port;
before(async () => {
  server = createServer((req, res) => {
    const send = (status, type, body, headers = {}) => {
      res.writeHead(status, { 'content-type': type, ...headers });
      res.end(body);
    };
    if (req.url === '/article') return send(200, 'text/html; charset=utf-8', '<html><title>A</title><p>Ünïcode article.</p></html>');
    if (req.url === '/latin1') return send(200, 'text/html; charset=iso-8859-1', Buffer.from([0x3c, 0x70, 0x3e, 0xe9, 0x3c, 0x2f, 0x70, 0x3e]));
    if (req.url === '/plain') return send(200, 'text/plain', 'Just text.');
    if (req.url === '/pdf') return send(200, 'application/pdf', '%PDF-1.7');
    if (req.url === '/forbidden') return send(403, 'text/html', 'no');
    if (req.url === '/big') return send(200, 'text/html', 'x'.repeat(70_000));
    if (req.url === '/to-localhost') return send(302, 'text/html', '', { location: `http://localhost:${port}/article` });
    if (req.url === '/slow') return setTimeout(() => send(200, 'text/html', 'late'), 6_000);
    send(404, 'text/html', 'not found');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = server.address().port;
  base = `http://127.0.0.1:${port}`;
});
after(() => server.close());

test('the background reads pages and says why it could not, per page', async () => {
  const names = ['article', 'latin1', 'plain', 'pdf', 'forbidden', 'to-localhost', 'slow'];
  const pages = await readPages(names.map((n) => `${base}/${n}`), [`127.0.0.1:${port}`], { timeoutMs: 2_000 }); // well past a loaded machine's local reply, well before the slow one
  const by = (n) => pages[`${base}/${n}`];
  assert.deepEqual(by('article'), { via: 'browser', html: '<html><title>A</title><p>Ünïcode article.</p></html>' });
  assert.deepEqual(by('latin1'), { via: 'browser', html: '<p>é</p>' });
  assert.deepEqual(by('plain'), { via: 'browser', text: 'Just text.' });
  assert.deepEqual(by('pdf'), { via: 'browser', error: 'not text (application/pdf)' });
  assert.deepEqual(by('forbidden'), { via: 'browser', error: 'http 403' });
  // The redirect ended on a host the allow-list does not name: what came back is dropped.
  assert.match(by('to-localhost').error, /^redirected: blocked address: localhost /);
  assert.deepEqual(by('slow'), { via: 'browser', error: 'timeout (the site took too long)' });
});

test('private hosts are refused before any request; the size cap holds', async () => {
  let asked = 0;
  const counting = (/** @type {any} */ url, /** @type {any} */ init) => ((asked += 1), fetch(url, init));
  const pages = await readPages([`${base}/article`, 'http://10.0.0.1/x'], [], { fetch: counting });
  assert.equal(asked, 0);
  assert.match(pages[`${base}/article`].error, /^blocked address: 127\.0\.0\.1 /);
  const big = await readPages([`${base}/big`], [`127.0.0.1:${port}`], { maxBytes: 50_000 });
  assert.deepEqual(big[`${base}/big`], { via: 'browser', error: 'page too large (over 50 kB)' });
});

test('a page over its share of the request loses its scripts first, then is not sent', () => {
  const script = `<script>${'x'.repeat(500)}</script>`;
  assert.deepEqual(fit({ via: 'browser', html: `<p>a</p>${script}<!-- c -->` }, 100), { via: 'browser', html: '<p>a</p>' });
  assert.match(fit({ via: 'browser', html: 'p'.repeat(200) }, 100).error, /^page too large to hand to the companion/);
  assert.deepEqual(fit({ via: 'browser', error: 'http 403' }, 1), { via: 'browser', error: 'http 403' });
});
