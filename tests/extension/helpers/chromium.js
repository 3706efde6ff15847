// Debian's Chromium with the unpacked extension, driven by playwright-core: Debian's build, since test tools cannot download browsers here.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { EXTENSION } from './fixtures.js';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const EXTENSION_ID = 'fklgpffhkpenbggfhkflghdlonombjol';

/**
 * @param {{grantHosts?: string[], lang?: string}} [options]  grantHosts: test-only, host patterns
 *   added to a copy of the manifest's host_permissions, so that permissions.request for them
 *   resolves without Chromium's native prompt, which no test driver can press (same key, same
 *   extension id); lang: the browser's UI language ("fr"), which picks the extension's
 *   _locales: Chromium on Linux takes it from --lang and LANGUAGE, and shows it only when its
 *   locale pack is installed (Debian: chromium-l10n)
 */
export async function launchChromium({ grantHosts = [], lang = '' } = {}) {
  const profile = mkdtempSync(path.join(tmpdir(), 'citelens-chromium-'));
  let ext = EXTENSION.replace(/\/$/, '');
  if (grantHosts.length) {
    const copy = path.join(profile, 'extension');
    cpSync(ext, copy, { recursive: true });
    const manifest = JSON.parse(readFileSync(path.join(copy, 'manifest.json'), 'utf8'));
    manifest.host_permissions = [...manifest.host_permissions, ...grantHosts];
    writeFileSync(path.join(copy, 'manifest.json'), JSON.stringify(manifest, null, 2));
    ext = copy;
  }
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    acceptDownloads: true,
    ...(lang ? { locale: lang, env: { ...process.env, LANGUAGE: lang, LANG: `${lang.replace('-', '_')}.UTF-8` } } : {}),
    args: [
      ...(lang ? [`--lang=${lang}`] : []),
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--enable-unsafe-extension-debugging',
      `--disable-extensions-except=${ext}`,
      `--load-extension=${ext}`,
    ],
  });
  const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
  const cdp = await context.browser().newBrowserCDPSession();
  return {
    context,
    worker,
    /** The real toolbar click, with the activeTab grant (CDP Extensions.triggerAction). */
    async click(page) {
      await page.bringToFront();
      const { targetInfos } = await cdp.send('Target.getTargets', { filter: [{ type: 'tab' }] });
      const url = page.url();
      const tab = targetInfos.find((t) => t.url === url);
      if (!tab) throw new Error(`no tab target for ${url}`);
      await cdp.send('Extensions.triggerAction', { id: EXTENSION_ID, targetId: tab.targetId });
    },
    /** Writes the settings the options page would (docs/api.md keys). */
    async settings(values) {
      await worker.evaluate((v) => chrome.storage.local.set(v), values);
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
