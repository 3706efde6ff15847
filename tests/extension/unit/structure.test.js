// Checks that keep the extension's shape true (adapters as data with expected captures, arrows one way: adapters → anchoring ← overlay, lint in CI).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { CONTENT_FILES } from '../../../extension/background/content-files.js';
import { EXTENSION } from '../helpers/fixtures.js';

const manifest = JSON.parse(readFileSync(path.join(EXTENSION, 'manifest.json'), 'utf8'));
const source = (dir) =>
  readdirSync(path.join(EXTENSION, dir)).filter((f) => f.endsWith('.js')).map((f) => [`${dir}/${f}`, readFileSync(path.join(EXTENSION, dir, f), 'utf8')]);

test('the pinned key gives the extension id the companion allows', () => {
  // Chromium: the first 128 bits of SHA-256 over the public key, written with the letters a–p.
  const digest = createHash('sha256').update(Buffer.from(manifest.key, 'base64')).digest('hex').slice(0, 32);
  const id = [...digest].map((h) => String.fromCharCode(97 + parseInt(h, 16))).join('');
  assert.equal(id, 'fklgpffhkpenbggfhkflghdlonombjol');
});

test('the least permissions that work, and one folder for both browsers', () => {
  assert.equal(manifest.manifest_version, 3);
  assert.deepEqual(manifest.permissions.sort(), ['activeTab', 'scripting', 'storage']);
  assert.deepEqual(manifest.host_permissions, ['http://127.0.0.1/*']);
  assert.equal(manifest.background.service_worker, 'background.js');
  assert.deepEqual(manifest.background.scripts, ['background.js']);
  assert.equal(manifest.browser_specific_settings.gecko.id, 'citelens@citelens.dev');
  // 140: the first Firefox (an ESR) that reads data_collection_permissions, which AMO requires.
  assert.ok(parseInt(manifest.browser_specific_settings.gecko.strict_min_version, 10) <= 140);
  assert.ok(!('content_scripts' in manifest), 'scripts are injected on click only');
  assert.ok(!('web_accessible_resources' in manifest), 'nothing of ours is exposed to pages');
  for (const file of [...CONTENT_FILES, 'background.js', manifest.options_ui.page, ...Object.values(manifest.icons)]) {
    assert.ok(existsSync(path.join(EXTENSION, file)), file);
  }
});

test('arrows run one way: adapters → anchoring ← overlay', () => {
  const forbidden = {
    anchoring: /CL\.(adapters|overlay|content|urls)\b|CiteLens\.(adapters|overlay|content)\b/,
    overlay: /CL\.(adapters|anchoring|content|urls)\b|CiteLens\.(adapters|anchoring|content)\b/,
    adapters: /CL\.(overlay|content)\b|CiteLens\.(overlay|content)\b/,
  };
  for (const [dir, pattern] of Object.entries(forbidden)) {
    for (const [file, text] of source(dir)) assert.doesNotMatch(text, pattern, file);
  }
});

test('only the background talks to the companion', () => {
  for (const dir of ['anchoring', 'adapters', 'overlay', 'content']) {
    for (const [file, text] of source(dir)) {
      assert.doesNotMatch(text, /\bfetch\(|XMLHttpRequest|WebSocket/, file);
    }
  }
});

test('page and source text never becomes markup', () => {
  for (const dir of ['overlay', 'content', 'adapters', 'anchoring', 'options']) {
    for (const [file, text] of source(dir)) assert.doesNotMatch(text, /innerHTML|outerHTML|insertAdjacentHTML|document\.write/, file);
  }
});

test('adapters are Zotero-style: a meta header with id, label, target and lastUpdated; selectors as data', () => {
  const adapters = source('adapters').filter(([f]) => !/(core|index|url-hygiene)\.js$/.test(f));
  assert.equal(adapters.length, 7);
  for (const [file, text] of adapters) {
    for (const key of ['id:', 'label:', 'target:', 'lastUpdated:', 'selectors:']) assert.ok(text.includes(key), `${file} ${key}`);
    // Presentational, generated class names (css-1x2y3z, sc-AbC) break with every build.
    assert.doesNotMatch(text, /['"][^'"]*\.(css|sc|jsx)-[a-zA-Z0-9]{4,}/, file);
  }
});

test('files stay small', () => {
  for (const dir of ['.', 'background', 'shared', 'anchoring', 'adapters', 'overlay', 'content', 'options']) {
    for (const [file, text] of source(dir)) assert.ok(text.split('\n').length < 400, `${file}: ${text.split('\n').length} lines`);
  }
});
