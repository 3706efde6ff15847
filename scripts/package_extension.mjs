#!/usr/bin/env node
// The store packages of extension/, with Mozilla's web-ext:
//   dist/citelens-chrome-<version>.zip    for the Chrome Web Store
//   dist/citelens-firefox-<version>.zip   for addons.mozilla.org (AMO signs it into an .xpi)
// and web-ext lint of the Firefox package: any error, or a warning not explained below, fails.
//
// extension/ itself stays the one folder both browsers load unpacked, so its manifest carries
// both browsers' keys; each package drops the other browser's (extension/README.md, "Store
// packages", says why each one goes).
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import webExt from 'web-ext';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE = path.join(ROOT, 'extension');
const STAGING = path.join(ROOT, 'build', 'extension');
const DIST = path.join(ROOT, 'dist');
// For people reading the source, not for browsers.
const LEFT_OUT = new Set(['README.md']);

/** Each browser's manifest, from the shared one. */
const TARGETS = {
  chrome(manifest) {
    const m = structuredClone(manifest);
    // The Web Store refuses a manifest with "key" (it gives the item its own key, hence its own
    // id); Chrome warns about browser_specific_settings and ignores background.scripts beside
    // the service worker.
    delete m.key;
    delete m.browser_specific_settings;
    delete m.background.scripts;
    return m;
  },
  firefox(manifest) {
    const m = structuredClone(manifest);
    // Firefox runs background.scripts and ignores service_worker (a web-ext lint warning);
    // "key" is Chromium's extension id, which Firefox never reads.
    delete m.key;
    delete m.background.service_worker;
    return m;
  },
};

// Lint warnings on the Firefox package that are understood and harmless, with the reason.
const EXPLAINED = {
  KEY_FIREFOX_ANDROID_UNSUPPORTED_BY_MIN_VERSION:
    'data_collection_permissions needs Firefox for Android 142; CiteLens needs its companion on the ' +
    'same computer, so Android is not a target (left unticked when uploading to AMO)',
};

function stage(target, manifest) {
  const dir = path.join(STAGING, target);
  rmSync(dir, { recursive: true, force: true });
  cpSync(SOURCE, dir, {
    recursive: true,
    filter: (src) => !LEFT_OUT.has(path.relative(SOURCE, src)) && !path.basename(src).startsWith('.'),
  });
  writeFileSync(path.join(dir, 'manifest.json'), `${JSON.stringify(TARGETS[target](manifest), null, 2)}\n`);
  return dir;
}

async function lint(dir) {
  const result = await webExt.cmd.lint(
    { sourceDir: dir, output: 'none', selfHosted: false, warningsAsErrors: false },
    { shouldExitProgram: false },
  );
  const unexplained = result.warnings.filter((w) => !(w.code in EXPLAINED));
  for (const m of [...result.errors, ...unexplained]) console.error(`  ${m.code}: ${m.message} (${m.file ?? ''})`);
  for (const w of result.warnings.filter((x) => x.code in EXPLAINED)) console.log(`  explained ${w.code}: ${EXPLAINED[w.code]}`);
  console.log(
    `web-ext lint ${path.relative(ROOT, dir)}: ${result.errors.length} errors, ${result.warnings.length} warnings ` +
      `(${unexplained.length} unexplained), ${result.notices.length} notices`,
  );
  return result.errors.length === 0 && unexplained.length === 0;
}

async function main() {
  const manifest = JSON.parse(readFileSync(path.join(SOURCE, 'manifest.json'), 'utf8'));
  mkdirSync(DIST, { recursive: true });
  for (const target of Object.keys(TARGETS)) {
    const dir = stage(target, manifest);
    const filename = `citelens-${target}-${manifest.version}.zip`;
    await webExt.cmd.build(
      { sourceDir: dir, artifactsDir: DIST, filename, overwriteDest: true },
      { shouldExitProgram: false, showReadyMessage: false },
    );
    console.log(`built dist/${filename}`);
  }
  if (!(await lint(path.join(STAGING, 'firefox')))) {
    console.error('web-ext lint: fix the errors above, or explain a harmless warning in scripts/package_extension.mjs');
    process.exit(1);
  }
}

await main();
