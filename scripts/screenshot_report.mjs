#!/usr/bin/env node
/* global console, process */
// Renders a batch audit's report.html in Debian's Chromium with every network request refused,
// and saves screenshots of its parts, so that a person can look at the charts (and see that the
// file needs nothing from the network: the requests it tried are printed, and there must be none).
//
//   node scripts/screenshot_report.mjs OUT/report.html [SHOTS_DIR]
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const [report, shots = 'test-artifacts/batch-report'] = process.argv.slice(2);
if (!report) {
  console.error('usage: node scripts/screenshot_report.mjs OUT/report.html [SHOTS_DIR]');
  process.exit(2);
}
mkdirSync(shots, { recursive: true });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
});
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
const tried = [];
await page.route('**/*', (route) => {
  const url = route.request().url();
  if (url.startsWith('file:')) return route.continue();
  tried.push(url);
  return route.abort();
});
await page.goto(pathToFileURL(path.resolve(report)).href);
await page.screenshot({ path: path.join(shots, 'report-top.png') });
// The parts a reader looks at first, each whole.
const parts = {
  stacked: '#engines ~ figure >> nth=0',
  table: '#engines ~ table >> nth=0',
  charts: '.charts',
  languages: '#languages ~ table >> nth=0',
  reasons: '#reasons ~ table >> nth=0',
};
for (const [name, selector] of Object.entries(parts)) {
  const part = page.locator(selector);
  if (await part.count()) await part.screenshot({ path: path.join(shots, `report-${name}.png`) });
}
// One click on a figure: the list of the answers behind it, then one answer.
await page.locator('#engines ~ table td a').first().click();
await page.screenshot({ path: path.join(shots, 'report-behind.png') });
await page.locator('section.fig:target ol.behind a').first().click();
await page.screenshot({ path: path.join(shots, 'report-answer.png') });
await browser.close();
console.log(`screenshots in ${shots}; network requests tried: ${tried.length}${tried.length ? ` (${tried.join(', ')})` : ''}`);
process.exit(tried.length ? 1 : 0);
