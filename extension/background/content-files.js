/*
 * The content scripts, in injection order. Runs in: the service worker; the unit tests load the
 * same list into jsdom, so what is tested is what is injected.
 */

// Injection order matters: each file adds to globalThis.CiteLens what the later ones use, and
// the controller, last, starts listening.
export const CONTENT_FILES = [
  'shared/i18n.js',
  'shared/messages.js',
  'shared/url-rules.js',
  'shared/browser-read.js',
  'anchoring/textmap.js',
  'anchoring/quote.js',
  'adapters/url-hygiene.js',
  'adapters/core.js',
  'adapters/perplexity.js',
  'adapters/chatgpt.js',
  'adapters/google-ai-overview.js',
  'adapters/google-ai-mode.js',
  'adapters/copilot.js',
  'adapters/phind.js',
  'adapters/generic.js',
  'adapters/index.js',
  'overlay/labels.js',
  'overlay/fragment.js',
  'overlay/styles.js',
  'overlay/highlights.js',
  'overlay/badges.js',
  'overlay/visibility.js',
  'overlay/dock.js',
  'overlay/reasons.js',
  'overlay/card.js',
  'overlay/summary-bar.js',
  'overlay/overlay.js',
  'content/request.js',
  'content/download.js',
  'content/controller.js',
];
