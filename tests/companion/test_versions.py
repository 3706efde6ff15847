"""The release number, the judging code's fingerprint, and the release step (docs/releasing.md)."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import pytest

import companion
from companion.versions import JUDGE_MODULES, OPERATIONS_MODULES, _code_only, code_fingerprint
from scripts.release import release

ROOT = Path(__file__).resolve().parents[2]


def test_the_judging_code_is_the_one_released_as_this_version():
    assert code_fingerprint(JUDGE_MODULES) == companion.JUDGE_CODE, (
        f"what the companion outputs changed since {companion.__version__} was released: "
        "run `python -m scripts.release NEXT --note '...'` (docs/releasing.md)"
    )


def test_every_module_is_either_judging_or_operations():
    package = ROOT / "companion"
    modules = {p.relative_to(package).with_suffix("").as_posix() for p in package.rglob("*.py")}
    for data in ("judging/rules", "languages"):
        modules |= {p.relative_to(package).as_posix() for p in (package / data).glob("*.json")}
    listed = set(JUDGE_MODULES) | set(OPERATIONS_MODULES)
    assert modules == listed, f"list these in companion/versions.py: {sorted(modules - listed)}"
    assert not set(JUDGE_MODULES) & set(OPERATIONS_MODULES)


CODE = '''"""Module docstring."""
import re  # why re


def f(x):
    """Doc of f, with an é."""
    return x + 1  # the "+1" is why
'''


def test_the_fingerprint_ignores_wording_and_sees_code():
    reworded = CODE.replace("why re", "because").replace(
        "Doc of f, with an é.", "Other words.\n    Two lines."
    )
    assert _code_only(reworded) == _code_only(CODE)
    assert _code_only(CODE.replace("x + 1", "x + 2")) != _code_only(CODE)
    # A string that is not a docstring is code.
    assert _code_only(CODE.replace("return x + 1", "return 'a'")) != _code_only(
        CODE.replace("return x + 1", "return 'b'")
    )
    assert "Doc of f" not in _code_only(CODE) and "why" not in _code_only(CODE)


def _checkout(tmp_path: Path, version: str) -> Path:
    (tmp_path / "companion").mkdir()
    (tmp_path / "extension").mkdir()
    (tmp_path / "companion" / "__init__.py").write_text(f'__version__ = "{version}"\nJUDGE_CODE = "old"\n')
    (tmp_path / "extension" / "manifest.json").write_text(
        json.dumps({"manifest_version": 3, "name": "CiteLens", "version": version}, indent=2)
    )
    (tmp_path / "CHANGELOG.md").write_text(f"# Changes\n\n## {version} (2026-01-01)\n\n- first\n")
    return tmp_path


def test_a_release_writes_version_fingerprint_manifest_and_changelog(tmp_path):
    root = _checkout(tmp_path, "0.4.2")
    release(root, "0.5.0", "Verdicts come from model 0.4.0\nSpans are UTF-16", datetime.date(2026, 12, 1))
    init = (root / "companion" / "__init__.py").read_text()
    assert '__version__ = "0.5.0"' in init
    assert f'JUDGE_CODE = "{code_fingerprint(JUDGE_MODULES)}"' in init
    manifest = json.loads((root / "extension" / "manifest.json").read_text())
    assert manifest["version"] == "0.5.0" and manifest["manifest_version"] == 3
    changelog = (root / "CHANGELOG.md").read_text()
    assert changelog.startswith(
        "# Changes\n\n## 0.5.0 (2026-12-01)\n\n"
        "- Verdicts come from model 0.4.0\n- Spans are UTF-16\n\n## 0.4.2"
    )


@pytest.mark.parametrize("version", ["0.4.2", "0.4.1", "1.0", "v0.5.0"])
def test_a_release_refuses_a_version_that_is_not_after_the_current_one(tmp_path, version):
    root = _checkout(tmp_path, "0.4.2")
    before = (root / "companion" / "__init__.py").read_text()
    with pytest.raises(SystemExit):
        release(root, version, "note", datetime.date(2026, 12, 1))
    assert (root / "companion" / "__init__.py").read_text() == before
