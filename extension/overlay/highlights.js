/*
 * The CSS Custom Highlight registry for the overlay (names fixed by docs/api.md):
 * `citelens-<judgment>`, `citelens-contradicted`, `citelens-likely_support` and `citelens-evidence`.
 *
 * Runs in: content scripts. Takes Ranges; where the browser has no Highlight API (Firefox
 * before 140) it does nothing and the badges alone carry the verdicts.
 */
'use strict';
(function (CL) {
  const PREFIX = 'citelens-';
  const NAMES = ['complete_support', 'partial_support', 'no_support', 'inaccessible', 'not_checked', 'no_citation', 'contradicted', 'likely_support', 'evidence'];
  // Overlaps resolve to the higher priority: a shown quote over a verdict, a contradiction over
  // its judgment, likely support over the complete support it is part of.
  const PRIORITY = { contradicted: 1, likely_support: 1, evidence: 2 };

  class Highlights {
    /** @param {Window} win */
    constructor(win) {
      this.win = win;
      const css = /** @type {any} */ (win).CSS;
      this.supported = !!(css && css.highlights && typeof win.Highlight === 'function');
      /** @type {Set<string>} */
      this.owned = new Set();
    }

    /**
     * Replaces the ranges of one highlight.
     * @param {string} name  a judgment, 'contradicted' or 'evidence'
     * @param {Range[]} ranges
     */
    set(name, ranges) {
      if (!this.supported || !NAMES.includes(name)) return;
      const registry = /** @type {any} */ (this.win).CSS.highlights;
      if (!ranges.length) {
        registry.delete(PREFIX + name);
        this.owned.delete(name);
        return;
      }
      const highlight = new /** @type {any} */ (this.win).Highlight(...ranges);
      highlight.priority = PRIORITY[name] || 0;
      registry.set(PREFIX + name, highlight);
      this.owned.add(name);
    }

    clear() {
      for (const name of [...this.owned]) this.set(name, []);
    }
  }

  CL.overlay = Object.assign(CL.overlay || {}, { Highlights, HIGHLIGHT_NAMES: NAMES });
})((globalThis.CiteLens ??= {}));
