/*
 * The extension's words in the reader's language: WebExtension i18n, `_locales/<lang>/messages.json`
 * (en is the default_locale, and fr). The browser picks the language from its own UI language.
 * Every word the reader sees comes through `t(key, ...substitutions)`; a phrase that depends on a
 * number has one key per plural form (`…_one`, `…_other`) and goes through `plural`.
 *
 * Runs in: everywhere. A classic script: injected first among the content scripts, imported for
 * its effect by the ES modules (background, options, permit), as shared/messages.js is.
 */
'use strict';
(function (CL) {
  /**
   * @typedef {Record<string, {message: string, placeholders?: Record<string, {content: string}>}>} Messages
   *   the shape of a messages.json
   */

  /** @type {Messages|null} where there is no i18n API (node unit tests): the messages to use */
  let fallback = null;

  function api() {
    const g = /** @type {any} */ (globalThis);
    const i18n = (g.browser && g.browser.i18n) || (g.chrome && g.chrome.i18n);
    return i18n && typeof i18n.getMessage === 'function' ? i18n : null;
  }

  /**
   * The message `key` in the reader's language, with $1…$9 (and the named placeholders that
   * stand for them) replaced by `substitutions`. A missing key comes back as the key itself, so
   * that it shows and tests/extension/unit/i18n.test.js names it.
   * @param {string} key @param {...(string|number)} substitutions
   */
  function t(key, ...substitutions) {
    const subs = substitutions.map(String);
    const i18n = api();
    if (i18n) {
      const text = i18n.getMessage(key, subs);
      if (text) return text;
    }
    const entry = fallback && fallback[key];
    return entry ? format(entry, subs) : key;
  }

  /**
   * What the browsers do with a messages.json entry (Chrome's extension_message_bundle,
   * Firefox's ExtensionData.localizeMessage): `$name$` → its placeholder's content, `$n` → the
   * n-th substitution, `$$` → `$`.
   * @param {{message: string, placeholders?: Record<string, {content: string}>}} entry
   * @param {string[]} subs
   */
  function format(entry, subs) {
    /** @type {Record<string, string>} */
    const named = {};
    for (const [name, p] of Object.entries(entry.placeholders || {})) named[name.toLowerCase()] = p.content;
    // One pass, as the browsers do: a substituted value is inserted as it is ("$$" in it stays).
    const numbered = (/** @type {string} */ text) => text.replace(/\$\$|\$(\d)/g, (all, d) => (all === '$$' ? '$' : subs[Number(d) - 1] ?? ''));
    return entry.message.replace(/\$\$|\$([a-z0-9_@]+)\$|\$(\d)/gi, (all, name, digit) => {
      if (all === '$$') return '$';
      if (digit) return subs[Number(digit) - 1] ?? '';
      const content = named[String(name).toLowerCase()];
      return content === undefined ? all : numbered(content);
    });
  }

  /** The language the messages are written in ("en", "fr"): what plural rules and numbers follow. */
  function language() {
    return t('language_tag');
  }

  /**
   * One of two messages by the plural form of `count` in the messages' language: French says
   * "1 phrase" and "0 phrase", English "1 sentence" and "0 sentences".
   * @param {number} count @param {string} one @param {string} other @param {...(string|number)} substitutions
   */
  function plural(count, one, other, ...substitutions) {
    return t(new Intl.PluralRules(language()).select(count) === 'one' ? one : other, ...substitutions);
  }

  /** 0.87 → "87%" in English, "87 %" in French. @param {number} x */
  function percent(x) {
    return new Intl.NumberFormat(language(), { style: 'percent', maximumFractionDigits: 0 }).format(x);
  }

  /**
   * A language's name in the messages' language, from its ISO 639-1 code: "Spanish" in English,
   * "espagnol" in French (Intl.DisplayNames, in Chromium and Firefox). The companion's "und",
   * Latin-script text it could not tell, has a message of its own: Intl names it "root".
   * Where the browser has no name for it, or it is no language code, the code as it came.
   * @param {string} code
   */
  function languageName(code) {
    if (code === 'und') return t('language_name_und');
    try {
      return new Intl.DisplayNames([language()], { type: 'language', fallback: 'code' }).of(code) || code;
    } catch {
      return code;
    }
  }

  /**
   * Writes a message into `el` as text nodes; `backticked` commands become <code>. Never HTML:
   * messages can quote what the companion said.
   * @param {Element} el @param {string} text
   */
  function showText(el, text) {
    const doc = /** @type {Document} */ (el.ownerDocument);
    el.replaceChildren();
    text.split('`').forEach((piece, i) => {
      if (!piece) return;
      if (i % 2) {
        const code = doc.createElement('code');
        code.textContent = piece;
        el.append(code);
      } else {
        el.append(piece);
      }
    });
  }

  /**
   * An extension page's words, filled in at load: `data-i18n="key"` sets the element's text,
   * `data-i18n-aria-label`, `-placeholder` and `-title` set those attributes; `<html lang>` follows.
   * @param {Document} doc
   */
  function localizePage(doc) {
    doc.documentElement.lang = language();
    for (const el of doc.querySelectorAll('[data-i18n]')) showText(el, t(/** @type {string} */ (el.getAttribute('data-i18n'))));
    for (const attr of ['aria-label', 'placeholder', 'title']) {
      for (const el of doc.querySelectorAll(`[data-i18n-${attr}]`)) {
        el.setAttribute(attr, t(/** @type {string} */ (el.getAttribute(`data-i18n-${attr}`))));
      }
    }
  }

  /**
   * Test hook: the messages `t` uses where the browser's i18n API is missing (node unit tests
   * load `_locales/en/messages.json`, or fr to see the French words). Unused in the browser.
   * @param {Messages|null} messages
   */
  function useMessages(messages) {
    fallback = messages;
  }

  CL.i18n = { t, plural, percent, languageName, language, format, showText, localizePage, useMessages };
})((globalThis.CiteLens ??= {}));
