/*
 * Google AI Mode (`udm=50`). Runs in: content scripts.
 *
 * A conversation of turns (`data-scope-id="turn"`), each answer under `data-subtree="aimc"`.
 * Its source links usually carry `#:~:text=` with the sentence the engine used: kept as a hint
 * for the companion, dropped from the URL it fetches.
 */
'use strict';
(function (CL) {
  const GOOGLE = /(^|\.)google\.[a-z]{2,3}(\.[a-z]{2})?$/;

  CL.adapters.define({
    meta: {
      id: 'google-ai-mode',
      label: 'Google AI Mode',
      engine: 'google-ai-mode',
      target: /^https:\/\/www\.google\.[a-z.]+\/search\?(.*&)?udm=50(&|$)/,
      lastUpdated: '2026-01-20',
    },
    ownHosts: [GOOGLE, 'gstatic.com', 'googleusercontent.com'],
    ownRedirectors: [{ path: /^\/url$/, params: ['q', 'url'] }],
    inlineLinks: true,
    selectors: {
      signature: ['[data-subtree="aimc"]', 'div[data-scope-id="turn"]'],
      containers: ['div[data-scope-id="turn"] [data-subtree="aimc"]', '[data-subtree="aimc"]'],
      citations: ['a[href*=":~:text="]', '[data-subtree="aimc"] [data-icl-uuid]'],
      query: ['div[data-scope-id="turn"] [role="heading"][aria-level="2"]', 'textarea[name="q"]'],
      skip: ['[data-source-column]'],
    },
  });
})((globalThis.CiteLens ??= {}));
