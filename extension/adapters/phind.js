/*
 * Phind answers. Runs in: content scripts.
 *
 * Older markup numbers its markers ("[2]") and links them to the source list that follows the
 * `.sources-toggle-pill`, so a marker's URL is read from the `.chat-source-link` it points at.
 */
'use strict';
(function (CL) {
  CL.adapters.define({
    meta: {
      id: 'phind',
      label: 'Phind',
      engine: 'phind',
      target: /^https:\/\/(www\.)?phind\.com\//,
      lastUpdated: '2026-01-20',
    },
    ownHosts: ['phind.com'],
    // A marker may point at Phind's blog or docs; its searches, threads and account pages are
    // never sources (issue 25).
    ownPages: [/^https:\/\/(www\.)?phind\.com\/(search|agent|c|chat|settings|account|plans|login|signup)?([/?#]|$)/],
    inlineLinks: true,
    selectors: {
      signature: ['.chat-answer', '[name^="answer-"]', '.sources-toggle-pill'],
      containers: ['.chat-answer', '[name^="answer-"]'],
      citations: ['a[href^="#source-"]', '[data-source-index]'],
      query: ['[name^="question-"]', '.chat-question'],
      skip: ['.sources-toggle-pill', '.chat-sources'],
    },
    /** A marker's URL is that of the numbered source it points at. */
    citationUrls(el) {
      const doc = el.ownerDocument;
      const href = el.getAttribute('href') || '';
      const index = el.getAttribute('data-source-index');
      const source = href.startsWith('#')
        ? doc.getElementById(href.slice(1))
        : doc.querySelectorAll('.chat-source-link')[Number(index) - 1];
      const url = source && source.getAttribute('href');
      return url ? [url] : [];
    },
  });
})((globalThis.CiteLens ??= {}));
