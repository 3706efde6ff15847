// Lint for the extension and its tests (style.md habit 9). The content scripts are classic
// scripts (chrome.scripting.executeScript cannot inject modules); the service worker, the
// options page and the tests are ES modules.
import js from '@eslint/js';
import globals from 'globals';

const extensionGlobals = { ...globals.browser, ...globals.webextensions };

export default [
  js.configs.recommended,
  {
    files: ['extension/**/*.js'],
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: extensionGlobals },
  },
  {
    files: ['extension/{shared,anchoring,adapters,overlay,content}/**/*.js'],
    ignores: ['extension/shared/types.js'],
    languageOptions: { sourceType: 'script', globals: extensionGlobals },
  },
  {
    files: ['tests/extension/**/*.js', 'eslint.config.js', 'scripts/*.mjs'],
    // Tests also evaluate code inside pages and the service worker, where chrome.* exists.
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: { ...globals.node, ...globals.browser, ...globals.webextensions } },
  },
  {
    rules: {
      'no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always'],
      'no-implicit-globals': 'error',
      'no-restricted-properties': [
        'error',
        { property: 'innerHTML', message: 'Page and source text is rendered as text (security.md).' },
        { property: 'outerHTML', message: 'Page and source text is rendered as text (security.md).' },
        { property: 'insertAdjacentHTML', message: 'Page and source text is rendered as text (security.md).' },
      ],
    },
  },
];
