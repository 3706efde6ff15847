/*
 * The toolbar action and the only door to the companion. Runs in: the service worker
 * (Chromium) or the background script (Firefox), as an ES module.
 *
 * Click → inject the content scripts (activeTab grant) → the content side captures the answer
 * and replies with the verify request → POST /v1/verify → each NDJSON line is forwarded to the
 * tab as it arrives, so badges appear while the companion is still working.
 *
 * "Read through my browser" (the overlay's button) → the permit page asks the reader for the
 * host permission of exactly those sites → the pages are read with the reader's browser
 * (background/browser-read.js) → the same answer goes to /v1/verify again with them inline,
 * `via: "browser"`, and the lines replace the tab's verdicts in place.
 */
import './shared/i18n.js';
import './shared/messages.js';
import './shared/url-rules.js';
import './shared/browser-read.js';
import { fetchAudit, health, verifyStream } from './background/companion.js';
import { readPages } from './background/browser-read.js';
import { CompanionError, toUserError } from './background/errors.js';
import { CONTENT_FILES } from './background/content-files.js';
import { loadSettings } from './background/settings.js';

const { MSG, browserRead, i18n } = /** @type {any} */ (globalThis).CiteLens;
const { t } = i18n;
const api = /** @type {typeof chrome} */ (/** @type {any} */ (globalThis).browser || globalThis.chrome);

const PAGE_CSS = ['overlay/page-highlights.css'];
// Chromium ends an idle service worker after 30 s; an extension API call resets that clock
// while a long verification is running.
const KEEPALIVE_MS = 20_000;
// The permit page waits this long for the reader's answer, then counts as refused.
const PERMIT_WAIT_MS = 5 * 60_000;

/** @type {Map<number, AbortController>} the verification running for each tab */
const running = new Map();

api.action.onClicked.addListener((tab) => {
  if (tab.id !== undefined) void run(tab.id);
});

api.runtime.onMessage.addListener((message, sender, sendResponse) => {
  const tabId = sender.tab && sender.tab.id;
  if (message.type === MSG.EXPORT_AUDIT) {
    exportAudit(message.body).then(sendResponse);
    return true;
  }
  if (message.type === MSG.READ_IN_BROWSER && tabId !== undefined) {
    readInBrowser(tabId, message).then(sendResponse);
    return true;
  }
  if (message.type === MSG.PERMIT_DETAILS) {
    const permit = permits.get(message.id);
    sendResponse(permit ? { origins: permit.origins, hosts: permit.hosts } : null);
    return false;
  }
  if (message.type === MSG.PERMIT_ANSWER) permits.get(message.id)?.answer(message.granted ? 'granted' : 'refused');
  if (message.type === MSG.OPEN_OPTIONS) void api.runtime.openOptionsPage();
  if (message.type === MSG.CLEARED && tabId !== undefined) {
    stop(tabId);
    void unstyle(tabId);
  }
  return false;
});

/** One toolbar click on a tab. @param {number} tabId */
async function run(tabId) {
  if (!(await inject(tabId))) return;
  // Whatever this click leads to, a check still streaming into this tab is no longer wanted:
  // the companion stops when its client goes away.
  stop(tabId);
  const reply = await api.tabs.sendMessage(tabId, { type: MSG.TOGGLE });
  if (!reply || reply.kind !== 'capture') {
    await unstyle(tabId);
    return;
  }
  await style(tabId);
  await stream(tabId, reply.runId, reply.request);
}

/**
 * Sends one verify request and forwards its lines to the tab's run.
 * @param {number} tabId @param {string} runId @param {object} request
 */
async function stream(tabId, runId, request) {
  const abort = new AbortController();
  running.set(tabId, abort);
  const send = async (/** @type {object} */ message) => {
    try {
      await api.tabs.sendMessage(tabId, { ...message, runId });
    } catch {
      abort.abort(new Error('the tab went away')); // closed or navigated: nobody to show it to
    }
  };
  const keepalive = setInterval(() => void api.runtime.getPlatformInfo(), KEEPALIVE_MS);
  try {
    const settings = await loadSettings();
    await verifyStream(settings, request, (line) => send({ type: MSG.STREAM_LINE, line }), abort.signal);
    await send({ type: MSG.STREAM_END });
  } catch (error) {
    if (!abort.signal.aborted) await send({ type: MSG.STREAM_END, error: toUserError(error) });
  } finally {
    clearInterval(keepalive);
    if (running.get(tabId) === abort) running.delete(tabId);
  }
}

/** @type {Map<string, {origins: string[], hosts: string[], answer: (a: string) => void}>} open permit pages */
const permits = new Map();

/**
 * "Read through my browser": the reader's permission for exactly these sites, then the pages,
 * then the same answer checked again with them. Replies before the re-check streams in.
 * @param {number} tabId
 * @param {{runId: string, request: any, urls: string[]}} message
 * @returns {Promise<{ok: true} | {error: {code: string, message: string}}>}
 */
async function readInBrowser(tabId, { runId, request, urls }) {
  const settings = await loadSettings();
  let allowPrivate;
  try {
    // Private test pages are read only when the companion runs with --allow-private for them.
    allowPrivate = (await health(settings.companion)).allow_private || [];
  } catch (error) {
    return { error: toUserError(error) };
  }
  const wanted = urls.filter((url) => !browserRead.refusal(url, allowPrivate));
  const origins = browserRead.originPatterns(wanted);
  if (origins.length) {
    const answer = await askPermission(tabId, origins);
    if (answer !== 'granted') {
      const hosts = [...new Set(wanted.map((u) => new URL(u).host))].join(', ');
      const message = answer === 'timeout' ? t('permission_timeout') : t('permission_refused', hosts);
      return { error: { code: 'permission_refused', message } };
    }
  }
  const pages = await readPages(urls, allowPrivate);
  stop(tabId);
  void stream(tabId, runId, { ...request, sources: { ...(request.sources || {}), ...pages } });
  return { ok: true };
}

/**
 * Opens the permit page for these origins and waits for the reader's answer there.
 * @param {number} tabId  the answer's tab, shown again afterwards
 * @param {string[]} origins
 * @returns {Promise<'granted'|'refused'|'closed'|'timeout'>}
 */
async function askPermission(tabId, origins) {
  const id = crypto.randomUUID();
  const hosts = origins.map((o) => o.replace(/\/\*$/, ''));
  /** @type {(a: string) => void} */
  let answer = () => {};
  const answered = new Promise((resolve) => (answer = resolve));
  permits.set(id, { origins, hosts, answer });
  const tab = await api.tabs.create({ url: api.runtime.getURL(`permit/permit.html?id=${id}`) });
  const onRemoved = (/** @type {number} */ closed) => closed === tab.id && answer('closed');
  api.tabs.onRemoved.addListener(onRemoved);
  const timer = setTimeout(() => answer('timeout'), PERMIT_WAIT_MS);
  const keepalive = setInterval(() => void api.runtime.getPlatformInfo(), KEEPALIVE_MS);
  try {
    return /** @type {any} */ (await answered);
  } finally {
    clearTimeout(timer);
    clearInterval(keepalive);
    api.tabs.onRemoved.removeListener(onRemoved);
    permits.delete(id);
    if (tab.id !== undefined) await api.tabs.remove(tab.id).catch(() => {});
    await api.tabs.update(tabId, { active: true }).catch(() => {});
  }
}

/** @param {number} tabId */
function stop(tabId) {
  running.get(tabId)?.abort(new Error('cleared'));
  running.delete(tabId);
}

/**
 * Injects the content scripts once per page. False where the browser forbids scripts (its own
 * pages, the extension store, the PDF viewer): the toolbar button says so instead.
 * @param {number} tabId
 */
async function inject(tabId) {
  try {
    const [probe] = await api.scripting.executeScript({
      target: { tabId },
      func: () => Boolean(/** @type {any} */ (globalThis).CiteLens && /** @type {any} */ (globalThis).CiteLens.controller),
    });
    if (!probe || !probe.result) await api.scripting.executeScript({ target: { tabId }, files: CONTENT_FILES });
    await api.action.setBadgeText({ tabId, text: '' });
    return true;
  } catch (error) {
    await api.action.setBadgeText({ tabId, text: '!' });
    await api.action.setTitle({
      tabId,
      title: t('action_title_forbidden_page', String(error).slice(0, 120)),
    });
    return false;
  }
}

/**
 * The ::highlight() rules go in as a stylesheet of the page's own cascade (the highlighted text
 * is the page's, outside our shadow root). Removed first: a second click must not stack copies,
 * and nothing here remembers across service-worker restarts whether it is there.
 * @param {number} tabId
 */
async function style(tabId) {
  await unstyle(tabId);
  await api.scripting.insertCSS({ target: { tabId }, files: PAGE_CSS });
}

/** @param {number} tabId */
async function unstyle(tabId) {
  await api.scripting.removeCSS({ target: { tabId }, files: PAGE_CSS }).catch(() => {});
}

/** @param {object} body */
async function exportAudit(body) {
  try {
    return { audit: await fetchAudit(await loadSettings(), body) };
  } catch (error) {
    return { error: toUserError(error instanceof CompanionError ? error : new CompanionError('internal', String(error))) };
  }
}
