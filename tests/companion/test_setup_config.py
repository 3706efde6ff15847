"""Installing CiteLens prints no setuptools banner (issue 36 item 6.9): the packaging config is
one setuptools reads without a warning, so a reader's `pip install .` shows only what matters."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

_REPO = Path(__file__).resolve().parents[2]

# What pip's build runs first for the wheel: the file list (egg_info), then build_py, which
# checks each data file against the packages. Into tmp_path, so the checkout stays as it is.
_BUILD = """
import sys
from setuptools import setup
sys.argv = ["setup.py", "egg_info", "--egg-base", sys.argv[1], "build_py", "--build-lib", sys.argv[2]]
setup()
"""


def test_building_the_package_warns_about_nothing(tmp_path: Path):
    (tmp_path / "egg").mkdir()
    done = subprocess.run(
        [sys.executable, "-W", "always", "-c", _BUILD, str(tmp_path / "egg"), str(tmp_path / "lib")],
        cwd=_REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    warnings = [line for line in done.stderr.splitlines() if "Warning" in line or "!!" in line]
    assert warnings == [], "\n".join(warnings)
    assert (tmp_path / "lib" / "companion" / "languages" / "en.json").is_file()
