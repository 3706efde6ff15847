/*
 * Any other answer page (Brave, You.com, Kagi…), and the fallback when an engine's markup has
 * drifted. Runs in: content scripts.
 *
 * With a selection, the selected text and the links and data-*-url attributes inside it. Without
 * one, only an article holding at least two source links: a guess wider than that would risk
 * checking the wrong text, so the reader is asked to select the answer instead.
 */
'use strict';
(function (CL) {
  CL.adapters.define({
    meta: { id: 'generic', label: 'Any page', engine: 'generic', target: /^https?:\/\//, lastUpdated: '2026-01-20' },
    ownHosts: [],
    inlineLinks: true,
    // One link in an article is a search result or a byline, not an answer with sources.
    minCitations: 2,
    selectors: {
      signature: [],
      // Not main/[role=main]: on a results page it holds every result, and checking those
      // would be checking the wrong text.
      containers: ['article', '[role="article"]'],
      citations: [],
    },
    candidates(doc, hasSelection) {
      const found = CL.adapters.queryAll(doc, this.selectors.containers);
      return hasSelection ? found.concat(doc.body ? [doc.body] : []) : found;
    },
    /** Elements such as Perplexity's that carry a source in a `data-…-url` attribute. */
    isCitation(el) {
      if (el.localName === 'a') return false;
      for (const attr of el.attributes) {
        if (/^data-[\w-]*url$/.test(attr.name) && /^https?:/i.test(attr.value)) return true;
      }
      return false;
    },
  });
})((globalThis.CiteLens ??= {}));
