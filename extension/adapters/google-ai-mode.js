/*
 * Google AI Mode (`udm=50`). Runs in: content scripts.
 *
 * A conversation of turns (`data-scope-id="turn"`), each answer under `data-subtree="aimc"`:
 * its main column (`data-container-id="main-col"`) is the answer, the right column and the
 * "N sites" list are source cards. Citations (2026) are buttons with a uuid
 * (`button.vDOt8c[data-icl-uuid]`), resolved through the JSON in `<!--TgQPHd|[...]-->` comments
 * (google-ai-overview.js reads that map); older links carry `#:~:text=`, kept as a hint for
 * the companion and dropped from the URL it fetches.
 */
'use strict';
(function (CL) {
  // Google's app: search, maps, sign-in and consent. Its documentation (support., developers.,
  // cloud.), sites.google.com, books, patents and YouTube are sources like any other (issue 25).
  const GOOGLE = /^((www|accounts|consent|maps|translate|lens|images|news|scholar)\.)?google\.[a-z]{2,3}(\.[a-z]{2})?$/;

  CL.adapters.define({
    meta: {
      id: 'google-ai-mode',
      label: 'Google AI Mode',
      engine: 'google-ai-mode',
      target: /^https:\/\/www\.google\.[a-z.]+\/search\?(.*&)?udm=50(&|$)/,
      lastUpdated: '2026-11-30',
    },
    ownHosts: [GOOGLE, 'gstatic.com', 'googleusercontent.com'],
    ownRedirectors: [{ path: /^\/url$/, params: ['q', 'url'] }],
    // One chip ends a paragraph or list item for all of it (issue 25; seen on saved pages).
    citesBlock: true,
    inlineLinks: true,
    selectors: {
      signature: ['[data-subtree="aimc"]', 'div[data-scope-id="turn"]', '[data-xid="aim-mars-turn-root"]'],
      containers: [
        '[data-subtree="aimc"] [data-container-id="main-col"]',
        'div[data-scope-id="turn"] [data-subtree="aimc"]',
        '[data-subtree="aimc"]',
      ],
      turns: ['[data-scope-id="turn"]'],
      citations: ['a[href*=":~:text="]', '[data-subtree="aimc"] [data-icl-uuid]', 'button[data-icl-uuid]', 'a.PMDqCb[href]'],
      // The question heads its turn ("You said: …", the first words for screen readers only).
      query: [
        'div[data-scope-id="turn"] [role="heading"][aria-level="2"]',
        '[data-xid="aim-mars-turn-root"] [role="heading"][aria-level="2"] > span:last-child',
        'textarea[name="q"]',
      ],
      skip: [
        '[data-source-column]',
        '[data-container-id="rhs-col"]',
        '[data-xid="aim-aside-initial-corroboration-container"]',
        'ul.bTFeG',
        '[data-type="hovc"]',
        // Copy, share and feedback under each answer.
        '[data-xid="Gd7Hsc"]',
      ],
    },
    citationUrls: CL.adapters.googleCitationUrls,
  });
})((globalThis.CiteLens ??= {}));
