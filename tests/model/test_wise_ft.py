"""scripts/wise_ft.py: the weights half-way between two checkpoints of one network."""

from __future__ import annotations

import pytest
import torch
from safetensors.torch import load_file, save_file

from scripts.wise_ft import average


def checkpoint(folder, weight, steps):
    folder.mkdir()
    save_file({"w": weight, "steps": steps}, str(folder / "model.safetensors"))
    (folder / "config.json").write_text(f'{{"from": "{folder.name}"}}')
    return folder


def test_alpha_weighs_the_tuned_model_and_keeps_its_other_files(tmp_path):
    start = checkpoint(tmp_path / "start", torch.tensor([0.0, 2.0]), torch.tensor([1]))
    tuned = checkpoint(tmp_path / "tuned", torch.tensor([4.0, -2.0]), torch.tensor([7]))
    for alpha, expected in ((0.0, [0.0, 2.0]), (1.0, [4.0, -2.0]), (0.25, [1.0, 1.0])):
        out = tmp_path / f"out-{alpha}"
        assert average(start, tuned, alpha, out) == 1
        merged = load_file(str(out / "model.safetensors"))
        assert merged["w"].tolist() == expected
        assert merged["steps"].tolist() == [7]  # integers are not averaged: the tuned model's
        assert (out / "config.json").read_text() == '{"from": "tuned"}'


def test_two_different_networks_are_refused(tmp_path):
    start = checkpoint(tmp_path / "start", torch.zeros(2), torch.tensor([1]))
    tuned = checkpoint(tmp_path / "tuned", torch.zeros(3), torch.tensor([1]))
    with pytest.raises(ValueError, match="not the same network"):
        average(start, tuned, 0.5, tmp_path / "out")
    with pytest.raises(ValueError, match="alpha"):
        average(start, start, 1.5, tmp_path / "out")
