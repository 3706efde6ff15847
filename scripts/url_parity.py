"""Runs URLs through both cleaners, companion.text.urls and the extension's url-hygiene.js, and prints
every URL on which they disagree (the shared cases are in tests/fixtures/url-cases.json; this is
for anyone's own URLs, or for generated ones).

    .venv/bin/python -m scripts.url_parity FILE...        # one URL a line
    .venv/bin/python -m scripts.url_parity --random 5000 [--seed 1]

The extension side runs in jsdom (whatwg-url), as the unit tests do; needs `npm ci`. Exits 1 when
any URL disagrees.
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]

from companion.text.urls import normalize_url, text_fragment_hint  # noqa: E402

BASE = "https://www.google.com/search?q=x"
NODE = """
import { readFileSync } from 'node:fs';
import { loadPage } from './tests/extension/helpers/dom.js';
const { CiteLens } = loadPage('<!doctype html><p>x</p>', { url: process.argv[2] });
const urls = JSON.parse(readFileSync(process.argv[1], 'utf8'));
const out = urls.map((u) => {
  const r = CiteLens.urls.normalizeUrl(u, process.argv[2]);
  return r && [r.url, r.hint];
});
process.stdout.write(JSON.stringify(out));
"""

# Pieces that have told the two sides apart before, or could.
HOSTS = [
    "example.org",
    "EXAMPLE.org",
    "Bücher.example",
    "faß.de",
    "xn--bcher-kva.example",
    "127.0.0.1",
    "0x7f.1",
    "2130706433",
    "[::1]",
    "[2001:DB8::0:1]",
    "[::ffff:1.2.3.4]",
    "sub.example.co.uk.",
    "ex%41mple.org",
    "exa_mple.org",
    "☃.net",
    "1.2.3",
    "09.1.1.1",
    "xn--a.com",
    "ＥＸＡＭＰＬＥ.com",
    "example。org",
    "256.1.1.1",
]
PORTS = ["", ":443", ":80", ":8080", ":0443", ":", ":65536", ":x"]
PATHS = [
    "",
    "/",
    "/a/b",
    "/a/./b/../c",
    "/%2e%2E/x",
    "/a b",
    "/ü/ß",
    "/%7e~",
    "/a\\b",
    '/"<>^`{}',
    "/a/..",
    "//x",
    "/%zz",
    "/tab\there",
]
QUERY = [
    "id=1",
    "id=2",
    "utm_source=chatgpt.com",
    "UTM_MEDIUM=x",
    "gclid=abc",
    "gbraid=1",
    "pk_kwd=1",
    "ref=openai",
    "ref=v2",
    "ref=copilot.microsoft.com",
    "source=www.perplexity.ai",
    "src=ChatGPT.COM",
    "q=a+b",
    "q=a%20b",
    "q='x'",
    "q=ü",
    "",
    "=",
    "print",
    "utm%5Fsource=x",
    "x=%zz",
    "x=%E2%82",
    "?",
    "ref=notchatgpt.com",
]
FRAGMENTS = [
    "",
    "#",
    "#top",
    "#section-2",
    "#:~:text=hello%20world",
    "#top:~:text=a,b",
    "#:~:text=pre-,mid,-suf",
    "#:~:text=caf%C3%A9",
    "#:~:text=bad%",
    "#:~:note&text=x",
    "#a b",
    "#:~:text=ü x",
]


def generated(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)

    def one(depth: int) -> str:
        scheme = rng.choice(["https://", "http://", "HTTPS://", "https:/", "https:\\\\", "ftp://"])
        user = rng.choice(["", "", "", "", "u:p@", "@"])
        query = (
            "?" + "&".join(rng.choice(QUERY) for _ in range(rng.randint(0, 4))) if rng.random() < 0.7 else ""
        )
        url = (
            scheme
            + user
            + rng.choice(HOSTS)
            + rng.choice(PORTS)
            + rng.choice(PATHS)
            + query
            + rng.choice(FRAGMENTS)
        )
        if depth < 3 and rng.random() < 0.35:
            inner = one(depth + 1)
            url = rng.choice(
                [
                    "https://www.google.com/url?q=" + quote(inner, safe="") + "&sa=U",
                    "https://news.google.co.uk/url?url=" + quote(inner, safe=":/"),
                    "https://www.bing.com/ck/a?u=a1"
                    + base64.urlsafe_b64encode(inner.encode()).decode().rstrip("="),
                    "https://duckduckgo.com/l/?uddg=" + quote(inner, safe="") + "&rut=x",
                ]
            )
        return url

    return [one(0) for _ in range(count)]


def python_side(url: str) -> list[str] | None:
    try:
        return [normalize_url(url), text_fragment_hint(url)]
    except ValueError:
        return None


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--random", type=int, default=0, help="this many generated URLs")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    urls = [line for f in args.files for line in f.read_text(encoding="utf-8").splitlines() if line.strip()]
    urls += generated(args.random, args.seed)
    with tempfile.NamedTemporaryFile("w", suffix=".json", encoding="utf-8", delete=False) as fh:
        json.dump(urls, fh)
    try:
        result = subprocess.run(
            ["node", "--input-type=module", "-e", NODE, fh.name, BASE],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
    finally:
        Path(fh.name).unlink()
    extension = json.loads(result.stdout)
    disagree = 0
    for url, theirs in zip(urls, extension):
        ours = python_side(url)
        if ours != theirs:
            disagree += 1
            print(f"{url!r}\n  companion: {ours}\n  extension: {theirs}")
    print(f"{disagree} of {len(urls)} URLs disagree")
    return 1 if disagree else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
