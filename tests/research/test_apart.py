"""The product and the laboratory stay apart (issue 61 item 1): the companion never imports the
laboratory or the scripts, scripts/ holds the product's own tools alone, and no module finds its
imports by patching the module search path."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    found |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module and not n.level}
    return found


def test_the_companion_imports_neither_the_laboratory_nor_the_scripts():
    lab = ("research", "scripts")
    offending = {
        str(path.relative_to(ROOT)): sorted(m for m in _imports(path) if m.split(".")[0] in lab)
        for path in (ROOT / "companion").rglob("*.py")
    }
    assert {k: v for k, v in offending.items() if v} == {}


def test_scripts_hold_the_product_tools_alone():
    files = [p for p in (ROOT / "scripts").iterdir() if p.is_file()]
    assert len(files) <= 15, sorted(p.name for p in files)
    assert not [p for p in (ROOT / "scripts").iterdir() if p.is_dir() and p.name != "__pycache__"]


def test_nothing_patches_sys_path():
    patch = "sys" + ".path."  # spelt apart, so that this file does not find itself
    patched = [
        str(path.relative_to(ROOT))
        for folder in ("companion", "research", "scripts", "tests")
        for path in (ROOT / folder).rglob("*.py")
        if patch in path.read_text(encoding="utf-8")
    ]
    assert patched == []
