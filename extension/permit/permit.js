/*
 * The permission page of "Read through my browser": lists the sites, and asks the browser for
 * the host permission in the click on "Allow and read" (permissions.request needs that user
 * gesture, in an extension page; a content script cannot ask). Runs in: an extension page
 * (ES module), opened by the background for one request.
 */
const api = /** @type {typeof chrome} */ (/** @type {any} */ (globalThis).browser || globalThis.chrome);
const { MSG, i18n } = /** @type {any} */ (globalThis).CiteLens;
const { t } = i18n;
i18n.localizePage(document);

const id = new URLSearchParams(location.search).get('id') || '';
const allow = /** @type {HTMLButtonElement} */ (document.getElementById('allow'));
const cancel = /** @type {HTMLButtonElement} */ (document.getElementById('cancel'));
const result = /** @type {HTMLElement} */ (document.getElementById('result'));

/** @type {{origins: string[], hosts: string[]} | null} */
const details = await api.runtime.sendMessage({ type: MSG.PERMIT_DETAILS, id });
if (!details) {
  result.textContent = t('permit_ended');
  allow.disabled = true;
} else {
  const list = /** @type {HTMLElement} */ (document.getElementById('hosts'));
  for (const host of details.hosts) {
    const li = document.createElement('li');
    li.textContent = host;
    list.appendChild(li);
  }
  allow.focus();
}

/** @param {boolean} granted */
async function answer(granted) {
  allow.disabled = cancel.disabled = true;
  await api.runtime.sendMessage({ type: MSG.PERMIT_ANSWER, id, granted });
}

allow.addEventListener('click', () => {
  if (!details) return;
  // Called in the click itself: the browser grants a permission only in a user gesture.
  api.permissions.request({ origins: details.origins }).then(
    (granted) => answer(granted),
    (error) => {
      result.textContent = t('permit_browser_did_not_ask', String(error && error.message ? error.message : error));
      void answer(false);
    },
  );
});
cancel.addEventListener('click', () => void answer(false));
