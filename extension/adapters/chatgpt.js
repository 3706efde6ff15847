/*
 * ChatGPT search answers. Runs in: content scripts.
 *
 * Sources are pill links tagged `?utm_source=chatgpt.com`; a pill reading "Wikipedia +2" hides
 * two more, kept in a hover carousel that is only sometimes in the page. Plain markdown links in
 * the prose are citations too, and their words stay part of the sentence. Since 2026 the pills'
 * links no longer carry the tag. An answer about ChatGPT cites openai.com: a source like any
 * other; only the app's own pages are not.
 *
 * A conversation has one turn per message (`conversation-turn-N`); which one is read is
 * core.answerBlocks' rule (the selection's, else those on screen, else the nearest citing one).
 */
'use strict';
(function (CL) {
  CL.adapters.define({
    meta: {
      id: 'chatgpt',
      label: 'ChatGPT search',
      engine: 'chatgpt',
      target: /^https:\/\/(chatgpt\.com|chat\.openai\.com)\//,
      lastUpdated: '2026-11-30',
    },
    ownHosts: ['chatgpt.com', 'chat.openai.com', 'oaiusercontent.com', 'oaistatic.com'],
    ownPages: [/^https:\/\/(chatgpt\.com|chat\.openai\.com)\//],
    inlineLinks: true,
    selectors: {
      signature: ['[data-message-author-role="assistant"]', 'article[data-testid^="conversation-turn-"]'],
      containers: [
        'article[data-testid^="conversation-turn-"] [data-message-author-role="assistant"] .markdown.prose',
        '[data-message-author-role="assistant"] .markdown.prose',
        '[data-message-author-role="assistant"] .markdown',
      ],
      turns: ['article[data-testid^="conversation-turn-"]', '[data-testid^="conversation-turn-"]'],
      citations: ['[data-testid="webpage-citation-pill"]', 'span[data-state] > a[href*="utm_source=chatgpt.com"]'],
      query: ['[data-message-author-role="user"]'],
      skip: ['[data-testid="sources-panel-button"]'],
    },
  });
})((globalThis.CiteLens ??= {}));
