"""Makes a release: the one step of docs/releasing.md.

    python -m scripts.release 0.3.0 --note "what changed in what the companion outputs"

Writes the version into companion/__init__.py (where pyproject.toml reads it) and into
extension/manifest.json (companion and extension are released together), records the fingerprint
of today's judging code beside it (companion.versions), and adds the note to CHANGELOG.md. It
refuses a version that is not greater than the current one. Then: run scripts/test.sh, commit,
`git tag vX.Y.Z`.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
from companion.versions import JUDGE_MODULES, code_fingerprint  # noqa: E402

_VERSION = re.compile(r"\d+\.\d+\.\d+")


def _parts(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split("."))


def release(root: Path, version: str, note: str, today: datetime.date) -> None:
    init_file, manifest_file, changelog = (
        root / "companion" / "__init__.py",
        root / "extension" / "manifest.json",
        root / "CHANGELOG.md",
    )
    init = init_file.read_text(encoding="utf-8")
    current = re.search(r'^__version__ = "(.*)"$', init, flags=re.M)
    if current is None:
        raise SystemExit(f"{init_file} has no __version__")
    current_version = current.group(1)
    if not _VERSION.fullmatch(version):
        raise SystemExit(f"a version is MAJOR.MINOR.PATCH, not {version!r}")
    if _parts(version) <= _parts(current_version):
        raise SystemExit(f"{version} is not after the current version {current_version}")
    if not note.strip():
        raise SystemExit("say in --note what changed in what the companion outputs")
    init = re.sub(r'^__version__ = ".*"$', f'__version__ = "{version}"', init, count=1, flags=re.M)
    init = re.sub(
        r'^JUDGE_CODE = ".*"$', f'JUDGE_CODE = "{code_fingerprint(JUDGE_MODULES)}"', init, count=1, flags=re.M
    )
    manifest = manifest_file.read_text(encoding="utf-8")
    if json.loads(manifest).get("version") is None:
        raise SystemExit(f"{manifest_file} has no version")
    init_file.write_text(init, encoding="utf-8")
    manifest_file.write_text(
        re.sub(r'("version":\s*)"[^"]*"', rf'\g<1>"{version}"', manifest, count=1), encoding="utf-8"
    )
    old = changelog.read_text(encoding="utf-8") if changelog.exists() else "# Changes\n"
    head, _, rest = old.partition("\n")
    entry = (
        f"\n## {version} ({today.isoformat()})\n\n"
        + "\n".join(f"- {line.strip()}" for line in note.strip().splitlines() if line.strip())
        + "\n"
    )
    changelog.write_text(f"{head}\n{entry}{rest}", encoding="utf-8")
    print(f"released {version} (was {current_version}); now run scripts/test.sh, commit, git tag v{version}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("version")
    parser.add_argument("--note", required=True, help="what changed in what the companion outputs")
    args = parser.parse_args()
    release(ROOT, args.version, args.note, datetime.date.today())


if __name__ == "__main__":
    main()
