"""docs/boosting.md and examples/boost_german.py run and say what they show."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
DOC = ROOT / "docs" / "boosting.md"


def test_python_snippets_of_the_boosting_page_run(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # the snippets write history.csv and gap.png
    pytest.importorskip("matplotlib", reason="the snippet plots (optional dependency matplotlib)")
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) == 3
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), namespace)
    clf, result = namespace["clf"], namespace["result"]
    assert clf.get_params()["eps"] == 0.05  # the last classifier built is the tree-oracle one
    assert result.converged and result.history["stopping"][-1] <= 0.005
    assert len(result.iterates) == result.n_hypotheses + 1
    assert (tmp_path / "history.csv").is_file() and (tmp_path / "gap.png").is_file()
    printed = capsys.readouterr().out
    assert "iterations, eta =" in printed and "HistoryRow(iteration=1" in printed


def quoted_rows(text: str) -> dict[str, list[str]]:
    rows = {}
    for name in ("ERLPBoost", "Corrective ERLPBoost", "AdaBoost (sklearn)"):
        pattern = rf"^{re.escape(name)}\s+(\d+)\s+(\d+)\s+([0-9.]+)\s+([0-9.]+)\s+[0-9.]+$"
        match = re.search(pattern, text, re.M)
        assert match, f"no row for {name}"
        rows[name] = match.groups()
    return rows


@pytest.mark.skipif(not (DATA / "german.numer").is_file(), reason=f"german.numer is not in {DATA}")
def test_german_example_matches_the_page():
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "boost_german.py")],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    ran, quoted = quoted_rows(out), quoted_rows(DOC.read_text())
    for name in ran:
        iterations, _, train, test = map(float, ran[name])
        quoted_iterations, _, quoted_train, quoted_test = map(float, quoted[name])
        assert iterations == pytest.approx(quoted_iterations, rel=0.1)
        assert np.allclose([train, test], [quoted_train, quoted_test], atol=0.02)
    assert "largest certified gap of a re-solve" in out
