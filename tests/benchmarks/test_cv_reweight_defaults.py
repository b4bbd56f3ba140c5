"""Smoke tests of the nu-path, re-weighting and defaults benchmarks (benchmarks/cv.py, reweight.py,
defaults.py) on german, with
consistency checks that can fail: the warm and independent paths' dual values agree within eps/2 and
their totals add up; every re-weighted vote keeps at most the forest's trees; the defaults table's
losses are those of its accuracy rows."""

from __future__ import annotations

import re

import pytest

from dualboost.estimators.params import AUTO_NU_SHARE
from tests.environment import DATA_DIR, load_benchmark, requires_data

pytestmark = [
    requires_data("german.numer"),
    pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning"),
]


_load = load_benchmark


@pytest.fixture(autouse=True)
def _data_dir(monkeypatch):
    monkeypatch.setenv("DUALBOOST_DATA", str(DATA_DIR))


def _floats(line: str) -> list[float]:
    return [float(x) for x in re.findall(r"-?\d+\.?\d*(?:e[-+]\d+)?", line)]


def test_cv_benchmark(tmp_path):
    out = tmp_path / "cv.txt"
    assert _load("cv").main(["--datasets", "german", "--skip-accuracy", "--out", str(out)]) == 0
    lines = out.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("nu  it warm"))
    rows = [_floats(line) for line in lines[start + 1 : start + 8]]
    assert [row[0] for row in rows] == [0.5, 0.4, 0.3, 0.2, 0.1, 0.05, 0.01]
    for *_, dual_warm, dual_cold, diff, _gap_warm, _gap_cold in rows:
        assert abs(dual_warm - dual_cold) <= 0.01 / 2 + 1e-6
        assert diff == pytest.approx(abs(dual_warm - dual_cold), rel=0.01, abs=2e-6)
    assert sum(row[1] for row in rows) < sum(row[2] for row in rows)
    total = next(line for line in lines if line.startswith("path: warm"))
    warm, cold, ratio = _floats(total)
    assert ratio == pytest.approx(warm / cold, abs=0.01)
    accuracy = next(line for line in lines if line.strip().startswith("acc "))
    assert all(0.5 <= a <= 1.0 for a in _floats(accuracy))


def test_reweight_benchmark(tmp_path):
    out = tmp_path / "reweight.txt"
    assert _load("reweight").main(["--datasets", "german", "--trees", "25", "--out", str(out)]) == 0
    text = out.read_text()
    rows = [line.split() for line in text.splitlines() if line.strip().startswith(("lpboost", "erlpboost"))]
    assert len(rows) == 4
    forest = float(re.search(r"test accuracy (\d\.\d+)", text).group(1))
    for *_, kept, acc, delta, gap, _seconds in rows:
        assert 1 <= int(kept) <= 25 and float(gap) <= 1e-6
        assert float(delta) == pytest.approx(float(acc) - forest, abs=2e-4)


def test_defaults_benchmark(tmp_path):
    """The (learner, eps) rows of each set, the loss tables recomputed from them, the nested ERLPBoostCV
    row's worst loss from its accuracies and the sets' bests, and the verdict naming the argmin."""
    out = tmp_path / "defaults.txt"
    eps = [0.1, 0.3]  # the cheap end of the axis (the runs stop early), nested CV included
    argv = ["--datasets", "german", "diabetes", "--learners", "stumps", "--eps", *map(str, eps)]
    argv += ["--shares", str(AUTO_NU_SHARE)]  # the default share only: ERLPBoostClassifier() itself
    assert _load("defaults").main([*argv, "--out", str(out)]) == 0
    grid = _load("defaults").GRID
    text = out.read_text().splitlines()
    accuracy = {}
    for name in ("german", "diabetes"):
        header = next(i for i, line in enumerate(text) if line.startswith(f"== {name}"))
        assert _floats(text[header + 1]) == list(grid)
        rows = [_floats(line) for line in text[header + 2 : header + 2 + len(eps)]]
        assert [row[0] for row in rows] == eps
        accuracy[name] = [row[1:-1] for row in rows]  # without eps and the seconds
        assert all(0.0 <= a <= 1.0 for row in accuracy[name] for a in row)
        best = max(max(row) for row in accuracy[name])
        assert _floats(text[header + 2 + len(eps)])[-1] == pytest.approx(best, abs=1e-4)
    start = next(i for i, line in enumerate(text) if line.startswith("largest loss"))
    worst = {}
    for k, line in enumerate(text[start + 2 : start + 2 + len(eps)]):
        assert line.split()[:2] == ["stumps", f"{eps[k]:g}"]
        losses = _floats(line)[1:]
        for j, loss in enumerate(losses):
            expected = max(100 * (max(map(max, accuracy[n])) - accuracy[n][k][j]) for n in accuracy)
            assert loss == pytest.approx(expected, abs=0.011)
            worst[(eps[k], grid[j])] = expected
    start = next(i for i, line in enumerate(text) if line.startswith("with nu chosen per set"))
    for k, line in enumerate(text[start + 2 : start + 2 + len(eps)]):
        per_set = [100 * (max(map(max, accuracy[n])) - max(accuracy[n][k])) for n in accuracy]
        assert _floats(line)[1:] == pytest.approx([*per_set, max(per_set)], abs=0.011)
    best = [max(map(max, accuracy[n])) for n in accuracy]
    start = next(i for i, line in enumerate(text) if line.startswith("ERLPBoostCV (nested"))
    nested_rows = [_floats(line) for line in text[start + 3 : start + 3 + len(eps)]]
    for _, *nested, worst_loss, _seconds in nested_rows:
        assert all(0.5 <= a <= 1.0 for a in nested)
        expected = max(100 * (b - a) for b, a in zip(best, nested, strict=True))
        assert worst_loss == pytest.approx(expected, abs=0.011 + 0.01)  # both sides printed to 4 digits
    # the paired block: each mean difference is the loss of the tables above (mean of differences =
    # difference of means), the standard errors are >= 0
    start = next(i for i, line in enumerate(text) if line.startswith("each loss +- its paired"))
    named = re.search(r"stumps eps=(\S+) nu=(\S+)", text[start + 2])
    k, j = eps.index(float(named.group(1))), list(grid).index(float(named.group(2)))
    pairs = _floats(text[start + 2].split(named.group(0))[1])
    assert pairs[0::2] == pytest.approx(
        [100 * (b - accuracy[n][k][j]) for b, n in zip(best, accuracy, strict=True)], abs=0.011
    )
    assert min(pairs[1::2]) >= 0
    for row, line in zip(nested_rows, text[start + 3 : start + 3 + len(eps)], strict=True):
        assert line.split()[:3] == ["ERLPBoostCV", "stumps", f"eps={row[0]:g}"]
        pairs = _floats(line.split(f"eps={row[0]:g}")[1])
        assert pairs[0::2] == pytest.approx(
            [100 * (b - a) for b, a in zip(best, row[1:-2], strict=True)], abs=0.011 + 0.01
        )
    # the nu='auto' block: one row per share (the default marked *), each loss from its accuracy and
    # the set's best; the defaults line quotes the default row's worst loss
    start = next(i for i, line in enumerate(text) if line.startswith("nu='auto'"))
    row = text[start + 2]
    assert row.split()[0] == f"{AUTO_NU_SHARE:g}*"
    cells = _floats(row.split("*", 1)[1])  # per set: accuracy, loss, standard error; then the worst
    accuracies, losses = cells[0:-1:3], cells[1:-1:3]
    assert losses == pytest.approx(
        [100 * (b - a) for b, a in zip(best, accuracies, strict=True)], abs=0.011 + 0.01
    )
    assert cells[-1] == pytest.approx(max(losses), abs=0.011)
    assert text[-2].startswith("ERLPBoostClassifier()'s defaults (nu='auto')")
    assert _floats(text[-2])[-1] == pytest.approx(cells[-1], abs=1e-9)
    verdict = text[-1]
    smallest = min(worst.values())
    if smallest <= 1.0 + 1e-9:
        assert verdict.startswith("within 1 point of the best on every set")
    else:
        assert verdict.startswith("no triple is within 1 point")
        assert _floats(verdict)[-1] == pytest.approx(smallest, abs=0.011)
    named = re.search(r"stumps eps=(\S+) nu=([^\s,]+)", verdict)  # the first named: the smallest loss
    assert worst[(float(named.group(1)), float(named.group(2)))] == pytest.approx(smallest, abs=0.011)
