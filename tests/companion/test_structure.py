"""The architecture holds: import directions (style.md habit 4) and small public surfaces."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "companion"
# Dotted names under companion: "judging.judge", "config".
MODULES = sorted(
    ".".join(p.relative_to(PACKAGE).with_suffix("").parts)
    for p in PACKAGE.rglob("*.py")
    if p.name != "__init__.py"
)
# Modules every stage may use: settings, errors, the records and protocols between the stages, and
# what the companion knows of each language (companion/languages/, data read through one record).
SHARED = {"config", "errors", "languages", "records", "typedefs", "versions"}
# The stages, bottom up, and what each may import besides itself and SHARED (the folder tree is
# the pipeline: text → sources / model → judging → pipeline → wire → runtime, and the front ends on
# top: service and batch, each on the runtime, neither importing the other's modules but batch's).
MAY_IMPORT = {
    "text": set(),
    "model": {"text"},  # a claim's quantities respelled before the model reads it (text.quantities)
    "sources": {"text"},
    "judging": {"text", "model.folder"},
    # The pipeline knows each statement's place in the answer, and the model's pool serves the
    # earliest first (model.pool.reading_for): the only part of the model it names.
    "pipeline": {"text", "sources", "judging", "model.pool"},
    "wire": {"text", "model"},
    # What the server and batch audits both build (companion/runtime.py): the wiring below them.
    "runtime": {"text", "sources", "model", "judging", "pipeline", "wire"},
    "batch": {"text", "sources", "model", "judging", "pipeline", "wire", "runtime"},
    "service": {"text", "sources", "model", "judging", "pipeline", "wire", "runtime", "batch"},
}
# Libraries that reach outside the process, and the only modules that may import them.
ONLY = {
    "onnxruntime": {"model.infer"},
    "aiohttp": {"sources.fetch", "service.server", "service.cli"},
    "sqlite3": {"sources.cache", "batch.journal"},
    "ray": {"batch.on_ray"},
    "socket": {"sources.fetch", "sources.addresses", "service.cli", "service.server"},
    "subprocess": {"sources.pdf", "service.autostart", "service.cli"},
}


def _tree(module: str) -> ast.Module:
    path = PACKAGE.joinpath(*module.split(".")).with_suffix(".py")
    return ast.parse(path.read_text(encoding="utf-8"))


def libraries_of(module: str, *, full: bool = False) -> set[str]:
    """What `module` imports from outside the package: top-level names, or `full` dotted ones."""
    names: set[str] = set()
    for node in ast.walk(_tree(module)):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names.add(node.module or "")
    return names if full else {n.split(".")[0] for n in names}


def companion_imports_of(module: str) -> set[str]:
    """The companion modules (dotted, under companion) that `module` imports, relative ones resolved."""
    here = module.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(_tree(module)):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = here[: len(here) - (node.level - 1)]
            target = [*base, *(node.module.split(".") if node.module else [])]
        elif (node.module or "").startswith("companion"):
            target = node.module.split(".")[1:]
        else:
            continue
        dotted = ".".join(target)
        for alias in node.names:  # "from . import autostart" names a module
            child = f"{dotted}.{alias.name}" if dotted else alias.name
            found.add(child if child in MODULES else dotted)
    return {f for f in found if f}


def _stage(module: str) -> str:
    return module.split(".")[0]


def _allowed(importer: str, imported: str) -> bool:
    if imported in SHARED or _stage(imported) == _stage(importer):
        return True
    rules = MAY_IMPORT.get(_stage(importer))
    if rules is None:  # a shared module: only other shared ones, and text (records hold UTF-16 offsets)
        return _stage(imported) == "text"
    return _stage(imported) in rules or imported in rules


@pytest.mark.parametrize("module", MODULES)
def test_every_module_declares_all(module):
    mod = importlib.import_module(f"companion.{module}")
    assert isinstance(getattr(mod, "__all__", None), list), f"companion.{module} lacks __all__"
    for name in mod.__all__:
        assert hasattr(mod, name), f"companion.{module}.__all__ names missing {name}"


@pytest.mark.parametrize("module", MODULES)
def test_each_stage_imports_only_the_stages_below_it(module):
    wrong = sorted(i for i in companion_imports_of(module) if not _allowed(module, i))
    assert not wrong, f"companion.{module} imports {wrong}: against MAY_IMPORT"


def test_the_contract_checker_sees_a_wrong_import():
    assert "sources.pdf" in companion_imports_of("sources.extract")
    assert not _allowed("judging.evidence", "sources.pdf")
    assert not _allowed("text.segment", "judging.meaning")
    assert not _allowed("judging.judge", "model.infer")
    assert _allowed("judging.judge", "model.folder") and _allowed("service.cli", "batch.on_ray")
    # The front ends share the wiring below them, not each other's: batch never imports service.
    assert _allowed("batch.run", "runtime") and _allowed("service.server", "runtime")
    assert not _allowed("batch.run", "service.server") and not _allowed("batch.on_ray", "service.cli")
    assert not _allowed("runtime", "service.server") and not _allowed("runtime", "batch.run")


@pytest.mark.parametrize(("library", "allowed"), sorted(ONLY.items()))
def test_io_libraries_stay_in_their_module(library, allowed):
    users = {m for m in MODULES if library in libraries_of(m)}
    assert users <= allowed, f"{library} imported by {sorted(users - allowed)}"


def test_text_processing_and_judging_do_no_io():
    reaching_out = set(ONLY) | {"urllib.request", "http.client", "httpx", "requests", "multiprocessing"}
    for module in MODULES:
        if _stage(module) in ("text", "judging"):
            assert not libraries_of(module, full=True) & reaching_out, module


def test_torch_and_transformers_stay_out_of_the_runtime():
    for module in MODULES:
        assert not libraries_of(module) & {"torch", "transformers", "optimum"}, module


def test_the_int8_kernel_family_is_read_from_this_cpu():
    # companion.model.cpu runs CPUID itself; /proc/cpuinfo holds the same bits on Linux (outside an emulator).
    from companion.model.cpu import int8_kernel

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
