// Offset mapping: DOM → plain text with markers, and spans → Ranges that hold exactly those characters.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadPage, selectContents } from '../helpers/dom.js';

function mapOf(html, hooks = {}) {
  const page = loadPage(`<!doctype html><body><div id="root">${html}</div></body>`, { url: 'https://example.com/' });
  const root = page.document.getElementById('root');
  return { ...page, root, map: page.CiteLens.anchoring.buildTextMap(root, hooks) };
}

// Values made in the page's realm compare by structure only once copied into this one.
const plain = (value) => JSON.parse(JSON.stringify(value));
const isMarker = (el) => (el.classList.contains('m') ? { marker: el.textContent } : null);

test('blocks become lines, white space folds, br breaks', () => {
  const { map } = mapOf(`
    <h2>  Title </h2>
    <p>One   sentence
       here. <b>Bold</b> word.</p>
    <ul><li>First</li><li>Second<br>line</li></ul>
    <table><tr><td>a</td><td>b</td></tr></table>`);
  assert.equal(map.text, 'Title\nOne sentence here. Bold word.\nFirst\nSecond\nline\na\nb');
});

test('markers leave the text and record where they stood', () => {
  const { map } = mapOf('<p>Paris is big.<sup class="m">1</sup> It has a tower. <span class="m">[2]</span></p><p>Next.<a class="m">3</a></p>', { marker: isMarker });
  assert.equal(map.text, 'Paris is big. It has a tower.\nNext.');
  assert.deepEqual(plain(map.markers.map((m) => [m.offset, m.info.marker])), [[13, '1'], [29, '[2]'], [35, '3']]);
  assert.equal(map.text.slice(0, 13), 'Paris is big.');
});

test('an inline link keeps its words and its marker goes where it ends', () => {
  const { map } = mapOf('<p>Read <a href="#" class="l">the <i>full</i> report</a> today.</p>', {
    marker: (el) => (el.classList.contains('l') ? { keepText: true } : null),
  });
  assert.equal(map.text, 'Read the full report today.');
  assert.deepEqual(plain(map.markers.map((m) => m.offset)), [20]);
});

test('hidden, script and button text is not answer text', () => {
  const { map } = mapOf('<p>Shown.<span hidden>no</span><script>x()</script><button>Copy</button><span style="display:none">no</span><span aria-hidden="true">no</span> Also shown.</p>');
  assert.equal(map.text, 'Shown. Also shown.');
});

test('rangeFor gives Ranges whose text is the span, across elements and blocks', () => {
  const { map } = mapOf('<p>Alpha <b>beta</b> gamma.<sup class="m">1</sup> Delta.</p><ul><li>Epsilon zeta.</li></ul>', { marker: isMarker });
  assert.equal(map.text, 'Alpha beta gamma. Delta.\nEpsilon zeta.');
  const cases = [[0, 17, 'Alpha beta gamma.'], [6, 10, 'beta'], [18, 24, 'Delta.'], [25, 38, 'Epsilon zeta.'], [18, 38, 'Delta.Epsilon zeta.']];
  for (const [start, end, expected] of cases) {
    const range = map.rangeFor(start, end);
    assert.equal(range.toString().replace(/\s+/g, ''), expected.replace(/\s+/g, ''), `[${start}, ${end})`);
  }
  // Spans that start or end on white space or a line break are trimmed to the words.
  assert.equal(map.rangeFor(17, 25).toString(), 'Delta.');
  assert.equal(map.rangeFor(24, 25), null);
});

test('every character maps back to the node and offset it came from', () => {
  const { map } = mapOf('<p>  a  <em>b</em>\n c </p><div>d<span>e</span></div>');
  assert.equal(map.text, 'a b c\nde');
  for (let i = 0; i < map.text.length; i++) {
    if (map.charNode[i] < 0) continue;
    const node = map.nodes[map.charNode[i]];
    const ch = node.data[map.charOffset[i]];
    assert.ok(ch === map.text[i] || (/\s/.test(ch) && map.text[i] === ' '), `char ${i}`);
  }
});

test('a selection clips the text to what is selected', () => {
  const page = loadPage('<!doctype html><body><p id="a">Before.</p><p id="b">Inside <a href="#">link</a> text.</p><p>After.</p></body>', { url: 'https://example.com/' });
  const selection = selectContents(page.window, '#b');
  const map = page.CiteLens.anchoring.buildTextMap(page.document.body, { clip: selection.getRangeAt(0) });
  assert.equal(map.text, 'Inside link text.');
});

test('ranges go stale when the engine replaces the nodes', () => {
  const { map, root } = mapOf('<p>Some text.</p>');
  assert.ok(map.isLive());
  root.replaceChildren(root.ownerDocument.createElement('p'));
  root.firstChild.textContent = 'Some text.';
  assert.ok(!map.isLive());
  assert.equal(map.rangeFor(0, 10), null);
});

test('locate: same position when the quote still matches, else the nearest occurrence', () => {
  const { CiteLens } = mapOf('');
  const { locate, selectorFor } = CiteLens.anchoring;
  const before = 'A cat. A dog. A cat.';
  const selector = selectorFor(before, 14, 20);
  assert.deepEqual(plain(locate(before, selector)), { start: 14, end: 20 });
  assert.deepEqual(plain(locate('New line. A cat. A dog. A cat.', selector)), { start: 24, end: 30 });
  assert.equal(locate('Nothing here.', selector), null);
});
