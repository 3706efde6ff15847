"""`citelens service install|uninstall`: start the companion at login, as the reader's own user.

Linux: a systemd user unit (~/.config/systemd/user/citelens.service) enabled in the user's
manager; macOS: a LaunchAgent (~/Library/LaunchAgents/dev.citelens.companion.plist) bootstrapped
into the login session (gui/<uid>); Windows: not supported yet, said so. Both files run
`<this citelens> serve`, so the service uses the install (pipx venv, .venv) it was set up from.

The service manager is reached through a `Run` callable (subprocess by default), so the files
can be written and checked where no manager runs: CI and containers have no systemd --user,
which is detected (`systemctl --user show-environment` fails) and reported, never assumed.
"""

from __future__ import annotations

import os
import plistlib
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from ..config import DEFAULT_PORT
from ..errors import ServiceError

__all__ = [
    "LAUNCHD_LABEL",
    "SYSTEMD_UNIT",
    "Run",
    "install",
    "launchd_plist",
    "launchd_plist_path",
    "serve_command",
    "systemd_unit",
    "systemd_unit_path",
    "uninstall",
]

SYSTEMD_UNIT: Final = "citelens.service"
# Reverse DNS of the domain in the Firefox add-on id (citelens@citelens.dev).
LAUNCHD_LABEL: Final = "dev.citelens.companion"
# Written into every file this module makes: uninstall removes, and install replaces, only those,
# never a unit or agent of the same name that the reader wrote by hand.
MARK: Final = "written by `citelens service install`"
# Between restarts after a crash. systemd's default (100 ms) would spin on a port held by another
# program; 10 s is short enough that a crash is barely noticed.
RESTART_DELAY_S: Final = 10
# A service manager that hangs must not hang the command.
MANAGER_TIMEOUT_S: Final = 30

Run = Callable[[Sequence[str]], subprocess.CompletedProcess[str]]


def _run(argv: Sequence[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(argv), capture_output=True, text=True, timeout=MANAGER_TIMEOUT_S, check=False)


def serve_command(
    port: int = DEFAULT_PORT,
    allow_origins: Sequence[str] = (),
    *,
    argv0: str | None = None,
    executable: str | None = None,
) -> list[str]:
    """The command line that starts this companion: the running `citelens` script by its
    absolute path, or this interpreter with `-m companion.service.cli` when run that way."""
    script = Path(sys.argv[0] if argv0 is None else argv0)
    if script.name == "citelens" and script.is_file():
        # absolute(), not resolve(): pipx's ~/.local/bin/citelens link survives `pipx upgrade`.
        head = [str(script.absolute())]
    else:
        head = [executable or sys.executable, "-m", "companion.service.cli"]
    args = ["serve"] + ([] if port == DEFAULT_PORT else ["--port", str(port)])
    for origin in allow_origins:
        args += ["--allow-origin", origin]
    return head + args


def _pinned_environment(env: Mapping[str, str]) -> dict[str, str]:
    """What the service must share with the reader's shell: the token lives under
    XDG_CONFIG_HOME, and a service manager starts programs without the shell's variables, so a
    reader with their own XDG_CONFIG_HOME would otherwise pair against another token."""
    return {"XDG_CONFIG_HOME": env["XDG_CONFIG_HOME"]} if env.get("XDG_CONFIG_HOME") else {}


def _home(env: Mapping[str, str]) -> Path:
    return Path(env.get("HOME") or Path.home())


# --- Linux: systemd user unit ----------------------------------------------------------------


def systemd_unit_path(env: Mapping[str, str] = os.environ) -> Path:
    """Where systemd --user reads units the user wrote (systemd.unit(5), user unit search path)."""
    base = env.get("XDG_CONFIG_HOME") or str(_home(env) / ".config")
    return Path(base) / "systemd" / "user" / SYSTEMD_UNIT


def _systemd_word(text: str, *, variables: bool) -> str:
    """One word of a unit file line, quoted when it must be (systemd.syntax(7), systemd.service(5))."""
    # % starts a specifier everywhere; $ a variable only in a command's arguments (its path is
    # never expanded: there "$$" would stay two dollars).
    text = text.replace("%", "%%")
    if variables:
        text = text.replace("$", "$$")
    if text and not any(ch in text for ch in " \t\n\"'\\;"):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def systemd_unit(command: Sequence[str], env: Mapping[str, str] = os.environ) -> str:
    lines = [
        f"# CiteLens companion, {MARK}; `citelens service uninstall` removes it.",
        "[Unit]",
        "Description=CiteLens companion (checks AI answers' citations, on 127.0.0.1)",
        "",
        "[Service]",
        # exec: a start whose program cannot be run fails at once instead of looking started.
        "Type=exec",
        "ExecStart=" + " ".join(_systemd_word(arg, variables=i > 0) for i, arg in enumerate(command)),
    ]
    lines += [
        "Environment=" + _systemd_word(f"{k}={v}", variables=False)
        for k, v in _pinned_environment(env).items()
    ]
    lines += [
        "Restart=on-failure",
        f"RestartSec={RESTART_DELAY_S}",
        "",
        "[Install]",
        # The user manager reaches default.target at the user's first login.
        "WantedBy=default.target",
        "",
    ]
    return "\n".join(lines)


def _manager_reason(result: subprocess.CompletedProcess[str]) -> str:
    """The last line the service manager wrote, which is where systemctl and launchctl say why."""
    lines = (result.stderr or result.stdout or "").strip().splitlines()
    return lines[-1] if lines else f"exit status {result.returncode}"


class _Systemd:
    def __init__(self, run: Run):
        self._run = run

    def unreachable(self) -> str:
        """Why no systemd user manager can be reached, or "" when one can."""
        try:
            result = self._run(["systemctl", "--user", "show-environment"])
        except FileNotFoundError:
            return "systemctl is not installed"
        except subprocess.TimeoutExpired:
            return f"systemctl --user did not answer in {MANAGER_TIMEOUT_S} s"
        return "" if result.returncode == 0 else f"systemctl --user: {_manager_reason(result)}"

    def call(self, *args: str) -> None:
        argv = ["systemctl", "--user", *args]
        try:
            result = self._run(argv)
        except subprocess.TimeoutExpired:
            raise ServiceError(f"`{' '.join(argv)}` did not answer in {MANAGER_TIMEOUT_S} s") from None
        if result.returncode != 0:
            raise ServiceError(f"`{' '.join(argv)}` failed: {_manager_reason(result)}")


# --- macOS: LaunchAgent ----------------------------------------------------------------------


def launchd_plist_path(env: Mapping[str, str] = os.environ) -> Path:
    """Where launchd loads a user's agents from at login (launchd.plist(5))."""
    return _home(env) / "Library" / "LaunchAgents" / f"{LAUNCHD_LABEL}.plist"


def _launchd_log(env: Mapping[str, str]) -> Path:
    return _home(env) / "Library" / "Logs" / "citelens.log"


def launchd_plist(command: Sequence[str], env: Mapping[str, str] = os.environ) -> bytes:
    log = str(_launchd_log(env))
    agent: dict[str, object] = {
        "Label": LAUNCHD_LABEL,
        "Comment": f"CiteLens companion, {MARK}",
        "ProgramArguments": list(command),
        "RunAtLoad": True,
        # launchd.plist(5): relaunched when it exits with an error, as systemd's on-failure.
        "KeepAlive": {"SuccessfulExit": False},
        "ThrottleInterval": RESTART_DELAY_S,
        "StandardOutPath": log,
        "StandardErrorPath": log,
    }
    if pinned := _pinned_environment(env):
        agent["EnvironmentVariables"] = pinned
    return plistlib.dumps(agent)


# --- install / uninstall ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Written:
    path: Path
    changed: bool  # False: the same file was already there


def _write(path: Path, content: bytes) -> _Written:
    if path.exists():
        old = path.read_bytes()
        if MARK.encode() not in old:
            raise ServiceError(
                f"{path} exists and was not written by CiteLens; move it away (or keep using it) "
                "and run `citelens service install` again"
            )
        if old == content:
            return _Written(path, changed=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(content)
    tmp.replace(path)
    return _Written(path, changed=True)


def _ours(path: Path) -> bool:
    if not path.exists():
        return False
    if MARK.encode() not in path.read_bytes():
        raise ServiceError(f"{path} was not written by CiteLens; remove it yourself if it should go")
    return True


def _unsupported(system: str) -> ServiceError:
    name = "Windows" if system in ("win32", "cygwin") else system
    return ServiceError(
        f"`citelens service` does not support {name} yet: start `citelens serve` yourself "
        "(for example from your login items)"
    )


def install(
    port: int = DEFAULT_PORT,
    allow_origins: Sequence[str] = (),
    *,
    system: str | None = None,
    run: Run = _run,
    env: Mapping[str, str] | None = None,
    command: Sequence[str] | None = None,
    say: Callable[[str], None] = print,
) -> None:
    """Writes the unit (Linux) or agent (macOS) and starts it; idempotent."""
    system, env = system or sys.platform, os.environ if env is None else env
    command = list(command or serve_command(port, allow_origins))
    if system.startswith("linux"):
        written = _write(systemd_unit_path(env), systemd_unit(command, env).encode())
        say(f"{'wrote' if written.changed else 'unchanged:'} {written.path}")
        systemd = _Systemd(run)
        if why := systemd.unreachable():
            say(
                f"not started: no systemd user manager here ({why}). Where there is one, run\n"
                f"  systemctl --user daemon-reload && systemctl --user enable --now {SYSTEMD_UNIT}\n"
                "or start `citelens serve` yourself."
            )
            return
        systemd.call("daemon-reload")
        if written.changed:
            # enable --now leaves a running service on its old command line.
            systemd.call("enable", SYSTEMD_UNIT)
            systemd.call("restart", SYSTEMD_UNIT)
        else:
            systemd.call("enable", "--now", SYSTEMD_UNIT)
        say(
            f"enabled and started {SYSTEMD_UNIT}: it starts at every login. "
            f"Its output (the pairing token): journalctl --user -u {SYSTEMD_UNIT}"
        )
        return
    if system == "darwin":
        written = _write(launchd_plist_path(env), launchd_plist(command, env))
        say(f"{'wrote' if written.changed else 'unchanged:'} {written.path}")
        domain = f"gui/{os.getuid()}"
        # bootstrap refuses a label that is already loaded: unload the old one first (may be none).
        run(["launchctl", "bootout", f"{domain}/{LAUNCHD_LABEL}"])
        argv = ["launchctl", "bootstrap", domain, str(written.path)]
        result = run(argv)
        if result.returncode != 0:
            raise ServiceError(f"`{' '.join(argv)}` failed: {_manager_reason(result)}")
        say(f"loaded {LAUNCHD_LABEL}: it starts at every login; its output goes to {_launchd_log(env)}")
        return
    raise _unsupported(system)


def uninstall(
    *,
    system: str | None = None,
    run: Run = _run,
    env: Mapping[str, str] | None = None,
    say: Callable[[str], None] = print,
) -> None:
    """Stops the service and removes its file; says so when there is none."""
    system, env = system or sys.platform, os.environ if env is None else env
    if system.startswith("linux"):
        path = systemd_unit_path(env)
        if not _ours(path):
            say(f"no CiteLens service installed ({path} does not exist): nothing to remove")
            return
        systemd = _Systemd(run)
        why = systemd.unreachable()
        if not why:
            systemd.call("disable", "--now", SYSTEMD_UNIT)
        path.unlink()
        # enable's link, left behind when the manager could not be asked to disable it.
        wants = path.parent / "default.target.wants" / SYSTEMD_UNIT
        if wants.is_symlink():
            wants.unlink()
        if why:
            say(f"removed {path}; nothing was stopped: no systemd user manager here ({why})")
        else:
            systemd.call("daemon-reload")
            say(f"stopped, disabled and removed {SYSTEMD_UNIT} ({path})")
        return
    if system == "darwin":
        path = launchd_plist_path(env)
        if not _ours(path):
            say(f"no CiteLens service installed ({path} does not exist): nothing to remove")
            return
        # bootout fails when the agent is not loaded (stopped by hand): then there is nothing to stop.
        run(["launchctl", "bootout", f"gui/{os.getuid()}/{LAUNCHD_LABEL}"])
        path.unlink()
        say(f"stopped and removed {LAUNCHD_LABEL} ({path})")
        return
    raise _unsupported(system)
