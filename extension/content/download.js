/*
 * Saving the audit card (and an answer for a batch audit) from the page: a Blob URL and an anchor with `download`, inside the
 * overlay's shadow root. This needs no `downloads` permission, which would be one more thing
 * to ask every reader for.
 *
 * Runs in: content scripts.
 */
'use strict';
(function (CL) {
  // Long enough for the browser to start reading the blob; revoking at once can cancel it.
  const REVOKE_AFTER_MS = 60_000;

  /**
   * @param {Element} parent  where the temporary anchor may live (not the page's DOM)
   * @param {string} name
   * @param {unknown} data
   */
  function saveJson(parent, name, data) {
    saveText(parent, name, JSON.stringify(data, null, 2) + '\n', 'application/json');
  }

  /**
   * One JSON value on one line, ending in a newline: a line of a JSON Lines file.
   * @param {Element} parent @param {string} name @param {unknown} data
   */
  function saveJsonLine(parent, name, data) {
    saveText(parent, name, JSON.stringify(data) + '\n', 'application/x-ndjson');
  }

  /** @param {Element} parent @param {string} name @param {string} text @param {string} type */
  function saveText(parent, name, text, type) {
    const doc = /** @type {Document} */ (parent.ownerDocument);
    const blob = new Blob([text], { type });
    const href = URL.createObjectURL(blob);
    const anchor = doc.createElement('a');
    anchor.href = href;
    anchor.download = name;
    anchor.hidden = true;
    parent.appendChild(anchor);
    anchor.click();
    anchor.remove();
    setTimeout(() => URL.revokeObjectURL(href), REVOKE_AFTER_MS);
  }

  CL.content = Object.assign(CL.content || {}, { saveJson, saveJsonLine });
})((globalThis.CiteLens ??= {}));
