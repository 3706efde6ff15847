"""`citelens service install|uninstall` (companion/service/autostart.py): the unit and agent files, and
what is asked of the service manager. The manager is a recording fake, except where the real
systemctl is run with no user manager reachable (as in CI), which must be detected and said."""

from __future__ import annotations

import os
import plistlib
import shlex
import shutil
import stat
import subprocess
import sys

import pytest

from companion.errors import ServiceError
from companion.service import autostart as service
from companion.service.cli import main

UNIT = "citelens.service"


class Manager:
    """systemctl / launchctl as seen from the command: records calls, answers each with 0."""

    def __init__(self, fail: str = "", reachable: bool = True):
        self.calls: list[list[str]] = []
        self.fail = fail
        self.reachable = reachable

    def __call__(self, argv):
        argv = list(argv)
        self.calls.append(argv)
        if argv[-1] == "show-environment" and not self.reachable:
            return subprocess.CompletedProcess(argv, 1, "", "Failed to connect to bus: No medium found\n")
        if self.fail and self.fail in argv:
            return subprocess.CompletedProcess(argv, 1, "", "Failed to enable unit: Access denied\n")
        return subprocess.CompletedProcess(argv, 0, "", "")

    def asked(self):
        return [argv[2:] if argv[0] == "systemctl" else argv[1:] for argv in self.calls]


def exec_start(unit: str) -> list[str]:
    line = next(x for x in unit.splitlines() if x.startswith("ExecStart="))
    # systemd's quoting for these words is the shell's double quotes; %% is a literal %, and so is
    # $$ in the arguments (the program's path is never expanded).
    program, *args = (w.replace("%%", "%") for w in shlex.split(line.removeprefix("ExecStart=")))
    return [program, *(a.replace("$$", "$") for a in args)]


def keys(unit: str) -> dict[str, str]:
    return dict(x.split("=", 1) for x in unit.splitlines() if "=" in x and not x.startswith("#"))


@pytest.fixture
def env(tmp_path):
    return {"HOME": str(tmp_path / "home")}


def test_install_writes_a_user_unit_that_runs_this_citelens_and_enables_it(env, tmp_path):
    manager, said = Manager(), []
    command = ["/opt/cite lens/bin/citelens", "serve"]
    service.install(system="linux", run=manager, env=env, command=command, say=said.append)

    path = tmp_path / "home/.config/systemd/user/citelens.service"
    unit = path.read_text()
    assert exec_start(unit) == command
    assert keys(unit) | {"ExecStart": ""} == {
        "Description": keys(unit)["Description"],
        "Type": "exec",
        "ExecStart": "",
        "Restart": "on-failure",
        "RestartSec": "10",
        "WantedBy": "default.target",
    }
    assert manager.asked() == [["show-environment"], ["daemon-reload"], ["enable", UNIT], ["restart", UNIT]]
    assert said[0] == f"wrote {path}" and "enabled and started citelens.service" in said[-1]

    # Idempotent: the same file stays, a running service is left running.
    manager.calls.clear()
    service.install(system="linux", run=manager, env=env, command=command, say=said.append)
    assert path.read_text() == unit
    assert manager.asked() == [["show-environment"], ["daemon-reload"], ["enable", "--now", UNIT]]

    manager.calls.clear()
    service.uninstall(system="linux", run=manager, env=env, say=said.append)
    assert not path.exists()
    assert manager.asked() == [["show-environment"], ["disable", "--now", UNIT], ["daemon-reload"]]
    service.uninstall(system="linux", run=manager, env=env, say=said.append)
    assert said[-1].startswith("no CiteLens service installed") and "nothing to remove" in said[-1]


def test_the_unit_follows_xdg_config_home_and_pins_it_for_the_token(tmp_path):
    config = tmp_path / "my 100% config"
    env = {"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(config)}
    service.install(system="linux", run=Manager(), env=env, command=["/bin/citelens", "serve"], say=print)
    unit = (config / "systemd/user/citelens.service").read_text()
    line = next(x for x in unit.splitlines() if x.startswith("Environment="))
    assert shlex.split(line.removeprefix("Environment="))[0].replace("%%", "%") == f"XDG_CONFIG_HOME={config}"


def test_systemd_analyze_accepts_the_unit(tmp_path):
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed")
    # A real executable in a folder whose name needs quoting and escaping in a unit file.
    program = tmp_path / "odd $dir %n" / "citelens"
    program.parent.mkdir()
    program.write_text("#!/bin/sh\nexit 0\n")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    command = [*service.serve_command(8799, argv0=str(program)), "--model", str(tmp_path / "$HOME 50%")]
    assert command[:4] == [str(program), "serve", "--port", "8799"]
    # The pinned XDG_CONFIG_HOME (an Environment= line) needs quoting too.
    env = {"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "con fig 5%")}
    service.install(system="linux", run=Manager(), env=env, command=command, say=print)
    unit = tmp_path / "con fig 5%/systemd/user/citelens.service"
    assert exec_start(unit.read_text()) == command
    assert "Environment=" in unit.read_text()
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    result = subprocess.run(
        [analyze, "--user", "verify", str(unit)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **env, "XDG_RUNTIME_DIR": str(runtime)},
    )
    # verify exits 0 on lines it ignores; what it says is the verdict.
    assert (result.returncode, result.stdout + result.stderr) == (0, "")


def test_where_no_user_manager_runs_the_unit_is_written_and_the_reader_told(tmp_path, monkeypatch, capsys):
    # The real systemctl, with nowhere to reach a user manager: CI, containers, a root shell.
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    store = "chrome-extension://abcdefghijklmnopabcdefghijklmnop"
    assert main(["service", "install", "--port", "8790", "--allow-origin", store]) == 0
    out = capsys.readouterr().out
    unit = tmp_path / "config/systemd/user/citelens.service"
    assert f"wrote {unit}" in out
    assert "not started: no systemd user manager here" in out
    assert "systemctl --user daemon-reload && systemctl --user enable --now citelens.service" in out
    # pytest is not the citelens script: this interpreter runs the companion's module.
    assert exec_start(unit.read_text()) == [
        sys.executable,
        "-m",
        "companion.service.cli",
        "serve",
        "--port",
        "8790",
        "--allow-origin",
        store,
    ]

    assert main(["service", "install", "--port", "8790", "--allow-origin", store]) == 0
    assert f"unchanged: {unit}" in capsys.readouterr().out

    assert main(["service", "uninstall"]) == 0
    assert "nothing was stopped: no systemd user manager here" in capsys.readouterr().out
    assert not unit.exists()
    assert main(["service", "uninstall"]) == 0
    assert "nothing to remove" in capsys.readouterr().out


def test_a_unit_the_reader_wrote_is_never_replaced_or_removed(env, tmp_path):
    path = tmp_path / "home/.config/systemd/user/citelens.service"
    path.parent.mkdir(parents=True)
    path.write_text("[Service]\nExecStart=/usr/local/bin/citelens serve --port 9000\n")
    with pytest.raises(ServiceError, match="not written by CiteLens"):
        service.install(system="linux", run=Manager(), env=env, command=["/bin/citelens", "serve"])
    with pytest.raises(ServiceError, match="not written by CiteLens"):
        service.uninstall(system="linux", run=Manager(), env=env)
    assert "9000" in path.read_text()


def test_a_failing_systemctl_is_reported(env):
    manager = Manager(fail="enable")
    with pytest.raises(ServiceError, match=r"`systemctl --user enable citelens\.service` failed: .*denied"):
        service.install(system="linux", run=manager, env=env, command=["/bin/citelens", "serve"])


def test_uninstall_without_a_manager_removes_the_enable_link_too(env, tmp_path):
    service.install(system="linux", run=Manager(), env=env, command=["/bin/citelens", "serve"], say=print)
    unit = tmp_path / "home/.config/systemd/user/citelens.service"
    wants = unit.parent / "default.target.wants" / "citelens.service"
    wants.parent.mkdir()
    wants.symlink_to(unit)
    service.uninstall(system="linux", run=Manager(reachable=False), env=env, say=print)
    assert not unit.exists() and not wants.is_symlink()


def test_the_launch_agent_runs_this_citelens_at_login_and_restarts_it_on_failure(env, tmp_path):
    manager, said = Manager(), []
    command = ["/Users/r/.local/bin/citelens", "serve"]
    service.install(system="darwin", run=manager, env=env, command=command, say=said.append)
    path = tmp_path / "home/Library/LaunchAgents/dev.citelens.companion.plist"
    agent = plistlib.loads(path.read_bytes())
    assert agent["Label"] == "dev.citelens.companion"
    assert agent["ProgramArguments"] == command
    assert agent["RunAtLoad"] is True
    assert agent["KeepAlive"] == {"SuccessfulExit": False}
    assert agent["StandardOutPath"] == str(tmp_path / "home/Library/Logs/citelens.log")
    assert "EnvironmentVariables" not in agent
    domain = f"gui/{os.getuid()}"
    assert manager.asked() == [
        ["bootout", f"{domain}/dev.citelens.companion"],
        ["bootstrap", domain, str(path)],
    ]
    manager.calls.clear()
    service.uninstall(system="darwin", run=manager, env=env, say=said.append)
    assert manager.asked() == [["bootout", f"{domain}/dev.citelens.companion"]]
    assert not path.exists()
    service.uninstall(system="darwin", run=manager, env=env, say=said.append)
    assert "nothing to remove" in said[-1]


def test_windows_is_said_to_be_unsupported_with_an_exit_status(monkeypatch, capsys):
    monkeypatch.setattr(sys, "platform", "win32")
    assert main(["service", "install"]) == 1
    assert "does not support Windows yet" in capsys.readouterr().err
    assert main(["service", "uninstall"]) == 1


def test_the_running_citelens_script_is_named_by_its_absolute_path(tmp_path, monkeypatch):
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin/citelens").write_text("#!/bin/sh\n")
    monkeypatch.chdir(tmp_path)
    assert service.serve_command(argv0="bin/citelens") == [str(tmp_path / "bin/citelens"), "serve"]
    assert service.serve_command(argv0="/nowhere/citelens", executable="/py") == [
        "/py",
        "-m",
        "companion.service.cli",
        "serve",
    ]
