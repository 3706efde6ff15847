// The service worker's side of the companion API: the NDJSON reader and the errors a reader
// sees. fetch is swapped for recorded answers here (unit level): verify-stream.ndjson is a real
// /v1/verify stream of the companion on the Google AI Mode fixture, its local addresses
// rewritten to sources.example. The end-to-end tests talk to the running companion.
// Before the extension's modules: their words come from _locales/en (no i18n API in node).
import '../helpers/i18n.js';
import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createLineReader } from '../../../extension/background/ndjson.js';
import { verifyStream, fetchAudit, testConnection } from '../../../extension/background/companion.js';
import { versionAtLeast } from '../../../extension/background/errors.js';
import { FIXTURES } from '../helpers/fixtures.js';

const RECORDED = readFileSync(path.join(FIXTURES, 'verify-stream.ndjson'), 'utf8');
const SETTINGS = { companion: 'http://127.0.0.1:8765', token: 'tok' };
const REQUEST = { page: { url: 'https://x' }, answer: { text: 'A.' }, citations: [], options: { stream: true } };
const realFetch = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = realFetch;
});

const HEALTH = () => Response.json({ status: 'ok', version: '0.2.0', model: { name: 'm' } });

/** A body that delivers `text` in chunks of `size` bytes, then fails if `breakAfter` is set. */
function chunked(text, size, breakAfter = Infinity) {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= breakAfter) return controller.error(new TypeError('network error'));
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

/** fetch answering health and then `verify` for the POST. */
function serve(verify) {
  const seen = [];
  globalThis.fetch = async (url, init = {}) => {
    seen.push({ url: String(url), init });
    if (String(url).endsWith('/v1/health')) return HEALTH();
    return verify(init);
  };
  return seen;
}

test('NDJSON lines come out whole and in order, however the bytes are cut', async () => {
  const expected = RECORDED.trim().split('\n').map((l) => JSON.parse(l));
  for (const size of [1, 3, 7, 64, 100000]) {
    const lines = [];
    const reader = createLineReader((v) => lines.push(v));
    const bytes = new TextEncoder().encode(RECORDED.trimEnd()); // no final newline: still a line
    for (let i = 0; i < bytes.length; i += size) await reader.push(bytes.slice(i, i + size));
    await reader.end();
    assert.deepEqual(lines, expected, `chunks of ${size}`);
  }
});

test('a line that is not JSON stops the reader', async () => {
  const reader = createLineReader(() => {});
  await assert.rejects(reader.push(new TextEncoder().encode('{"type":"start"}\n{oops\n')), /line 2 of the stream is not JSON/);
});

test('verify streams every line to the tab, with the token and stream: true', async () => {
  const seen = serve(() => new Response(chunked(RECORDED, 50), { headers: { 'content-type': 'application/x-ndjson' } }));
  const lines = [];
  await verifyStream(SETTINGS, REQUEST, (line) => lines.push(line));
  assert.equal(lines[0].type, 'start');
  assert.equal(lines.at(-1).type, 'summary');
  const post = seen.find((s) => s.init.method === 'POST');
  assert.equal(post.url, 'http://127.0.0.1:8765/v1/verify');
  assert.equal(post.init.headers['X-CiteLens-Token'], 'tok');
  assert.equal(JSON.parse(post.init.body).options.stream, true);
});

async function errorOf(promise) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail('expected an error');
}

test('companion not running: how to start it', async () => {
  globalThis.fetch = async () => {
    throw new TypeError('Failed to fetch');
  };
  const error = await errorOf(verifyStream(SETTINGS, REQUEST, () => {}));
  assert.equal(error.code, 'not_running');
  assert.match(error.message, /not running at http:\/\/127\.0\.0\.1:8765\. Start it with `citelens serve`/);
});

test('no token: open options and pair', async () => {
  const error = await errorOf(verifyStream({ ...SETTINGS, token: '' }, REQUEST, () => {}));
  assert.equal(error.code, 'not_paired');
  assert.match(error.message, /open CiteLens options and press Pair with the companion \(or paste the token from `citelens token`\)/);
});

test('wrong token (401): the same advice', async () => {
  serve(() => Response.json({ error: { code: 'unauthorized', message: 'bad token' } }, { status: 401 }));
  const error = await errorOf(verifyStream(SETTINGS, REQUEST, () => {}));
  assert.equal(error.code, 'bad_token');
  assert.match(error.message, /\(401\).*citelens token/);
});

test('companion too old: a version below the minimum, or no /v1/verify', async () => {
  globalThis.fetch = async () => Response.json({ status: 'ok', version: '0.0.9' });
  assert.equal((await errorOf(verifyStream(SETTINGS, REQUEST, () => {}))).code, 'too_old');
  // 0.1.0 read citation offsets as code points and held no results for audit cards.
  globalThis.fetch = async () => Response.json({ status: 'ok', version: '0.1.0' });
  assert.equal((await errorOf(verifyStream(SETTINGS, REQUEST, () => {}))).code, 'too_old');
  serve(() => new Response('Not Found', { status: 404 }));
  const error = await errorOf(verifyStream(SETTINGS, REQUEST, () => {}));
  assert.equal(error.code, 'too_old');
  assert.match(error.message, /too old/);
});

test('413 and 422 carry the companion\'s own message', async () => {
  serve(() => Response.json({ error: { code: 'too_large', message: 'the answer is longer than 50000 characters' } }, { status: 413 }));
  let error = await errorOf(verifyStream(SETTINGS, REQUEST, () => {}));
  assert.equal(error.code, 'rejected');
  assert.equal(error.message, 'The answer is too long for the companion (413: the answer is longer than 50000 characters).');
  serve(() => Response.json({ error: { code: 'invalid', message: 'citations[0].offset must be a whole number' } }, { status: 422 }));
  error = await errorOf(verifyStream(SETTINGS, REQUEST, () => {}));
  assert.match(error.message, /could not read this answer \(422: citations\[0\]\.offset must be a whole number\)/);
});

test('a stream broken mid-way gives partial results, with what arrived kept', async () => {
  const lines = [];
  serve(() => new Response(chunked(RECORDED, 40, RECORDED.indexOf('"summary"') - 60), { headers: { 'content-type': 'application/x-ndjson' } }));
  const error = await errorOf(verifyStream(SETTINGS, REQUEST, (line) => lines.push(line)));
  assert.equal(error.code, 'partial');
  assert.ok(lines.some((l) => l.type === 'statement'));
  assert.match(error.message, /^Partial results: the companion stopped after \d+ of \d+ sentences/);
});

test('a stream that ends without its summary is partial too', async () => {
  const cut = RECORDED.slice(0, RECORDED.indexOf('{"type": "summary"') >= 0 ? RECORDED.indexOf('{"type": "summary"') : RECORDED.lastIndexOf('{'));
  serve(() => new Response(cut, { headers: { 'content-type': 'application/x-ndjson' } }));
  const error = await errorOf(verifyStream(SETTINGS, REQUEST, () => {}));
  assert.equal(error.code, 'partial');
  assert.match(error.message, /the stream ended early/);
});

// Issue 25.2: the companion's reason for a stream it could not finish (api.md: the `error` line),
// in the words of server.py, not "the stream ended early".
const UNTIL_SUMMARY = RECORDED.slice(0, RECORDED.indexOf('{"type": "summary"'));
const errorLine = (code, message) => JSON.stringify({ type: 'error', error: { code, message } }) + '\n';

test("the stream's error line reaches the reader: the companion failed, in its words, and where to look", async () => {
  const lines = [];
  serve(() => new Response(UNTIL_SUMMARY + errorLine('internal', 'the companion failed on this answer: cannot load the model in /opt/e5'), { headers: { 'content-type': 'application/x-ndjson' } }));
  const error = await errorOf(verifyStream(SETTINGS, REQUEST, (line) => lines.push(line)));
  const statements = lines.filter((l) => l.type === 'statement').length;
  assert.ok(statements > 0 && !lines.some((l) => l.type === 'error'), 'the lines before it are kept; the error line is not one');
  assert.equal(error.code, 'failed');
  assert.match(error.message, new RegExp(`^Partial results: ${statements} of \\d+ sentences checked\\. The companion failed while checking this answer: the companion failed on this answer: cannot load the model in /opt/e5\\. Its terminal, where \`citelens serve\` runs, shows more`));
});

test("the stream's error line for a stopped companion says to start it again", async () => {
  serve(() => new Response(RECORDED.split('\n')[0] + '\n' + errorLine('stopped', 'the companion was stopped before it finished this answer'), { headers: { 'content-type': 'application/x-ndjson' } }));
  const error = await errorOf(verifyStream(SETTINGS, REQUEST, () => {}));
  assert.equal(error.code, 'stopped');
  assert.equal(error.message, 'The companion was stopped before it finished checking this answer. Start it again with `citelens serve`, then click the CiteLens button.');
});

test('a connection cut before any answer, with the companion still up, is a network error', async () => {
  serve(() => {
    throw new TypeError('Failed to fetch');
  });
  const error = await errorOf(verifyStream(SETTINGS, REQUEST, () => {}));
  assert.equal(error.code, 'network');
  assert.match(error.message, /Lost the connection/);
});

test('closing the overlay stops reading the stream', async () => {
  serve((init) => new Response(new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(RECORDED.split('\n')[0] + '\n'));
      init.signal.addEventListener('abort', () => controller.error(init.signal.reason));
    },
  }), { headers: { 'content-type': 'application/x-ndjson' } }));
  const stop = new AbortController();
  const lines = [];
  const done = verifyStream(SETTINGS, REQUEST, (line) => {
    lines.push(line);
    stop.abort(new Error('cleared'));
  }, stop.signal);
  const error = await errorOf(done);
  assert.deepEqual(lines.map((l) => l.type), ['start']);
  assert.match(error.message, /cleared/);
});

test('a plain JSON answer is replayed as lines', async () => {
  const lines = RECORDED.trim().split('\n').map((l) => JSON.parse(l));
  const whole = {
    statements: lines.filter((l) => l.type === 'statement'),
    sources: lines.filter((l) => l.type === 'source'),
    summary: lines.find((l) => l.type === 'summary'),
  };
  serve(() => Response.json(whole));
  const got = [];
  await verifyStream(SETTINGS, REQUEST, (line) => got.push(line.type));
  assert.deepEqual([got[0], got.at(-1)], ['start', 'summary']);
});

test('audit and the connection test use the token too', async () => {
  const seen = serve(() => Response.json({ cards: [] }));
  const token = (request) => new Headers(request.init.headers).get('X-CiteLens-Token');
  assert.deepEqual(await fetchAudit(SETTINGS, { result: {} }), { cards: [] });
  assert.equal(seen.at(-1).url, 'http://127.0.0.1:8765/v1/audit');
  assert.equal(token(seen.at(-1)), 'tok');
  assert.deepEqual(await testConnection(SETTINGS), { version: '0.2.0', model: 'm' });
  assert.equal(seen.at(-1).url, 'http://127.0.0.1:8765/v1/verify');
  assert.equal(token(seen.at(-1)), 'tok');
  serve(() => Response.json({ error: { message: 'bad token' } }, { status: 401 }));
  assert.equal((await errorOf(testConnection(SETTINGS))).code, 'bad_token');
});

test('versions compare part by part', () => {
  assert.ok(versionAtLeast('0.1.10', '0.1.9'));
  assert.ok(versionAtLeast('1.0.0rc1', '0.1.0'));
  assert.ok(!versionAtLeast('0.0.9', '0.1.0'));
});
