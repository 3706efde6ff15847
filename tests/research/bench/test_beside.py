"""research/bench/beside.py (issue 59 item 5): the table and verdict, which build a run imports, and
the reader an older build lacks. No model is loaded: the bench's JSON lines are written here."""

from pathlib import Path

import pytest

from research.bench.beside import Build, build, run, summary

NAMES = {"before": "before 0.15.6", "after": "after 0.16.0"}


def line(warm: float, rss: float, large: tuple[float, float] | None = None) -> dict[str, object]:
    """The fields of one `bench.py --json` line that beside reads."""
    big = {"warm_median_s": large[0], "peak_rss_mb": large[1]} if large else None
    return {"warm_median_s": warm, "peak_rss_mb": rss, "large": big}


def test_medians_over_rounds_and_the_verdict_against_the_bars():
    results = {
        "before": [line(1.0, 300, (4.0, 350)), line(2.0, 310, (4.4, 352)), line(1.2, 305, (4.2, 351))],
        "after": [line(1.1, 320, (4.2, 390)), line(1.3, 330, (9.0, 395)), line(1.9, 325, (4.5, 399))],
    }
    text = "\n".join(summary(NAMES, results))
    # medians: before A 1.2, after A 1.3 (1.083x); before B 4.2, after B 4.5 (1.071x)
    assert "1.083x" in text and "1.071x" in text
    assert "399 MB" in text  # the largest of the after build's rounds
    assert text.splitlines()[-1].startswith("verdict: PASS")


def test_a_slow_workload_or_too_much_memory_fails():
    slow = {"before": [line(1.0, 300, (4.0, 300))], "after": [line(1.0, 300, (4.5, 300))]}
    assert "B 1.125x MISSED" in summary(NAMES, slow)[-1] and "FAIL" in summary(NAMES, slow)[-1]
    heavy = {"before": [line(1.0, 300, (4.0, 300))], "after": [line(1.0, 300, (4.0, 401))]}
    assert "401 MB MISSED" in summary(NAMES, heavy)[-1]


def test_without_the_large_workload_the_verdict_is_incomplete_or_a_fail():
    results = {"before": [line(1.0, 300)], "after": [line(1.0, 300)]}
    last = summary(NAMES, results)[-1]
    assert "B not measured" in last and last.startswith("verdict: INCOMPLETE")
    slow = {"before": [line(1.0, 300)], "after": [line(1.2, 300)]}
    assert summary(NAMES, slow)[-1].startswith("verdict: FAIL")


def fake_tree(root: Path, version: str, reader: bool) -> Path:
    """A checkout with a companion that says where it was imported from, and its model folders."""
    (root / "companion").mkdir(parents=True)
    (root / "companion/__init__.py").write_text(f'__version__ = "{version}"\n')
    (root / "companion/__main__.py").write_text(
        "import pathlib, companion\nprint(pathlib.Path(companion.__file__).resolve())\n"
    )
    (root / "companion/config.py").write_text('DEFAULT_MODEL_NAME: Final = "fast"\n')
    for name in ["fast", "reader"] if reader else ["fast"]:
        (root / "models" / name).mkdir(parents=True)
        (root / "models" / name / "model.onnx").write_bytes(b"")
    (root / "models/fast/config.json").write_text('{"cascade": {"reader": "reader"}}')
    return root


def test_a_build_runs_with_its_own_companion_and_its_own_model(tmp_path: Path):
    b = build("before", fake_tree(tmp_path / "old", "0.1.0", reader=True))
    assert b == Build("before", tmp_path / "old", "0.1.0", "scripts.bench", tmp_path / "old/models/fast")
    imported = Path(run(b, "companion", []).strip())
    assert imported.resolve() == (tmp_path / "old/companion/__init__.py").resolve()


def test_an_older_build_without_its_reader_is_refused(tmp_path: Path):
    with pytest.raises(SystemExit, match=r"models/reader/model\.onnx"):
        build("before", fake_tree(tmp_path / "old", "0.1.0", reader=False))
