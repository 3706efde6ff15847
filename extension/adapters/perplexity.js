/*
 * Perplexity answer pages. Runs in: content scripts.
 *
 * Recent builds mark citations with `data-pplx-citation-url` and no <a href> at all; older ones
 * use a.citation[href]; 2026 pages have both, or only the inner a[href]. A chip such as
 * "reddit +2" stands for several sources; the extra ones are read from the chip's popover when
 * it is in the page, else only counted.
 *
 * Each turn of a thread is a tab panel ("default", or "thread" in January 2026) holding the
 * question, a deep-research run's steps and the answer (`#markdown-content-*`, or the report
 * panel of a deep research); the steps, and charts and other tool output inside the answer,
 * are not answer text. Answers about Perplexity cite its help centre and blog: those count, its
 * threads and searches do not.
 */
'use strict';
(function (CL) {
  CL.adapters.define({
    meta: {
      id: 'perplexity',
      label: 'Perplexity',
      engine: 'perplexity',
      target: /^https:\/\/(www\.)?perplexity\.ai\/(search|page)\//,
      lastUpdated: '2026-11-30',
    },
    ownHosts: ['perplexity.ai', 'pplx.ai'],
    ownPages: [/^https:\/\/(www\.)?perplexity\.ai\/(search|page|discover|spaces?|library|collections|finance|settings|account)([/?#]|$)/],
    selectors: {
      signature: ['[data-pplx-citation-url]', '.max-w-threadContentWidth .citation'],
      // Leaf prose blocks first, the thread column as the catch-all; the chooser counts citations.
      containers: [
        "[class*='prose'][class*='prose-invert']",
        "[id^='markdown-content-']",
        '.max-w-threadContentWidth',
      ],
      turns: ['[role="tabpanel"][id$="-content-default"]', '[role="tabpanel"][id$="-content-thread"]'],
      citations: ['span.citation', '.citation.inline', 'a.citation[href]', '[data-pplx-citation-url]'],
      query: ["h1[class*='query']", "[class*='group/query']", 'h1'],
      skip: [
        "[class*='citation-popover']",
        // Tool output inside an answer: chart and file cards ("Chart · Code Interpreter Graph").
        "div:has(> [data-testid='asset-card-open-button'])",
        '[data-testid^="asset-card"]',
      ],
    },
  });
})((globalThis.CiteLens ??= {}));
