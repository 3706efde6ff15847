/*
 * Microsoft Copilot and Bing's Copilot search answers. Runs in: content scripts.
 *
 * Links go through bing.com/ck/a?…&u=a1<base64url>; url-hygiene decodes them. Outbound links
 * are tagged utm_source=copilot.com, which is dropped.
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
    ownHosts: ['bing.com', 'microsoft.com', 'copilot.com', 'microsoftonline.com'],
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
