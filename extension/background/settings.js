/*
 * The extension's settings in storage.local, with the keys fixed by docs/api.md:
 * {"companion": "http://127.0.0.1:8765", "token": "…"}. Runs in: the service worker and the
 * options page.
 */
import '../shared/i18n.js';
import '../shared/messages.js';

const { SETTINGS_KEYS, DEFAULT_COMPANION, i18n } = /** @type {any} */ (globalThis).CiteLens;
const { t } = i18n;
const api = /** @type {typeof chrome} */ (/** @type {any} */ (globalThis).browser || globalThis.chrome);

/**
 * The companion's base URL, or an error message. Only 127.0.0.1: it is the one host this
 * extension may reach (host_permissions), and the companion listens nowhere else.
 * @param {string} value
 * @returns {{base: string} | {error: string}}
 */
export function parseCompanionAddress(value) {
  let url;
  try {
    url = new URL(String(value || '').trim() || DEFAULT_COMPANION);
  } catch {
    return { error: t('address_error_syntax') };
  }
  if (url.protocol !== 'http:' || url.hostname !== '127.0.0.1') {
    return { error: t('address_error_host') };
  }
  if (url.pathname !== '/' || url.search || url.hash || url.username) {
    return { error: t('address_error_path') };
  }
  return { base: url.origin };
}

/** @returns {Promise<{companion: string, token: string}>} */
export async function loadSettings() {
  const stored = await api.storage.local.get([SETTINGS_KEYS.companion, SETTINGS_KEYS.token]);
  const parsed = parseCompanionAddress(stored[SETTINGS_KEYS.companion]);
  return {
    companion: 'base' in parsed ? parsed.base : DEFAULT_COMPANION,
    token: String(stored[SETTINGS_KEYS.token] || '').trim(),
  };
}

/** @param {{companion: string, token: string}} settings */
export async function saveSettings(settings) {
  await api.storage.local.set({
    [SETTINGS_KEYS.companion]: settings.companion,
    [SETTINGS_KEYS.token]: settings.token.trim(),
  });
}
