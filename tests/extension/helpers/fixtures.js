// Engine fixture pages (tests/fixtures/engines/): the templates that both the unit tests and the
// end-to-end tests render, with the origin where the cited pages live filled in.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const FIXTURES = fileURLToPath(new URL('../../fixtures/engines/', import.meta.url));
export const EXTENSION = fileURLToPath(new URL('../../../extension/', import.meta.url));

/** Where the unit tests pretend the cited pages are. */
export const UNIT_SOURCES = 'https://sources.example';

/** @returns {{name: string, fixture: string, url: string, expected: string, select?: string, pageScripts?: boolean}[]} */
export function cases() {
  return JSON.parse(readFileSync(path.join(FIXTURES, 'cases.json'), 'utf8'));
}

/**
 * Fills a fixture's tokens: %SRC% (origin of the cited pages), %ENC:/path% (Google's /url?q=
 * value) and %BING:/path% (Bing's u=a1<base64url, unpadded>).
 * @param {string} name @param {string} origin
 */
export function renderFixture(name, origin) {
  const html = readFileSync(path.join(FIXTURES, name), 'utf8');
  return html
    .replace(/%ENC:([^%]+)%/g, (_, p) => encodeURIComponent(origin + p))
    .replace(/%BING:([^%]+)%/g, (_, p) => 'a1' + Buffer.from(origin + p).toString('base64url'))
    .replaceAll('%SRC%', origin);
}

/** @param {string} name */
export function readExpected(name) {
  return JSON.parse(readFileSync(path.join(FIXTURES, name), 'utf8'));
}
