// The extension's messages for node tests, where there is no browser i18n API: shared/i18n.js
// then falls back to the messages installed here (English, as a browser in English would show).
// Import this before any extension module whose words a test reads.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import '../../../extension/shared/i18n.js';
import { EXTENSION } from './fixtures.js';

/** @param {string} lang */
export function messages(lang) {
  return JSON.parse(readFileSync(path.join(EXTENSION, '_locales', lang, 'messages.json'), 'utf8'));
}

export const EN = messages('en');
export const FR = messages('fr');

/** The CiteLens global of this node process (not of a jsdom window: see dom.js). */
export const i18n = globalThis.CiteLens.i18n;
i18n.useMessages(EN);
