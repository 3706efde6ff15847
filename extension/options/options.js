/*
 * Options: the companion's address, pairing (one click, or the token pasted), and a connection
 * test whose result says what to do next. Runs in: the options page (an extension page, ES module).
 */
import { testConnection } from '../background/companion.js';
import { toUserError } from '../background/errors.js';
import { loadSettings, parseCompanionAddress, saveSettings } from '../background/settings.js';
import { pairingControl, showText } from './pairing.js';
import '../shared/i18n.js';

const { t, localizePage } = /** @type {any} */ (globalThis).CiteLens.i18n;
localizePage(document);

const $ = (/** @type {string} */ id) => /** @type {HTMLInputElement} */ (document.getElementById(id));
const form = /** @type {HTMLFormElement} */ (document.getElementById('settings'));
const result = $('result');

/** @param {'ok'|'error'|'busy'} kind @param {string} text */
function say(kind, text) {
  showText(result, kind, text);
}

/** The form's settings, or null after saying what is wrong. */
function read() {
  const parsed = parseCompanionAddress($('companion').value);
  if ('error' in parsed) {
    say('error', parsed.error);
    $('companion').focus();
    return null;
  }
  return { companion: parsed.base, token: $('token').value.trim() };
}

async function save() {
  const settings = read();
  if (!settings) return null;
  await saveSettings(settings);
  $('companion').value = settings.companion;
  return settings;
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  if (await save()) say('ok', t('options_saved'));
});

$('test').addEventListener('click', async () => {
  const settings = await save();
  if (!settings) return;
  say('busy', t('options_testing', settings.companion));
  try {
    const about = await testConnection(settings);
    say('ok', t('options_connected', about.version, about.model));
  } catch (error) {
    say('error', toUserError(error).message);
  }
});

$('show-token').addEventListener('click', () => {
  const shown = $('token').type === 'text';
  $('token').type = shown ? 'password' : 'text';
  $('show-token').textContent = shown ? t('options_show_token') : t('options_hide_token');
  $('show-token').setAttribute('aria-pressed', String(!shown));
});

pairingControl({
  button: /** @type {HTMLButtonElement} */ (document.getElementById('pair')),
  cancel: /** @type {HTMLButtonElement} */ (document.getElementById('pair-cancel')),
  code: $('pair-code'),
  status: $('pair-status'),
  settings: read,
  async save(settings) {
    await saveSettings(settings);
    $('companion').value = settings.companion;
    $('token').value = settings.token;
  },
});

loadSettings().then((settings) => {
  $('companion').value = settings.companion;
  $('token').value = settings.token;
  // Not paired yet: the one thing to do here is the pairing button.
  if (!settings.token) $('pair').focus();
});
