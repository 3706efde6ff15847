// Two local web servers for the end-to-end tests: one serves the engine fixture pages, the
// other the cited articles (each wrapped in a real site's boilerplate). Two origins, because an
// answer page's links to its own host are never sources. `/<fixture>.html?sources=held` cites
// the same articles under /held/, which answer only after HELD_MS: a check still waiting for
// its pages, for tests of what happens meanwhile. `?sources=bare` cites them under /bare/, served
// bare: the article alone in a minimal page, without the site's chrome (issue 36 item 5).
import { createServer } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { FIXTURES, renderFixture } from './fixtures.js';

const ARTICLES = path.join(FIXTURES, 'articles');
const HELD_MS = 30_000; // longer than the companion's fetch timeout: a held page never arrives in time

/** Nav, a cookie banner, related links and a footer around the article, as news sites have. */
function wrapArticle(slug, body) {
  const heading = /<h1>(.*?)<\/h1>/.exec(body);
  const title = heading ? heading[1] : slug;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title} | The Daily Reference</title>
<style>body{font:17px/1.6 Georgia,serif;margin:0;color:#222}nav,footer,.cookie{font:14px system-ui,sans-serif}
nav{background:#111;color:#fff;padding:10px 24px}nav a{color:#fff;margin-right:14px}.cookie{position:fixed;bottom:0;left:0;right:0;background:#f3f3f3;padding:12px 24px;border-top:1px solid #ccc}
article{max-width:680px;margin:24px auto;padding:0 24px}aside{max-width:680px;margin:0 auto;padding:0 24px;color:#555}footer{background:#eee;padding:24px;margin-top:40px}</style></head>
<body>
<nav><a href="/">Home</a><a href="/news">News</a><a href="/science">Science</a><a href="/travel">Travel</a><a href="/subscribe">Subscribe</a></nav>
<div class="cookie" role="dialog">We use cookies to improve your experience and to show personalised ads. By continuing to browse you accept our cookie policy. <button>Accept all</button> <button>Manage choices</button></div>
<article>${body}</article>
<aside><h3>Read next</h3><ul><li><a href="/articles/paris-climate.html">The climate of Paris</a></li><li><a href="/articles/garden-tools.html">Choosing the right pruning shears</a></li><li><a href="/newsletter">Sign up for our newsletter</a></li></ul></aside>
<footer>© 2025 The Daily Reference. All rights reserved. · <a href="/privacy">Privacy</a> · <a href="/terms">Terms</a> · <a href="/contact">Contact us</a></footer>
</body></html>`;
}

/** The article alone: no nav, banner, related links or footer. */
function bareArticle(slug, body) {
  const heading = /<h1>(.*?)<\/h1>/.exec(body);
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${heading ? heading[1] : slug}</title></head>\n<body><article>${body}</article></body></html>`;
}

/** @param {(req: import('node:http').IncomingMessage) => {status: number, type?: string, body: string, delay?: number}} handle */
function listen(handle) {
  const server = createServer((req, res) => {
    const { status, type = 'text/html; charset=utf-8', body, delay = 0 } = handle(req);
    const send = () => {
      if (res.destroyed) return;
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    if (!delay) return send();
    const timer = setTimeout(send, delay);
    res.on('close', () => clearTimeout(timer));
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${server.address().port}` }));
  });
}

export async function startSites() {
  const sources = await listen((req) => {
    const where = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const delay = where.startsWith('/held/') ? HELD_MS : 0;
    const slug = where.replace(/^(\/held|\/bare)?\/articles\//, '');
    const file = path.join(ARTICLES, slug);
    if (!/^[a-z0-9-]+\.html$/.test(slug) || !existsSync(file)) return { status: 404, body: '<h1>Not found</h1>', delay };
    const wrap = where.startsWith('/bare/') ? bareArticle : wrapArticle;
    return { status: 200, body: wrap(slug, readFileSync(file, 'utf8')), delay };
  });
  const engines = await listen((req) => {
    const url = new URL(req.url, 'http://x');
    const name = url.pathname.replace(/^\//, '');
    if (!/^[a-z0-9-]+\.html$/.test(name) || !existsSync(path.join(FIXTURES, name))) return { status: 404, body: 'not found' };
    const variant = url.searchParams.get('sources');
    const origin = variant === 'held' || variant === 'bare' ? `${sources.origin}/${variant}` : sources.origin;
    return { status: 200, body: renderFixture(name, origin) };
  });
  return {
    sources: sources.origin,
    engines: engines.origin,
    // Held pages would keep their connections, and close() waiting, for HELD_MS.
    close: () => Promise.all([sources.server, engines.server].map((s) => new Promise((r) => (s.close(r), s.closeAllConnections())))),
  };
}
