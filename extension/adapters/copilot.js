/*
 * Microsoft Copilot and Bing's Copilot search answers. Runs in: content scripts.
 *
 * Links go through bing.com/ck/a?…&u=a1<base64url>; url-hygiene decodes them. Outbound links
 * are tagged utm_source=copilot.com, which is dropped. An answer about Windows or Office cites
 * Microsoft's documentation: a source like any other; only Copilot's and Bing's pages are not.
 */
'use strict';
(function (CL) {
  CL.adapters.define({
    meta: {
      id: 'copilot',
      label: 'Bing / Copilot',
      engine: 'copilot',
      target: /^https:\/\/(copilot\.microsoft\.com|www\.bing\.com\/(search|chat)|copilot\.cloud\.microsoft)/,
      lastUpdated: '2026-01-20',
    },
    // The app's own hosts only: an answer cites learn.microsoft.com, support.microsoft.com and
    // the rest of microsoft.com like any site (issue 25). cloud.microsoft: the Microsoft 365 apps.
    ownHosts: ['bing.com', 'copilot.microsoft.com', 'copilot.com', 'cloud.microsoft', 'microsoftonline.com'],
    inlineLinks: true,
    selectors: {
      signature: ['[data-testid="ai-message"]'],
      containers: ['[data-testid="ai-message"]', '[data-content="ai-message"]'],
      citations: ['[data-testid="citation-pill"]', 'a[data-citation]', 'sup > a[href]'],
      query: ['[data-testid="user-message"]', '[data-content="user-message"]', 'textarea#userInput'],
      skip: ['[data-testid="message-actions"]'],
    },
  });
})((globalThis.CiteLens ??= {}));
