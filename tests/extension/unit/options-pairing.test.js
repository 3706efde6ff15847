// One-click pairing on the extension side, at unit level: the pairing calls against recorded
// companion answers (fetch swapped), and the options page's pairing control in jsdom on the real
// options.html. The whole flow with the real companion and Chromium is e2e/pairing.test.js.
// Before the extension's modules: their words come from _locales/en (no i18n API in node).
import '../helpers/i18n.js';
import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { JSDOM } from 'jsdom';
import { pairWithCompanion, startPairing, finishPairing } from '../../../extension/background/companion.js';
import { CompanionError } from '../../../extension/background/errors.js';
import { pairingControl } from '../../../extension/options/pairing.js';
import { EXTENSION } from '../helpers/fixtures.js';

const BASE = 'http://127.0.0.1:8765';
const realFetch = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = realFetch;
});

const HEALTH = () => Response.json({ status: 'ok', version: '0.2.0', model: { name: 'm' } });
const error = (status, code, message = code) => Response.json({ error: { code, message } }, { status });

/** fetch answering health, then `answer(path, init)` for every other call; records the calls. */
function companion(answer) {
  const seen = [];
  globalThis.fetch = async (url, init = {}) => {
    const at = new URL(String(url)).pathname;
    seen.push({ path: at, init });
    if (at === '/v1/health') return HEALTH();
    return answer(at, init, seen);
  };
  return seen;
}

test('pairing: start, wait for the reader, then the token once', async () => {
  let polls = 0;
  const seen = companion((at, init) => {
    if (at === '/v1/pair/start') return Response.json({ request: 'r1', code: '4729', expires_in: 120 }, { status: 201 });
    assert.equal(at, '/v1/pair/finish');
    assert.deepEqual(JSON.parse(init.body), { request: 'r1' });
    return ++polls < 3 ? Response.json({ status: 'waiting', expires_in: 100 }, { status: 202 }) : Response.json({ status: 'paired', token: 'the-token' });
  });
  const codes = [];
  const token = await pairWithCompanion(BASE, { onCode: (code, expiresIn) => codes.push([code, expiresIn]), pollMs: 5 });
  assert.equal(token, 'the-token');
  assert.deepEqual(codes, [['4729', 120]]);
  assert.equal(polls, 3);
  for (const call of seen.filter((c) => c.path.startsWith('/v1/pair'))) {
    assert.equal(call.init.method, 'POST');
    assert.equal(call.init.headers['Content-Type'], 'application/json');
    // No token travels on these calls: the extension does not have one yet.
    assert.ok(!Object.keys(call.init.headers).some((h) => h.toLowerCase() === 'x-citelens-token'));
  }
});

test("pairing: the companion's refusals become words for the reader", async () => {
  const cases = [
    [() => error(409, 'pairing_pending'), 'pairing_pending', /Another pairing request is waiting/],
    [() => error(429, 'too_many_pairings'), 'pairing_limited', /Too many pairing requests/],
    [() => new Response('Not Found', { status: 404 }), 'too_old', /cannot pair in one click.*citelens token/],
    [() => error(403, 'origin_refused', 'requests from x are not allowed'), 'forbidden', /refused this extension \(403/],
  ];
  for (const [answer, code, words] of cases) {
    companion(answer);
    await assert.rejects(startPairing(BASE), (e) => e instanceof CompanionError && e.code === code && words.test(e.message));
  }
  globalThis.fetch = async () => {
    throw new TypeError('connection refused');
  };
  await assert.rejects(startPairing(BASE), (e) => e.code === 'not_running' && /citelens serve/.test(e.message));
});

test('pairing: an expired, cancelled or replayed request ends the wait', async () => {
  companion((at) => (at === '/v1/pair/start' ? Response.json({ request: 'r1', code: '1234', expires_in: 120 }, { status: 201 }) : error(404, 'no_such_pairing')));
  await assert.rejects(pairWithCompanion(BASE, { onCode() {}, pollMs: 5 }), (e) => e.code === 'pairing_gone' && /start again/.test(e.message));
  companion(() => error(404, 'no_such_pairing'));
  await assert.rejects(finishPairing(BASE, 'r1'), (e) => e.code === 'pairing_gone');
  // A waiting answer without a token, or a "paired" one without it, is never taken as a token.
  companion(() => Response.json({ status: 'paired' }));
  assert.equal(await finishPairing(BASE, 'r1'), null);
  // The companion's own clock decides; past its expiry the extension stops polling too.
  companion((at) => (at === '/v1/pair/start' ? Response.json({ request: 'r1', code: '1234', expires_in: 0 }, { status: 201 }) : Response.json({ status: 'waiting' }, { status: 202 })));
  await assert.rejects(pairWithCompanion(BASE, { onCode() {}, pollMs: 5 }), (e) => e.code === 'pairing_gone');
});

test('pairing: cancelling stops the polling at once', async () => {
  let polls = 0;
  companion((at) => {
    if (at === '/v1/pair/start') return Response.json({ request: 'r1', code: '1234', expires_in: 120 }, { status: 201 });
    polls++;
    return Response.json({ status: 'waiting' }, { status: 202 });
  });
  const controller = new AbortController();
  const pairing = pairWithCompanion(BASE, { onCode: () => setTimeout(() => controller.abort(new Error('cancelled')), 30), signal: controller.signal, pollMs: 5 });
  await assert.rejects(pairing, /cancelled/);
  const after = polls;
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(polls, after, 'no poll after the cancel');
});

/** The real options.html in jsdom, with the pairing control on it and the calls replaced. */
function optionsPage({ pair, check = async () => ({ version: '0.1.0', model: 'citelens-minilm-nli' }) }) {
  const html = readFileSync(path.join(EXTENSION, 'options', 'options.html'), 'utf8');
  const { window } = new JSDOM(html, { url: 'chrome-extension://fklgpffhkpenbggfhkflghdlonombjol/options/options.html' });
  const $ = (id) => window.document.getElementById(id);
  const saved = [];
  const control = pairingControl({
    button: $('pair'),
    cancel: $('pair-cancel'),
    code: $('pair-code'),
    status: $('pair-status'),
    settings: () => ({ companion: BASE, token: '' }),
    save: async (s) => saved.push(s),
    pair,
    check,
  });
  return { window, $, saved, control };
}

function deferred() {
  let resolve, reject;
  const promise = new Promise((a, b) => ((resolve = a), (reject = b)));
  return { promise, resolve, reject };
}

test('options: the button shows the code and the state in words, then saves the token', async () => {
  const token = deferred();
  const { $, saved } = optionsPage({
    pair: async (base, { onCode }) => {
      assert.equal(base, BASE);
      onCode('4729', 120);
      return token.promise;
    },
  });
  assert.equal($('pair').textContent, 'Pair with the companion');
  assert.equal($('pair-status').getAttribute('role'), 'status');
  assert.ok($('pair-code').hidden && $('pair-cancel').hidden);
  $('pair').click();
  await new Promise((r) => setTimeout(r, 0));
  assert.equal($('pair-code').hidden, false);
  assert.equal($('pair-code').textContent, '4 7 2 9');
  assert.equal($('pair-code').getAttribute('aria-label'), 'Pairing code 4 7 2 9');
  assert.equal($('pair-status').dataset.state, 'waiting');
  assert.match($('pair-status').textContent, /terminal now shows a pairing request.*run citelens pair 4729.*expires in 2 minutes/);
  assert.equal($('pair-status').querySelector('code').textContent, 'citelens pair 4729');
  assert.ok($('pair').disabled && !$('pair-cancel').hidden, 'one pairing at a time, and a way out');
  token.resolve('the-token');
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(saved, [{ companion: BASE, token: 'the-token' }]);
  assert.equal($('pair-status').dataset.state, 'paired');
  assert.equal($('pair-status').textContent, 'Paired with CiteLens companion 0.1.0 (citelens-minilm-nli); the token is saved.');
  assert.ok($('pair-code').hidden && !$('pair').disabled && $('pair-cancel').hidden);
});

test('options: cancel and errors say what happened, and save nothing', async () => {
  const { $, saved } = optionsPage({
    pair: (base, { onCode, signal }) =>
      new Promise((resolve, reject) => {
        onCode('1111', 120);
        signal.addEventListener('abort', () => reject(signal.reason));
      }),
  });
  $('pair').click();
  await new Promise((r) => setTimeout(r, 0));
  $('pair-cancel').click();
  await new Promise((r) => setTimeout(r, 0));
  assert.equal($('pair-status').dataset.state, 'cancelled');
  assert.match($('pair-status').textContent, /Pairing cancelled/);
  assert.deepEqual(saved, []);

  const hostile = '<img src=x onerror="alert(1)">';
  const failing = optionsPage({
    pair: async () => {
      throw new CompanionError('rejected', `The companion said ${hostile}`);
    },
  });
  failing.$('pair').click();
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(failing.$('pair-status').dataset.state, 'error');
  assert.equal(failing.$('pair-status').textContent, `The companion said ${hostile}`);
  assert.equal(failing.$('pair-status').querySelector('img'), null, 'messages are text, never markup');
  assert.deepEqual(failing.saved, []);
});

test('options: paired, but a failing connection test is said as such', async () => {
  const { $, saved } = optionsPage({
    pair: async (base, { onCode }) => (onCode('2222', 120), 'tok'),
    check: async () => {
      throw new CompanionError('bad_token', 'The companion did not accept the pairing token (401)');
    },
  });
  $('pair').click();
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(saved.length, 1);
  assert.equal($('pair-status').dataset.state, 'error');
  assert.match($('pair-status').textContent, /^Paired and saved, but the connection test failed: .*401/);
});

test('options: "paired" is said only once the connection test has answered', async () => {
  const checked = deferred();
  const { $ } = optionsPage({ pair: async (base, { onCode }) => (onCode('3333', 120), 'tok'), check: () => checked.promise });
  $('pair').click();
  await new Promise((r) => setTimeout(r, 0));
  assert.equal($('pair-status').dataset.state, 'checking');
  assert.equal($('pair-status').textContent, 'Paired: the token is saved. Checking the connection…');
  assert.ok($('pair').disabled && $('pair-cancel').hidden, 'the token is here: nothing to cancel');
  checked.resolve({ version: '0.1.0', model: 'm' });
  await new Promise((r) => setTimeout(r, 0));
  assert.equal($('pair-status').dataset.state, 'paired');
});
