"""The regression gate: decisions on the sample never drift, bad totals never rise."""

from __future__ import annotations

import copy
import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("gate", ROOT / "scripts" / "gate.py")
assert _spec is not None and _spec.loader is not None
gate = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gate)


def test_the_sample_run_matches_the_pinned_baseline() -> None:
    baseline = json.loads(gate.BASELINE.read_text())
    assert gate.compare(baseline, gate.measure()) == []


def test_the_gate_catches_a_drifted_decision_and_a_rising_total() -> None:
    baseline = json.loads(gate.BASELINE.read_text())
    now = copy.deepcopy(baseline)
    key = next(iter(now["decisions"]))
    now["decisions"][key] = "windows-1252 / default / browser windows-1252"
    now["totals"]["replacement_chars"] += 1
    problems = gate.compare(baseline, now)
    assert any("drifted" in p for p in problems)
    assert any("replacement_chars rose" in p for p in problems)
    # a falling total is an improvement, not a failure
    better = copy.deepcopy(baseline)
    better["totals"]["error_rows"] = max(0, better["totals"]["error_rows"] - 1)
    assert gate.compare(baseline, better) == []
