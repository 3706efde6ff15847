/*
 * Perplexity answer pages. Runs in: content scripts.
 *
 * Recent builds mark citations with `data-pplx-citation-url` and no <a href> at all; older ones
 * use a.citation[href]. A chip such as "reddit +2" stands for several sources; the extra ones are
 * read from the chip's popover when it is in the page, else only counted.
 */
'use strict';
(function (CL) {
  CL.adapters.define({
    meta: {
      id: 'perplexity',
      label: 'Perplexity',
      engine: 'perplexity',
      target: /^https:\/\/(www\.)?perplexity\.ai\/(search|page)\//,
      lastUpdated: '2026-01-20',
    },
    ownHosts: ['perplexity.ai', 'pplx.ai'],
    selectors: {
      signature: ['[data-pplx-citation-url]', '.max-w-threadContentWidth .citation'],
      // Leaf prose blocks first, the thread column as the catch-all; the chooser counts citations.
      containers: [
        "[class*='prose'][class*='prose-invert']",
        "[id^='markdown-content-']",
        '.max-w-threadContentWidth',
      ],
      citations: ['span.citation', '.citation.inline', 'a.citation[href]', '[data-pplx-citation-url]'],
      query: ["h1[class*='query']", "[class*='group/query']", 'h1'],
      skip: ["[class*='citation-popover']"],
    },
  });
})((globalThis.CiteLens ??= {}));
