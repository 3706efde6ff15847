"""The architecture holds: import directions (style.md habit 4) and small public surfaces."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "companion"
MODULES = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")
PURE = {
    "segment", "retrieve", "claims", "reading", "combiner", "evidence", "alce", "judge", "extract",
    "capture", "urls", "weburl", "addresses", "records", "export", "utf16",
}
ONLY = {
    "onnxruntime": {"infer"},
    "aiohttp": {"fetch", "server", "cli"},
    "sqlite3": {"cache", "journal"},
    "ray": {"batch_ray"},
}


def imports_of(module: str) -> set[str]:
    tree = ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add(("." if node.level else "") + (node.module or "").split(".")[0])
    return names


@pytest.mark.parametrize("module", MODULES)
def test_every_module_declares_all(module):
    mod = importlib.import_module(f"companion.{module}")
    assert isinstance(getattr(mod, "__all__", None), list), f"companion.{module} lacks __all__"
    for name in mod.__all__:
        assert hasattr(mod, name), f"companion.{module}.__all__ names missing {name}"


@pytest.mark.parametrize(("library", "allowed"), sorted(ONLY.items()))
def test_io_libraries_stay_in_their_module(library, allowed):
    users = {m for m in MODULES if library in imports_of(m)}
    assert users <= allowed, f"{library} imported by {sorted(users - allowed)}"


def test_judging_core_never_imports_the_server_or_the_cli():
    for module in PURE:
        relative = {n for n in imports_of(module) if n.startswith(".")}
        assert not relative & {".server", ".cli", ".runtime", ".fetch", ".cache", ".pipeline"}, module


def test_torch_and_transformers_stay_out_of_the_runtime():
    for module in MODULES:
        assert not imports_of(module) & {"torch", "transformers", "optimum"}, module


def test_the_int8_kernel_family_is_read_from_this_cpu():
    # companion.cpu runs CPUID itself; /proc/cpuinfo holds the same bits on Linux (outside an emulator).
    from companion.cpu import int8_kernel

    flags = set()
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("flags"):
            flags = set(line.split(":", 1)[1].split())
            break
    family = int8_kernel().family
    if "avx512_vnni" in flags and "avx512bw" in flags and "amx_int8" not in flags:
        assert family == "avx512-vnni"
    elif "avx2" in flags and not {"avx512bw", "avx_vnni"} & flags:
        assert family == "avx2"
    else:
        assert family in ("amx", "avx512-vnni", "avx512", "avx-vnni", "avx2", "sse")
