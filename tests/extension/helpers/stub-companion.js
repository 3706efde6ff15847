// A stand-in companion for browser tests of the overlay's geometry and words: it answers
// /v1/health and streams /v1/verify lines (docs/api.md) with verdicts the test chooses, at once
// and the same every run. Test-only: what the real model says is the business of the tests
// that start `citelens serve` (helpers/companion.js); here the badges, the card and the summary
// are what is measured, and a model on two busy cores would only make that slow.
import { createServer } from 'node:http';

/**
 * The answer's sentences with their spans, as the companion cuts them closely enough for a
 * test: a run of text up to . ! ? or a line end.
 * @param {string} text
 * @returns {{text: string, span: [number, number]}[]}
 */
export function sentencesOf(text) {
  const out = [];
  for (const m of text.matchAll(/[^.!?\n]+[.!?]*/g)) {
    const lead = m[0].length - m[0].trimStart().length;
    const body = m[0].trim();
    if (body.length < 2) continue;
    out.push({ text: body, span: [m.index + lead, m.index + lead + body.length] });
  }
  return out;
}

/**
 * @param {{verdict?: (s: {index: number, text: string, citations: string[]}) => {judgment: string, reason?: string, contradicted?: boolean, confidence?: string}}} [options]
 *   verdict: each sentence's judgment (and the reason of a not_checked or inaccessible one, and
 *   the `confidence` of a complete support); by default a cited sentence is fully supported and
 *   an uncited one has no citation
 * @returns {Promise<{base: string, token: string, requests: any[], close: () => Promise<void>}>}
 */
export async function startStubCompanion(options = {}) {
  const token = 'stub-token';
  const requests = [];
  const verdict = options.verdict || ((s) => ({ judgment: s.citations.length ? 'complete_support' : 'no_citation' }));
  const server = createServer((req, res) => {
    const send = (status, body, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    if (req.method === 'GET' && req.url === '/v1/health') {
      return send(200, JSON.stringify({ status: 'ok', version: '9.9.9', model: { name: 'stub' } }));
    }
    if (req.method !== 'POST' || req.url !== '/v1/verify') return send(404, JSON.stringify({ error: { message: 'not found' } }));
    if (req.headers['x-citelens-token'] !== token) return send(401, JSON.stringify({ error: { message: 'bad token' } }));
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      const request = JSON.parse(raw);
      requests.push(request);
      send(200, linesFor(request, verdict).map((l) => JSON.stringify(l)).join('\n') + '\n', 'application/x-ndjson');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${server.address().port}`,
    token,
    requests,
    close: () => new Promise((resolve) => (server.close(resolve), server.closeAllConnections())),
  };
}

/** The stream for one request: start, one source line per page, one statement per sentence, summary. */
function linesFor(request, verdict) {
  const text = request.answer.text;
  const sentences = sentencesOf(text);
  const urls = [...new Set(request.citations.map((c) => c.url))];
  const lines = [{ type: 'start', statements: sentences.length, sources: urls.length }];
  for (const url of urls) lines.push({ type: 'source', url, status: 'ok', title: `Page ${urls.indexOf(url) + 1}`, sentences: 5 });
  const counts = { complete_support: 0, partial_support: 0, no_support: 0, inaccessible: 0, not_checked: 0, no_citation: 0 };
  sentences.forEach((s, index) => {
    // A marker stands right after its sentence (offset = the sentence's end, give or take spaces).
    const next = sentences[index + 1];
    const cited = request.citations.filter((c) => c.offset >= s.span[1] && (!next || c.offset < next.span[0]));
    const ids = cited.map((c) => c.id);
    const v = verdict({ index, text: s.text, citations: ids });
    counts[v.judgment] = (counts[v.judgment] || 0) + 1;
    lines.push({
      type: 'statement',
      index,
      text: s.text,
      span: s.span,
      citations: ids,
      judgment: v.judgment,
      ...(v.confidence ? { confidence: v.confidence } : {}),
      contradicted: !!v.contradicted,
      score: v.judgment === 'complete_support' ? 0.9 : 0.1,
      reasons: [],
      per_citation: cited.map((c) => ({
        citation: c.id,
        marker: c.marker,
        url: c.url,
        judgment: v.judgment === 'no_citation' ? 'no_support' : v.judgment,
        ...(v.confidence ? { confidence: v.confidence } : {}),
        score: 0.9,
        irrelevant: false,
        ...(v.reason ? { reason: v.reason } : {}),
        evidence: v.judgment === 'complete_support' || v.judgment === 'partial_support' ? [{ text: s.text, start: 0, end: s.text.length, prefix: '', suffix: '' }] : [],
      })),
      unsupported_assertions: [],
    });
  });
  lines.push({ type: 'summary', citation_recall: 1, citation_precision: 1, counts, elapsed_ms: 1, model: { name: 'stub' } });
  return lines;
}
