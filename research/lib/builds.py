"""Judging with another build's companion: a `git worktree` of an older commit beside this one.

Comparing builds (verdict_diff.py, trace_modules.py, trust_probe.py --companion) needs that build's
`companion` imported, and one process imports one. So a tool asked to judge with another tree
starts itself again in a folder that holds links to what that build brings: its `companion`, its
lab code where it has its own (`research/evaluation/`, or `scripts/evaluate.py` before research/
existed), and nothing else. `python -m` puts that folder first on the module search path, and
PYTHONPATH adds this checkout for the rest of `research`.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO

__all__ = ["ROOT", "judges_here", "run_in"]

ROOT = Path(__file__).resolve().parents[2]
# A build's folder, and the file that says the build has its own copy of it.
_BROUGHT = (
    ("companion", "companion/__init__.py"),
    ("research", "research/evaluation/evaluate.py"),
    ("scripts", "scripts/evaluate.py"),
)


def judges_here(tree: Path) -> bool:
    """Whether this process imports its companion from `tree`."""
    spec = importlib.util.find_spec("companion")
    origin = spec.origin if spec else None
    return origin is not None and Path(origin).resolve().parents[1] == tree.resolve()


def run_in(tree: Path, module: str, argv: list[str], stdout: IO[str] | None = None) -> int:
    """`python -m module *argv` with `tree`'s companion; paths in `argv` must be absolute.

    Its child processes (bench.py's `citelens serve`) inherit the folder and the environment, so they
    import the same companion. `stdout`: where its output goes (default: this process's)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    with tempfile.TemporaryDirectory(prefix="citelens-build-") as view:
        for name, mark in _BROUGHT:
            if (tree / mark).is_file():
                (Path(view) / name).symlink_to(tree.resolve() / name, target_is_directory=True)
        command = [sys.executable, "-m", module, *argv]
        return subprocess.run(command, cwd=view, env=env, stdout=stdout, check=False).returncode
