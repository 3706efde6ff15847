// Loads a page into jsdom together with the extension's content scripts, in the order the
// service worker injects them, so the unit tests exercise exactly what runs in the browser.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { JSDOM } from 'jsdom';
import { CONTENT_FILES } from '../../../extension/background/content-files.js';
import { EXTENSION } from './fixtures.js';
import { EN } from './i18n.js';

// The controller needs the extension APIs; everything before it is plain DOM code.
const FILES = CONTENT_FILES.filter((f) => f !== 'content/controller.js');

/**
 * @param {string} html
 * @param {{url: string, pageScripts?: boolean, messages?: object}} options  pageScripts: run the
 *   fixture's own scripts (Google's "Show more" handler); messages: a messages.json to show the
 *   words in (English by default: jsdom has no i18n API)
 */
export function loadPage(html, options) {
  const dom = new JSDOM(html, {
    url: options.url,
    runScripts: options.pageScripts ? 'dangerously' : 'outside-only',
    pretendToBeVisual: true,
  });
  for (const file of FILES) {
    dom.window.eval(readFileSync(path.join(EXTENSION, file), 'utf8') + `\n//# sourceURL=${file}`);
    if (file === 'shared/i18n.js') dom.window.CiteLens.i18n.useMessages(options.messages || EN);
  }
  return { window: dom.window, document: dom.window.document, CiteLens: dom.window.CiteLens };
}

/**
 * Selects the contents of the element matching `selector`, as a reader would by dragging.
 * @param {Window} window @param {string} selector
 */
export function selectContents(window, selector) {
  const range = window.document.createRange();
  range.selectNodeContents(window.document.querySelector(selector));
  const selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
  return selection;
}
