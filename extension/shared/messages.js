/*
 * The one table of messages that cross contexts (Zotero connector habit), and the settings keys.
 *
 * Runs in: the service worker (imported for its side effect), the content scripts (injected as a
 * classic script) and the options page. It assigns to globalThis instead of exporting because
 * chrome.scripting.executeScript cannot inject ES modules, and one file must serve all three.
 */
'use strict';
(function (CL) {
  /**
   * type → who sends it → who answers, and what travels with it.
   * @readonly
   */
  CL.MSG = Object.freeze({
    // background → content. Reply: {kind: 'cleared'} | {kind: 'capture', request} | {kind: 'error', error}
    TOGGLE: 'citelens:toggle',
    // background → content, once per NDJSON line of /v1/verify, in order: {runId, line}
    STREAM_LINE: 'citelens:stream-line',
    // background → content when the stream ended or failed: {runId, error?: UserError}
    STREAM_END: 'citelens:stream-end',
    // content → background: {body} (a verify request, or {result}); reply {audit} | {error}
    EXPORT_AUDIT: 'citelens:export-audit',
    // content → background: the reader chose "Open CiteLens options" in an error message.
    OPEN_OPTIONS: 'citelens:open-options',
    // content → background when the reader closes the overlay, so the page stylesheet goes too.
    CLEARED: 'citelens:cleared',
    // content → background: the reader pressed "Read through my browser".
    // {runId, request, urls}; reply {ok: true} (then STREAM_LINEs of the re-check) | {error: UserError}
    READ_IN_BROWSER: 'citelens:read-in-browser',
    // permit page → background: what to ask for. {id}; reply {origins, hosts} | null (ended)
    PERMIT_DETAILS: 'citelens:permit-details',
    // permit page → background: the reader's answer. {id, granted}
    PERMIT_ANSWER: 'citelens:permit-answer',
  });

  // api.md conventions: other tests write these keys into storage.local directly.
  CL.SETTINGS_KEYS = Object.freeze({ companion: 'companion', token: 'token' });
  CL.DEFAULT_COMPANION = 'http://127.0.0.1:8765';
})((globalThis.CiteLens ??= {}));
