/*
 * Saving the audit card from the page: a Blob URL and an anchor with `download`, inside the
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
    const doc = /** @type {Document} */ (parent.ownerDocument);
    const blob = new Blob([JSON.stringify(data, null, 2) + '\n'], { type: 'application/json' });
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

  CL.content = Object.assign(CL.content || {}, { saveJson });
})((globalThis.CiteLens ??= {}));
