/*
 * The only code that talks to the companion (docs/api.md): health, verify as an NDJSON stream,
 * audit, and the options page's connection test. Runs in: the service worker and the options
 * page (an extension page has the same host permission).
 */
import { CompanionError, MIN_COMPANION_VERSION, versionAtLeast, words } from './errors.js';
import { readLines } from './ndjson.js';
import '../shared/i18n.js';

const { t } = /** @type {any} */ (globalThis).CiteLens.i18n;

const HEALTH_TIMEOUT_MS = 3_000;
// The companion fetches pages (≤ 15 s each) before the first statement line; a stream silent
// for longer than this has hung.
const STREAM_IDLE_MS = 90_000;
const AUDIT_TIMEOUT_MS = 120_000;

/**
 * GET /v1/health. Throws not_running / too_old.
 * @param {string} base
 * @returns {Promise<{status: string, version: string, model?: {name: string}}>}
 */
export async function health(base) {
  let response;
  try {
    response = await fetch(`${base}/v1/health`, { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS), cache: 'no-store' });
  } catch {
    throw new CompanionError('not_running', words.notRunning(base));
  }
  let body = null;
  try {
    body = await response.json();
  } catch {
    // not JSON: handled below
  }
  if (response.status === 404 && !body) throw new CompanionError('too_old', words.tooOld(base, ''), { status: 404 });
  if (!response.ok || !body || body.status !== 'ok') throw new CompanionError('too_old', words.notCompanion(base));
  if (!body.version || !versionAtLeast(String(body.version), MIN_COMPANION_VERSION)) {
    throw new CompanionError('too_old', words.tooOld(base, String(body.version || '')));
  }
  return body;
}

/**
 * Maps a non-2xx answer to the error the reader sees.
 * @param {Response} response @param {string} base
 */
async function failure(response, base) {
  let detail = '';
  let field = '';
  try {
    const body = await response.json();
    detail = String((body && body.error && body.error.message) || '');
    field = String((body && body.error && body.error.field) || '');
  } catch {
    // an error without a JSON body: the status says enough
  }
  const status = response.status;
  if (status === 401) return new CompanionError('bad_token', words.badToken(), { status });
  if (status === 403 || status === 421) return new CompanionError('forbidden', words.forbidden(status, detail), { status });
  if (status === 404 || status === 405) return new CompanionError('too_old', words.tooOld(base, ''), { status });
  if (status >= 500) return new CompanionError('failed', words.failed(status, detail), { status });
  // The error's own `field` (api.md) names the part at fault; older companions only say it in words.
  return new CompanionError('rejected', words.rejected(status, detail, field || undefined), { status });
}

/**
 * @param {{companion: string, token: string}} settings
 * @param {string} path
 * @param {unknown} body
 * @param {AbortSignal} signal
 */
async function post(settings, path, body, signal) {
  if (!settings.token) throw new CompanionError('not_paired', words.notPaired());
  try {
    return await fetch(`${settings.companion}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-CiteLens-Token': settings.token },
      body: JSON.stringify(body),
      signal,
      cache: 'no-store',
    });
  } catch (error) {
    // Refused before any answer: was it ever there?
    await health(settings.companion);
    throw new CompanionError('network', words.network(settings.companion, String(/** @type {Error} */ (error).message || error)));
  }
}

/**
 * POST /v1/verify with `stream: true`, calling `onLine` for each line as it arrives.
 * Resolves when the summary line has come; throws a CompanionError otherwise (with the
 * companion's own reason when its last line is `error`).
 * @param {{companion: string, token: string}} settings
 * @param {object} request  a VerifyRequest (shared/types.js)
 * @param {(line: any) => Promise<void> | void} onLine
 * @param {AbortSignal} [signal]  the reader closed the overlay: stop reading
 */
export async function verifyStream(settings, request, onLine, signal) {
  if (!settings.token) throw new CompanionError('not_paired', words.notPaired());
  await health(settings.companion);
  const controller = new AbortController();
  if (signal) signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
  let idle = setTimeout(() => controller.abort(new Error(t('stream_idle', STREAM_IDLE_MS / 1000))), STREAM_IDLE_MS);
  const touch = () => {
    clearTimeout(idle);
    idle = setTimeout(() => controller.abort(new Error(t('stream_idle', STREAM_IDLE_MS / 1000))), STREAM_IDLE_MS);
  };
  let expected = 0;
  let received = 0;
  let summary = false;
  try {
    const response = await post(settings, '/v1/verify', { ...request, options: { stream: true } }, controller.signal);
    if (!response.ok) throw await failure(response, settings.companion);
    const emit = async (/** @type {any} */ line) => {
      if (line.type === 'error') {
        // The companion's reason for ending early (api.md), instead of "the stream ended early".
        const { code = '', message = '' } = line.error || {};
        const kind = code === 'stopped' ? 'stopped' : 'failed';
        throw new CompanionError(kind, words.streamError(String(code), String(message), received, expected), { received });
      }
      if (line.type === 'start') expected = line.statements;
      if (line.type === 'statement') received++;
      if (line.type === 'summary') summary = true;
      await onLine(line);
    };
    if (!(response.headers.get('content-type') || '').includes('ndjson')) {
      // A companion that ignored `stream` answers with one object: replay it as lines.
      await replayWhole(await response.json(), emit);
    } else if (response.body) {
      await readLines(response.body, emit, touch);
    }
  } catch (error) {
    if (error instanceof CompanionError) throw error;
    const why = String(/** @type {Error} */ (error).message || error);
    if (received) throw new CompanionError('partial', words.partial(received, expected, why), { received });
    throw new CompanionError('network', words.network(settings.companion, why));
  } finally {
    clearTimeout(idle);
  }
  if (!summary) {
    throw new CompanionError('partial', words.partial(received, expected, t('stream_ended_early')), { received });
  }
}

/** @param {any} whole @param {(line: any) => Promise<void>} emit */
async function replayWhole(whole, emit) {
  const statements = whole.statements || [];
  const sources = whole.sources || [];
  await emit({ type: 'start', statements: statements.length, sources: sources.length });
  for (const source of sources) await emit({ type: 'source', ...source });
  for (const statement of statements) await emit({ type: 'statement', ...statement });
  if (whole.summary) await emit({ type: 'summary', ...whole.summary });
}

/**
 * POST /v1/audit: the export with the five-field cards (docs/method.md).
 * @param {{companion: string, token: string}} settings
 * @param {object} body
 */
export async function fetchAudit(settings, body) {
  const response = await post(settings, '/v1/audit', body, AbortSignal.timeout(AUDIT_TIMEOUT_MS));
  if (!response.ok) throw await failure(response, settings.companion);
  return response.json();
}

/**
 * The options page's "Test connection": health first, then one authenticated call. A tiny
 * answer with no citation needs no fetching and no model, so it costs the companion nothing.
 * @param {{companion: string, token: string}} settings
 * @returns {Promise<{version: string, model: string}>}
 */
export async function testConnection(settings) {
  const about = await health(settings.companion);
  const probe = {
    page: { url: 'https://example.invalid/', engine: 'test', title: 'CiteLens connection test', query: '', captured_at: new Date().toISOString() },
    answer: { text: 'CiteLens connection test.' },
    citations: [],
    options: { stream: false },
  };
  const response = await post(settings, '/v1/verify', probe, AbortSignal.timeout(10_000));
  // 400/422 still proves the token was accepted: authentication comes before validation.
  if (!response.ok && (response.status === 401 || response.status === 403 || response.status === 421 || response.status >= 500 || response.status === 404)) {
    throw await failure(response, settings.companion);
  }
  return { version: String(about.version), model: String((about.model && about.model.name) || t('unknown_model')) };
}

// --- one-click pairing (docs/api.md "Pairing") ----------------------------------------------
// The extension page asks, the companion's terminal and the page show the same code, the reader
// confirms with `citelens pair CODE`, and the next poll brings the token. The browser sends this
// extension's Origin by itself; that is what lets these calls go without a token.

const PAIR_POLL_MS = 1_000;
const PAIR_CALL_TIMEOUT_MS = 5_000;

const pairWords = {
  /** @param {string} base */
  noPairing: (base) => t('pair_error_not_supported', base),
  pending: () => t('pair_error_pending'),
  tooMany: () => t('pair_error_too_many'),
  gone: () => t('pair_error_gone'),
};

/**
 * One pairing call without a token; the companion's refusals become CompanionErrors.
 * @param {string} base @param {string} path @param {object} body @param {AbortSignal} [signal]
 */
async function pairCall(base, path, body, signal) {
  const timeout = AbortSignal.timeout(PAIR_CALL_TIMEOUT_MS);
  let response;
  try {
    response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      cache: 'no-store',
    });
  } catch (error) {
    if (signal && signal.aborted) throw error;
    throw new CompanionError('not_running', words.notRunning(base));
  }
  if (response.ok) return { status: response.status, body: await response.json() };
  let code = '';
  try {
    code = String((await response.clone().json()).error.code || '');
  } catch {
    // not the companion's JSON error: the status decides
  }
  const status = response.status;
  if (status === 409 && code === 'pairing_pending') throw new CompanionError('pairing_pending', pairWords.pending(), { status });
  if (status === 429) throw new CompanionError('pairing_limited', pairWords.tooMany(), { status });
  if (status === 404 && code === 'no_such_pairing') throw new CompanionError('pairing_gone', pairWords.gone(), { status });
  if (status === 404 || status === 405) throw new CompanionError('too_old', pairWords.noPairing(base), { status });
  throw await failure(response, base);
}

/**
 * POST /v1/pair/start.
 * @param {string} base
 * @param {AbortSignal} [signal]
 * @returns {Promise<{request: string, code: string, expiresIn: number}>}
 */
export async function startPairing(base, signal) {
  await health(base);
  const { body } = await pairCall(base, '/v1/pair/start', {}, signal);
  return { request: String(body.request), code: String(body.code), expiresIn: Number(body.expires_in) || 0 };
}

/**
 * POST /v1/pair/finish: the token once the reader confirmed the code, else null (still waiting).
 * @param {string} base @param {string} request @param {AbortSignal} [signal]
 * @returns {Promise<string | null>}
 */
export async function finishPairing(base, request, signal) {
  const { status, body } = await pairCall(base, '/v1/pair/finish', { request }, signal);
  if (status === 200 && body.status === 'paired' && typeof body.token === 'string' && body.token) return body.token;
  return null;
}

/**
 * The whole pairing: start, show the code (`onCode`), poll until the reader has confirmed it in
 * the terminal, and return the token. Ends with `pairing_gone` when the request expires.
 * @param {string} base
 * @param {{onCode: (code: string, expiresIn: number) => void, signal?: AbortSignal, pollMs?: number}} hooks
 * @returns {Promise<string>}
 */
export async function pairWithCompanion(base, { onCode, signal, pollMs = PAIR_POLL_MS }) {
  const started = await startPairing(base, signal);
  onCode(started.code, started.expiresIn);
  const deadline = Date.now() + started.expiresIn * 1000;
  for (;;) {
    if (signal && signal.aborted) throw signal.reason;
    const token = await finishPairing(base, started.request, signal);
    if (token) return token;
    if (Date.now() > deadline) throw new CompanionError('pairing_gone', pairWords.gone());
    await new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, pollMs);
      signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
    });
  }
}
