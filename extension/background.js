/*
 * The toolbar action and the only door to the companion. Runs in: the service worker
 * (Chromium) or the background script (Firefox), as an ES module.
 *
 * Click → inject the content scripts (activeTab grant) → the content side captures the answer
 * and replies with the verify request → POST /v1/verify → each NDJSON line is forwarded to the
 * tab as it arrives, so badges appear while the companion is still working.
 */
import './shared/messages.js';
import { fetchAudit, verifyStream } from './background/companion.js';
import { CompanionError, toUserError } from './background/errors.js';
import { CONTENT_FILES } from './background/content-files.js';
import { loadSettings } from './background/settings.js';

const { MSG } = /** @type {any} */ (globalThis).CiteLens;
const api = /** @type {typeof chrome} */ (/** @type {any} */ (globalThis).browser || globalThis.chrome);

const PAGE_CSS = ['overlay/page-highlights.css'];
// Chromium ends an idle service worker after 30 s; an extension API call resets that clock
// while a long verification is running.
const KEEPALIVE_MS = 20_000;

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
  const abort = new AbortController();
  running.set(tabId, abort);
  const send = async (/** @type {object} */ message) => {
    try {
      await api.tabs.sendMessage(tabId, { ...message, runId: reply.runId });
    } catch {
      abort.abort(new Error('the tab went away')); // closed or navigated: nobody to show it to
    }
  };
  const keepalive = setInterval(() => void api.runtime.getPlatformInfo(), KEEPALIVE_MS);
  try {
    const settings = await loadSettings();
    await verifyStream(settings, reply.request, (line) => send({ type: MSG.STREAM_LINE, line }), abort.signal);
    await send({ type: MSG.STREAM_END });
  } catch (error) {
    if (!abort.signal.aborted) await send({ type: MSG.STREAM_END, error: toUserError(error) });
  } finally {
    clearInterval(keepalive);
    if (running.get(tabId) === abort) running.delete(tabId);
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
      title: `CiteLens cannot read this page: the browser does not let extensions into it (${String(error).slice(0, 120)}).`,
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
