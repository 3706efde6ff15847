// Firefox ESR with the extension, driven by puppeteer-core over WebDriver BiDi: Debian's build, since test tools cannot download browsers here.
//
// BiDi has no command for an extension's toolbar button, and refuses to navigate a tab to a
// moz-extension:// page. Firefox's `--remote-allow-system-access` lets a BiDi client evaluate
// in the browser window itself (`moz:scope: "chrome"`), and there the test calls the toolbar
// action's own entry point, `browserActionFor(extension).triggerAction(window)`: what a click
// on the button runs, activeTab grant included.
import puppeteer from 'puppeteer-core';
import { EXTENSION } from './fixtures.js';

export const FIREFOX = process.env.FIREFOX_PATH || '/usr/bin/firefox-esr';

/** @param {{prefs?: Record<string, unknown>}} [options]  prefs: Firefox preferences for this profile */
export async function launchFirefox({ prefs = {} } = {}) {
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX,
    headless: true,
    args: ['--remote-allow-system-access'],
    defaultViewport: { width: 1280, height: 900 },
    extraPrefsFirefox: prefs,
  });
  const id = await browser.installExtension(EXTENSION.replace(/\/$/, ''));
  const connection = /** @type {any} */ (browser).connection;

  /** Evaluates `expression` in the browser window's chrome scope. */
  async function chrome(expression) {
    const { result: tree } = await connection.send('browsingContext.getTree', { 'moz:scope': 'chrome' });
    const window = tree.contexts.find((c) => c.url === 'chrome://browser/content/browser.xhtml');
    const { result } = await connection.send('script.evaluate', {
      target: { context: window.context },
      expression,
      awaitPromise: true,
    });
    if (result.type !== 'success') throw new Error(`chrome scope: ${JSON.stringify(result.exceptionDetails || result)}`);
    return result.result.value;
  }

  const extension = `ChromeUtils.importESModule('resource://gre/modules/ExtensionParent.sys.mjs').ExtensionParent`;
  const uuid = await chrome(`${extension}.GlobalManager.getExtension(${JSON.stringify(id)}).uuid`);

  return {
    browser,
    id,
    uuid,
    /** Presses the toolbar button for the page's tab. @param {import('puppeteer-core').Page} page */
    async click(page) {
      await page.bringToFront();
      await chrome(`(() => {
        const E = ${extension};
        E.apiManager.global.browserActionFor(E.GlobalManager.getExtension(${JSON.stringify(id)})).triggerAction(window);
      })()`);
    },
    /** Opens one of the extension's pages in a new tab, as the browser would. @param {string} path */
    async openExtensionPage(path) {
      const url = `moz-extension://${uuid}/${path}`;
      const before = new Set(await browser.pages());
      await chrome(`void (gBrowser.selectedTab = gBrowser.addTab(${JSON.stringify(url)}, {
        triggeringPrincipal: Services.scriptSecurityManager.getSystemPrincipal() }))`);
      // The new tab's page object keeps reporting about:blank for an extension document, so
      // it is found as the new page and asked where it is.
      const deadline = Date.now() + 15_000;
      for (;;) {
        for (const page of await browser.pages()) {
          if (before.has(page)) continue;
          const href = await page.evaluate(() => location.href).catch(() => '');
          if (href === url && (await page.evaluate(() => document.readyState)) === 'complete') return page;
        }
        if (Date.now() > deadline) throw new Error(`${url} did not open`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    close: () => browser.close(),
  };
}

/**
 * Opens the options page, points it at the companion and pastes its token, then presses Test
 * connection and waits for the word that it worked. Returns the options page, still open.
 * @param {{openExtensionPage: (path: string) => Promise<any>}} firefox
 * @param {{base: string, token: string}} companion
 */
export async function pasteToken(firefox, companion) {
  const options = await firefox.openExtensionPage('options/options.html');
  await options.waitForSelector('#companion');
  await options.evaluate(() => (document.getElementById('companion').value = ''));
  await options.type('#companion', companion.base);
  await options.type('#token', companion.token);
  await options.click('#test');
  await options.waitForSelector('#result.ok', { timeout: 15_000 });
  return options;
}
