"""The companion as a reader installs it: `python -m build` makes the wheel, `pipx install` puts
it in a venv of its own, and `citelens doctor`, `verify --example`, `serve` and `service install`
run from there, in a temporary folder with a temporary HOME, so nothing comes from the checkout.

Slow (a wheel of ~40 MB, a venv, the real models): run by scripts/test.sh's "packages" step.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from companion import __version__
from companion.model.folder import is_reader
from tests.conftest import free_port

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "dist"
FOLDERS = sorted(p for p in (ROOT / "models").iterdir() if (p / "config.json").is_file())
# A cascade's reader (issue 37) ships in the wheel too, but judges nothing alone: the model that
# names it lists it.
MODELS = [p.name for p in FOLDERS if not is_reader(p)]
READERS = [p.name for p in FOLDERS if is_reader(p)]
MODEL_FILES = ("config.json", "model.onnx", "tokenizer.json", "README.md")


def run(argv, **kwargs) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=600, **kwargs)
    command = shlex.join(map(str, argv))
    assert result.returncode == 0, f"{command} → {result.returncode}\n{result.stdout}{result.stderr}"
    return result


@pytest.fixture(scope="module")
def wheel() -> Path:
    # setuptools packs whatever build/lib holds, files of deleted modules included.
    for stale in [ROOT / "build" / "lib", *(ROOT / "build").glob("bdist.*")]:
        shutil.rmtree(stale, ignore_errors=True)
    run([sys.executable, "-m", "build", "--wheel", "--outdir", DIST, ROOT])
    path = DIST / f"citelens-{__version__}-py3-none-any.whl"
    print(f"\n{path.name}: {path.stat().st_size / 1e6:.1f} MB")
    return path


@dataclass
class Installed:
    citelens: Path  # what pipx put on the PATH
    venv: Path
    home: Path
    env: dict[str, str]

    def __call__(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        argv = [self.citelens, *args]
        if check:
            return run(argv, cwd=self.home, env=self.env)
        return subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=self.home, env=self.env)


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Installed:
    root = tmp_path_factory.mktemp("pipx")
    pipx = {"PIPX_HOME": root / "pipx", "PIPX_BIN_DIR": root / "bin", "PIPX_MAN_DIR": root / "man"}
    # pip keeps this machine's cache and index settings, so the dependencies come from there.
    pipx_env = os.environ | {k: str(v) for k, v in pipx.items()}
    run([sys.executable, "-m", "pipx", "install", wheel], env=pipx_env, cwd=root)
    home = root / "home"
    (home / "runtime").mkdir(parents=True, mode=0o700)
    # Nothing of the checkout's environment: no VIRTUAL_ENV, PYTHONPATH or dev venv on the PATH; and
    # a runtime folder of our own, where no systemd user manager can be reached.
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}
    env["XDG_RUNTIME_DIR"] = str(home / "runtime")
    return Installed(root / "bin" / "citelens", root / "pipx" / "venvs" / "citelens", home, env)


def test_the_wheel_carries_every_module_and_both_models(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    modules = {f"companion/{p.name}" for p in (ROOT / "companion").glob("*.py")}
    assert {n for n in names if n.count("/") == 1 and n.endswith(".py")} == modules
    assert len(MODELS) >= 2
    for model in [p.name for p in FOLDERS]:
        for name in MODEL_FILES:
            assert f"companion/default_models/{model}/{name}" in names
    assert {"companion/shared/url-rules.json", "companion/examples/answer.json"} <= names
    outside = ("tests/", "scripts/", "research/", "extension/", "models/")
    assert not {n for n in names if n.startswith(outside)}


def test_doctor_finds_the_models_inside_the_install(installed):
    out = installed("doctor", "--port", str(free_port())).stdout
    assert out.rstrip().endswith("all good"), out
    site = installed.venv / "lib"
    for model in MODELS:
        line = next(x for x in out.splitlines() if f"model {model} " in x)
        where = line.split(" loads from ", 1)[1].rsplit(" (probe", 1)[0]
        assert Path(where).is_relative_to(site), line
    for reader in READERS:
        assert any(f"with the reader {reader} " in x for x in out.splitlines()), out
    assert str(ROOT) not in out


def test_verify_example_judges_as_the_checkout_does(installed):
    from_wheel = json.loads(installed("verify", "--example", "--json").stdout)
    checkout = run([sys.executable, "-m", "companion.service.cli", "verify", "--example", "--json"], cwd=ROOT)
    from_checkout = json.loads(checkout.stdout)

    def verdicts(result):
        return [(s["text"], s["judgment"], round(s["score"], 4)) for s in result["statements"]]

    assert verdicts(from_wheel) == verdicts(from_checkout)
    assert {s["judgment"] for s in from_wheel["statements"]} >= {"complete_support", "no_citation"}


def test_serve_answers_health_on_127_0_0_1(installed):
    port = free_port()
    server = subprocess.Popen(
        [installed.citelens, "serve", "--port", str(port)],
        cwd=installed.home,
        env=installed.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline, health = time.monotonic() + 120, None
        while health is None and time.monotonic() < deadline and server.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/health", timeout=5) as reply:
                    health = json.loads(reply.read())
            except OSError:
                time.sleep(0.3)
        assert health is not None, f"no health answer (exit {server.poll()})"
        assert health["status"] == "ok" and health["version"] == __version__
        assert health["models"][0]["name"] == health["model"]["name"]
        assert sorted(m["name"] for m in health["models"]) == sorted(MODELS)
    finally:
        server.terminate()
        out, _ = server.communicate(timeout=30)
    assert "pairing token:" in out, out
    assert (installed.home / ".config/citelens/token").is_file()


def test_service_install_runs_the_installed_citelens(installed):
    out = installed("service", "install").stdout
    unit = installed.home / ".config/systemd/user/citelens.service"
    assert f"wrote {unit}" in out and "not started: no systemd user manager here" in out, out
    exec_start = next(x for x in unit.read_text().splitlines() if x.startswith("ExecStart="))
    assert shlex.split(exec_start.removeprefix("ExecStart=")) == [str(installed.citelens), "serve"]
    if analyze := shutil.which("systemd-analyze"):
        result = subprocess.run(
            [analyze, "--user", "verify", unit], capture_output=True, text=True, env=installed.env, timeout=60
        )
        assert (result.returncode, result.stdout + result.stderr) == (0, "")
    assert "nothing was stopped" in installed("service", "uninstall").stdout
    assert not unit.exists()
