"""The committed reader is the one the English model's bars were fitted through (issue 59): it reads
the reference pairs as recorded, and the rebuild finds the trained adapters in git history."""

from __future__ import annotations

import hashlib
import json
import subprocess

import pytest

from research.training import build_reader

STATE = build_reader.HERE / "models" / "training" / "mpnet8-reader"


@pytest.mark.slow  # the 82 MB reader
def test_the_committed_reader_reads_its_reference_pairs_as_recorded():
    reference = json.loads((STATE / "reference.json").read_text())
    assert build_reader.disagreement(build_reader.COMMITTED, reference) <= build_reader.TOLERANCE


def test_the_rebuild_takes_the_trained_adapters_from_git_history(tmp_path):
    found = subprocess.run(
        ["git", "-C", str(build_reader.HERE), "cat-file", "-e", build_reader.ADAPTERS_COMMIT],
        capture_output=True,
        check=False,
    )
    if found.returncode != 0:
        pytest.skip("a shallow clone: the adapters' commit is not in it")
    assert not (STATE / "weights.safetensors").exists()  # models/training/ keeps no weights
    state = build_reader.adapters(STATE, tmp_path / "state")
    digest = hashlib.sha256((state / "weights.safetensors").read_bytes()).hexdigest()
    # The adapters the committed reader was built from (models/training/mpnet8-reader at 82d6158).
    assert digest == "b44f30521c308057ba1ec2c08583abf5e295457e6c7fc150c786f8f526c288da"
    assert json.loads((state / "state.json").read_text()) == json.loads((STATE / "state.json").read_text())
