"""The store packages scripts/package_extension.mjs makes with web-ext: each carries extension/
whole, with a manifest its browser accepts and every file that manifest names; the Firefox one
is what AMO's linter (web-ext lint) passes.

Run by scripts/test.sh's "packages" step (it needs Node and the npm packages).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXTENSION = ROOT / "extension"
SOURCE_MANIFEST = json.loads((EXTENSION / "manifest.json").read_text(encoding="utf-8"))
VERSION = SOURCE_MANIFEST["version"]
# Known to web-ext lint and explained in extension/README.md ("Store packages").
EXPLAINED_WARNINGS = ["KEY_FIREFOX_ANDROID_UNSUPPORTED_BY_MIN_VERSION"]
# The manifest's strings that name a file of the package.
FILE_NAME = re.compile(r"^[\w./-]+\.(?:js|mjs|html|css|png|svg|json)$")


@pytest.fixture(scope="module")
def packages() -> dict[str, Path]:
    node = shutil.which("node")
    assert node, "node is needed to build the extension packages (scripts/setup.sh --dev)"
    result = subprocess.run(
        [node, "scripts/package_extension.mjs"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr
    print(result.stdout)
    return {target: ROOT / "dist" / f"citelens-{target}-{VERSION}.zip" for target in ("chrome", "firefox")}


def manifest_of(package: Path) -> dict:
    return json.loads(zipfile.ZipFile(package).read("manifest.json"))


def strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


@pytest.mark.parametrize("target", ["chrome", "firefox"])
def test_the_package_is_extension_whole_with_every_file_its_manifest_names(packages, target):
    archive = zipfile.ZipFile(packages[target])
    names = {n for n in archive.namelist() if not n.endswith("/")}
    source = {
        p.relative_to(EXTENSION).as_posix()
        for p in EXTENSION.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(EXTENSION).parts)
    }
    assert names == source - {"README.md"}

    manifest = manifest_of(packages[target])
    named = {s for s in strings(manifest) if FILE_NAME.match(s)}
    assert {"background.js", "options/options.html", "icons/icon-128.png"} <= named
    assert named <= names, f"named by the manifest, missing from the package: {sorted(named - names)}"
    default_locale = f"_locales/{manifest['default_locale']}/messages.json"
    assert default_locale in names
    for locale in sorted(n for n in names if n.endswith("/messages.json")):
        messages = json.loads(archive.read(locale))
        wanted = {m.group(1) for s in strings(manifest) for m in re.finditer(r"__MSG_(\w+)__", s)}
        assert wanted <= set(messages), f"{locale} lacks {sorted(wanted - set(messages))}"


def test_the_chrome_package_carries_no_key_the_web_store_or_chrome_refuses(packages):
    manifest = manifest_of(packages["chrome"])
    # The Web Store refuses "key"; Chrome warns about browser_specific_settings and ignores
    # background.scripts when it has a service worker.
    assert "key" not in manifest and "browser_specific_settings" not in manifest
    assert manifest["background"] == {"service_worker": "background.js", "type": "module"}
    dropped = ("key", "browser_specific_settings", "background")
    rest = {k: v for k, v in SOURCE_MANIFEST.items() if k not in dropped}
    assert {k: v for k, v in manifest.items() if k != "background"} == rest


def test_the_firefox_package_runs_background_scripts_under_its_add_on_id(packages):
    manifest = manifest_of(packages["firefox"])
    assert "key" not in manifest
    assert manifest["background"] == {"scripts": ["background.js"], "type": "module"}
    gecko = manifest["browser_specific_settings"]["gecko"]
    assert gecko == SOURCE_MANIFEST["browser_specific_settings"]["gecko"]
    assert gecko["data_collection_permissions"] == {"required": ["none"]}
    rest = {k: v for k, v in SOURCE_MANIFEST.items() if k not in ("key", "background")}
    assert {k: v for k, v in manifest.items() if k != "background"} == rest


def test_web_ext_lint_passes_the_firefox_package(packages, tmp_path):
    # The package itself, unpacked, as AMO's linter reads it (web-ext lint reads folders).
    zipfile.ZipFile(packages["firefox"]).extractall(tmp_path)
    result = subprocess.run(
        [
            ROOT / "node_modules/.bin/web-ext",
            "lint",
            "--source-dir",
            tmp_path,
            "--output",
            "json",
            "--no-config-discovery",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=os.environ | {"NO_UPDATE_NOTIFIER": "1"},
    )
    report = json.loads(result.stdout)
    messages = [f"{m['code']}: {m['message']}" for m in report["errors"] + report["warnings"]]
    assert report["summary"]["errors"] == 0, messages
    assert [m["code"] for m in report["warnings"]] == EXPLAINED_WARNINGS, messages
