/*
 * Google AI Overview, above the results of a normal search. Runs in: content scripts.
 *
 * The overview is folded until "Show more" is pressed (`aria-controls="m-x-content"`), so the
 * adapter opens it first. Inline link groups (`data-subtree="msc"`) carry the citations, their
 * links wrapped in Google's /url?q= redirector; the source column beside them repeats the same
 * links without positions and is left out of the text.
 */
'use strict';
(function (CL) {
  const GOOGLE = /(^|\.)google\.[a-z]{2,3}(\.[a-z]{2})?$/;

  CL.adapters.define({
    meta: {
      id: 'google-ai-overview',
      label: 'Google AI Overview',
      engine: 'google-ai-overview',
      target: /^https:\/\/www\.google\.[a-z.]+\/search\?(?!.*[?&]udm=50(&|$))/,
      lastUpdated: '2026-01-20',
    },
    ownHosts: [GOOGLE, 'gstatic.com', 'googleusercontent.com'],
    ownRedirectors: [{ path: /^\/url$/, params: ['q', 'url'] }],
    selectors: {
      signature: ['#m-x-content', '[aria-controls="m-x-content"]', '[data-mcpr]'],
      containers: ['#m-x-content', '[data-mcpr]'],
      citations: ['div[data-subtree="msc"]', 'span[data-subtree="msc"]'],
      expand: ['[aria-expanded="false"][aria-controls="m-x-content"]'],
      query: ['textarea[name="q"]', 'input[name="q"]'],
      skip: ['[data-source-column]', '[aria-label="AI Overview sources"]'],
    },
    /** The containers above, and failing those the block under an "AI Overview" heading. */
    candidates(doc) {
      const found = CL.adapters.queryAll(doc, this.selectors.containers);
      if (found.length) return found;
      const headings = [...doc.querySelectorAll('h1, h2, [role="heading"]')].filter(
        (el) => (el.textContent || '').trim() === 'AI Overview',
      );
      return headings.map((h) => h.parentElement).filter((el) => el !== null);
    },
  });
})((globalThis.CiteLens ??= {}));
