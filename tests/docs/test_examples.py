"""Every script in examples/ runs with only DUALBOOST_DATA set, and prints what it is meant to show.

Each example runs in a fresh interpreter, in an empty temporary directory, with the environment of
:func:`environment.script_env` (the tests' data folder as ``$DUALBOOST_DATA``, nothing pointing into
the repository). Beyond exit code 0, :data:`CHECKS` holds for every example a check of its output
that could fail: a certified gap or a bound it prints, and where a page of docs/ quotes the output,
that the quote is what the script prints. An example that needs a data set that is absent, or an
optional dependency that is not installed, is skipped, saying which.
"""

from __future__ import annotations

import re
import sys

import pytest

from tests.environment import ROOT, needs, run_script

EXAMPLES = sorted((ROOT / "examples").glob("*.py"))


def numbers(text: str) -> list[float]:
    return [float(x) for x in re.findall(r"[-+]?\d+\.?\d*(?:e[-+]?\d+)?", text)]


def row(text: str, name: str) -> list[float]:
    """The numbers of the line of ``text`` that starts with ``name`` (followed by spaces)."""
    match = re.search(rf"^{re.escape(name)}\s+(.*)$", text, re.M)
    assert match, f"no line starting with {name!r}"
    return numbers(match.group(1))


def doc(name: str) -> str:
    return (ROOT / "docs" / name).read_text()


def check_boost_german(out: str) -> None:
    page = doc("boosting.md")
    for name in ("ERLPBoost", "Corrective ERLPBoost", "AdaBoost (sklearn)"):
        iterations, _, train, test, _ = row(out, name)
        quoted_iterations, _, quoted_train, quoted_test, _ = row(page, name)  # the table of section 3
        assert iterations == pytest.approx(quoted_iterations, rel=0.1), name
        assert train == pytest.approx(quoted_train, abs=0.02) and test == pytest.approx(quoted_test, abs=0.02)
    gap = float(re.search(r"largest certified gap of a re-solve: (\S+) \(<= eps/4", out).group(1))
    last = float(re.search(r"stopping quantity: first \S+, last (\S+)", out).group(1))
    assert gap <= 0.0025 and last <= 0.005  # each re-solve certified to eps/4; stopped at eps/2


def check_dask_local_cluster(out: str) -> None:
    assert re.search(r"BoostResult\(erlpboost: \d+ iterations, .*, converged, ", out)  # stopped by its rule
    assert float(re.search(r"training accuracy: (\S+)", out).group(1)) >= 0.85


def check_gradient_digits(out: str) -> None:
    naive, residual = row(out, "     200")  # the objective R of both after 200 learners
    assert residual < 0.5 * naive  # the naive projection stalls on the non-smooth hinge loss
    accuracy = float(re.search(r"residual:.*test accuracy (\S+),", out).group(1))
    assert accuracy >= 0.9


def check_maboost_german(out: str) -> None:
    page = doc("maboost.md")
    pattern = r"^((?:MABoost|LAMABoost|smooth MABoost|SparseBoost|MadaBoost)[^\n]*?)\s+0\."
    boosters = re.findall(pattern, out, re.M)
    assert len(boosters) == 6
    for name in boosters:
        train, bound, test, max_nd, positive = row(out, name)
        assert train <= bound  # the training error is below the theorem's bound
        assert row(page, name) == pytest.approx([train, bound, test, max_nd, positive], abs=0.006)
    assert float(re.search(r"max \|d - softmax\(-m\)\| = (\S+)", out).group(1)) <= 1e-12


def check_new_relaxation(out: str) -> None:
    assert "all 4 checks passed" in out and "Theorem 7 conditions on f:" in out
    runs = re.findall(r"(\d+) rounds, final gap (\S+), +\d+ stumps, relaxed margin (\S+) \(rho (\S+)\)", out)
    assert len(runs) == 3
    for _, gap, margin, rho in runs:
        assert float(gap) <= 0.1  # stopped by Lemma 11's gap <= eps
        assert float(margin) >= float(rho) - 0.1  # Theorem 9
    page = doc("new-relaxation.md")
    value = re.search(r"clarabel  dual    optimal  ([0-9.]+)", out).group(1)
    assert f"clarabel  dual    optimal  {value}" in page  # the verification table the page quotes
    for line in re.findall(r"^  (?:l2-ball|soft margin).*$", out, re.M):
        quoted = re.search(rf"^  {re.escape(line[2:30])}.*$", page, re.M)
        assert quoted, f"the page does not quote {line!r}"
        assert numbers(quoted.group(0)) == pytest.approx(numbers(line), abs=0.002)


def check_online_stream(out: str) -> None:
    pattern = r"^(.+?)progressive loss \S+  held-out error (\S+)"
    errors = {name.strip(): float(error) for name, error in re.findall(pattern, out, re.M)}
    assert len(errors) == 4 and max(errors.values()) < 0.25
    assert errors["Online BBM (N=20)"] < errors["weak learner alone"]


def check_verify_erlpboost(out: str) -> None:
    gap = float(re.search(r"^certified values: .* gap (\S+)$", out, re.M).group(1))
    assert abs(gap) <= 1e-8
    assert "psi > 0 only where d_n = 1/nu: True" in out
    assert len(re.findall(r" optimal +gap", out)) == 4
    page = doc("verify-erlpboost-by-hand.md")
    for prefix in ("N = ", "certified values:", "psi > 0"):  # the page quotes the script's output
        assert next(x for x in out.splitlines() if x.startswith(prefix)) in page


CHECKS = {
    "boost_german": check_boost_german,
    "dask_local_cluster": check_dask_local_cluster,
    "gradient_digits": check_gradient_digits,
    "maboost_german": check_maboost_german,
    "new_relaxation": check_new_relaxation,
    "online_stream": check_online_stream,
    "verify_erlpboost": check_verify_erlpboost,
}


@pytest.mark.parametrize(
    "path", [pytest.param(path, id=path.name, marks=needs(path.read_text())) for path in EXAMPLES]
)
def test_example_runs_and_shows_its_result(path, tmp_path):
    source = path.read_text()
    assert source.startswith('"""'), f"{path.name} starts with a docstring saying what it shows"
    assert path.stem in CHECKS, f"add a check of what {path.name} prints to CHECKS"
    result = run_script([sys.executable, str(path)], tmp_path, f"the example {path.name}")
    CHECKS[path.stem](result.stdout)
