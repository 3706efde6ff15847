"""Citation URLs: the cases the extension's url-hygiene.test.js runs too, and the one rules file."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
from pathlib import Path

import pytest

from companion.text import urls
from companion.text.urls import normalize_url, text_fragment, text_fragment_hint

ROOT = Path(__file__).resolve().parents[3]
CASES = json.loads((ROOT / "tests" / "fixtures" / "url-cases.json").read_text(encoding="utf-8"))
KEPT = CASES["keep_plain_fragments"]


def check_url(case: dict[str, str | None]) -> None:
    if case["url"] is None:
        with pytest.raises(ValueError):
            normalize_url(case["input"])
        return
    assert normalize_url(case["input"]) == case["url"]
    assert text_fragment_hint(case["input"]) == case["hint"]
    # The companion cleans again what the extension cleaned: the same page must come out.
    assert normalize_url(case["url"]) == case["url"]


@pytest.mark.parametrize("case", CASES["urls"], ids=[c["name"] for c in CASES["urls"]])
def test_shared_url_case(case):
    check_url(case)


@pytest.mark.parametrize("case", CASES["fragment_links"], ids=[c["name"] for c in CASES["fragment_links"]])
def test_shared_fragment_link_case(case):
    assert text_fragment(case["url"], case["quote"]) == case["link"]


@pytest.fixture
def plain_fragments_kept(monkeypatch):
    # Test-only: the other fragment policy, as the extension's test flips CiteLens.urlRules.
    monkeypatch.setattr(urls, "_RULES", dataclasses.replace(urls._RULES, keep_plain_fragments=True))


@pytest.mark.parametrize("case", KEPT["urls"], ids=[c["name"] for c in KEPT["urls"]])
def test_shared_url_case_with_plain_fragments_kept(plain_fragments_kept, case):
    check_url(case)


@pytest.mark.parametrize("case", KEPT["fragment_links"], ids=[c["name"] for c in KEPT["fragment_links"]])
def test_shared_fragment_link_case_with_plain_fragments_kept(plain_fragments_kept, case):
    assert text_fragment(case["url"], case["quote"]) == case["link"]


def test_the_shared_cases_cover_the_issue():
    names = " ".join(c["name"] for c in CASES["urls"])
    assert len(CASES["urls"]) >= 40
    topics = ("DuckDuckGo", "news.google", "Bing", "nested", "IDN", "IPv6", "port", "repeated", "fragment")
    for topic in (*topics, "refused"):
        assert topic in names, topic


def test_the_extension_loads_the_same_rules():
    spec = importlib.util.spec_from_file_location("sync_url_rules", ROOT / "scripts" / "sync_url_rules.py")
    assert spec and spec.loader
    sync = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sync)
    expected = sync.render(sync.JSON_FILE.read_text(encoding="utf-8"))
    assert sync.JS_FILE.read_text(encoding="utf-8") == expected, (
        "extension/shared/url-rules.js differs from url-rules.json: run scripts/sync_url_rules.py"
    )


def test_every_pattern_reads_alike_in_both_languages():
    # Python-only or JavaScript-only syntax would let the two sides match different hosts.
    rules = json.loads((ROOT / "extension" / "shared" / "url-rules.json").read_text(encoding="utf-8"))
    for rule in rules["redirectors"]:
        for pattern in (rule["host"], rule["path"]):
            assert not any(s in pattern for s in ("(?", "\\A", "\\Z", "\\d", "\\w", "\\s", "\\b")), pattern


def test_the_installed_package_carries_the_rules():
    # Installed without the checkout, urls.py reads companion.shared/url-rules.json (package data).
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert "companion.shared" in config["packages"]
    assert (ROOT / config["package-dir"]["companion.shared"] / urls.RULES_FILE).is_file()
    assert urls.RULES_FILE in config["package-data"]["companion.shared"]
