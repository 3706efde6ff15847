/*
 * ChatGPT search answers. Runs in: content scripts.
 *
 * Sources are pill links tagged `?utm_source=chatgpt.com`; a pill reading "Wikipedia +2" hides
 * two more, kept in a hover carousel that is only sometimes in the page. Plain markdown links in
 * the prose are citations too, and their words stay part of the sentence.
 */
'use strict';
(function (CL) {
  CL.adapters.define({
    meta: {
      id: 'chatgpt',
      label: 'ChatGPT search',
      engine: 'chatgpt',
      target: /^https:\/\/(chatgpt\.com|chat\.openai\.com)\//,
      lastUpdated: '2026-01-20',
    },
    ownHosts: ['chatgpt.com', 'openai.com', 'oaiusercontent.com'],
    inlineLinks: true,
    selectors: {
      signature: ['[data-message-author-role="assistant"]', 'article[data-testid^="conversation-turn-"]'],
      containers: [
        'article[data-testid^="conversation-turn-"] [data-message-author-role="assistant"] .markdown.prose',
        '[data-message-author-role="assistant"] .markdown.prose',
        '[data-message-author-role="assistant"] .markdown',
      ],
      citations: ['[data-testid="webpage-citation-pill"]', 'span[data-state] > a[href*="utm_source=chatgpt.com"]'],
      query: ['[data-message-author-role="user"]'],
      skip: ['[data-testid="sources-panel-button"]'],
    },
  });
})((globalThis.CiteLens ??= {}));
