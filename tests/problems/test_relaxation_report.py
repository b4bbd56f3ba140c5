"""The verification report of a Relaxation (rel.verify(), ``dualboost verify --relaxation NAME``) and
the example examples/new_relaxation.py."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dualboost import cli
from dualboost import conjugates as cj
from dualboost.problems import Relaxation
from dualboost.problems import relaxation_report as report_module
from dualboost.problems.relaxation_report import (
    BUILTIN_RELAXATIONS,
    RelaxationReport,
    builtin_relaxation,
    fenchel_young_residuals,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def soft_margin_report() -> RelaxationReport:
    return builtin_relaxation("linf-ball").verify(name="linf-ball")


@pytest.fixture(scope="module")
def general_report() -> RelaxationReport:
    return builtin_relaxation("l2-ball+entropy").verify(methods=("clarabel", "ecos"), name="l2-ball+entropy")


def test_report_rows_cover_every_method_and_side(soft_margin_report):
    rows = soft_margin_report.rows
    assert [(r.method, r.side) for r in rows] == [
        (m, s) for m in ("clarabel", "ecos", "scs") for s in ("primal", "dual")
    ]
    assert soft_margin_report.passed
    for r in rows:
        assert r.status == "optimal" and r.passed and not r.reason
        assert abs(r.gap) <= report_module.GAP_TOL[r.method]
        assert r.primal_value >= r.dual_value - 1e-9 * max(1.0, abs(r.primal_value))
        assert max(abs(r.d_map), abs(r.w_map)) <= report_module.MAP_TOL[r.method]
    assert soft_margin_report.value_spread <= 1e-6


def test_report_states_the_derivation(soft_margin_report, general_report):
    assert soft_margin_report.dual_form == "theorem7" and soft_margin_report.conditions.hold
    assert not soft_margin_report.d_is_unique
    assert all(np.isfinite(r.gamma) for r in soft_margin_report.rows)  # the soft margin gamma* of Thm 7
    assert general_report.dual_form == "general" and general_report.d_is_unique
    assert general_report.conditions.values == (False, False, False)
    text = str(general_report)
    for needle in (
        "relaxation l2-ball+entropy",
        "dual form: general: max_w -(f + I_S)*(-A w)",
        "Theorem 7 conditions on f:",
        "(i) min f = 0: FAILS",
        "(ii) 0 in core(dom f): FAILS",
        "(iii) f* non-increasing towards 0: FAILS",
        "Fenchel-Young residuals",
        "all 4 checks passed",
    ):
        assert needle in text, needle
    assert "Theorem 7: max_{w, gamma} gamma - f*([gamma - A w]_+)" in str(soft_margin_report)
    assert "(iii) f* non-increasing towards 0: holds" in str(soft_margin_report)


def test_fenchel_young_residuals_decompose_the_gap(soft_margin_report, general_report):
    """edge term + f~ = P(d) - D(w); f~'s parts (Lemma 8 split / infimal convolution) sum to f~'s."""
    for report, name in ((soft_margin_report, "linf-ball"), (general_report, "l2-ball+entropy")):
        rel = builtin_relaxation(name)
        for r in report.rows:
            labels = [label for label, _ in r.fenchel_young]
            values = [value for _, value in r.fenchel_young]
            assert labels[0].startswith("g = ||A^T d||_inf") and labels[1].startswith("f~ = ")
            assert values[0] + values[1] == pytest.approx(r.primal_value - r.dual_value, abs=1e-9)
            parts = [v for label, v in r.fenchel_young if label.startswith("  ")]
            assert len(parts) == 2 and sum(parts) == pytest.approx(values[1], abs=1e-7)
            assert all(v >= -1e-9 for v in values)
    # the same decomposition at an arbitrary (not optimal) feasible pair
    rel = builtin_relaxation("linf-ball")
    w = np.full(rel.n_hypotheses, 0.5 / rel.n_hypotheses)
    d = rel.regularizer.conjugate_grad(np.zeros(rel.n_samples))
    residuals = fenchel_young_residuals(rel, d, w)
    total = residuals[0][1] + residuals[1][1]
    assert total == pytest.approx(rel.primal_objective(d) - rel.dual_objective(w), abs=1e-12)
    assert total > 1e-3


def test_report_says_which_check_fails(monkeypatch):
    monkeypatch.setitem(report_module.MAP_TOL, "ecos", -1.0)
    report = builtin_relaxation("entropy").verify(methods=("ecos",), sides=("dual",), name="entropy")
    assert not report.passed
    assert "1 of 1 checks FAILED" in str(report) and "d-map" in report.rows[0].reason


def test_verify_rejects_unknown_methods():
    with pytest.raises(ValueError, match="method"):
        builtin_relaxation("l2-ball").verify(methods=("gurobi",))


def test_builtin_relaxations_all_verify():
    for name in BUILTIN_RELAXATIONS:
        report = builtin_relaxation(name, n_samples=12, n_hypotheses=16).verify(
            methods=("ecos",), sides=("primal",), name=name
        )
        assert report.passed, str(report)
    with pytest.raises(ValueError, match="unknown relaxation"):
        builtin_relaxation("l3-ball")


def test_user_relaxation_report():
    A = np.random.default_rng(0).uniform(-1, 1, (15, 20))
    report = Relaxation(A, cj.NormBall(p=2, radius=0.3)).verify(methods=("clarabel",))
    assert report.passed and report.name == "(user)" and len(report.rows) == 2


# --- the command ---------------------------------------------------------------------------------
def test_cli_prints_the_report(capsys):
    rc = cli.main(["verify", "--relaxation", "linf-ball,entropy", "--methods", "ecos", "--quiet"])
    out = capsys.readouterr().out
    assert rc == 0
    assert out.count("Theorem 7 conditions on f:") == 2
    assert "relaxation linf-ball" in out and "relaxation entropy" in out
    assert out.count("all 2 checks passed") == 2


def test_cli_exit_status_on_failure(monkeypatch, capsys):
    monkeypatch.setitem(report_module.MAP_TOL, "ecos", -1.0)
    rc = cli.main(["verify", "--relaxation", "l2-ball", "--methods", "ecos", "--sides", "dual"])
    assert rc == 1
    assert "FAILED" in capsys.readouterr().out


def test_cli_default_methods_run_where_they_apply(capsys):
    """As documented: ``dualboost verify --relaxation NAME`` with the default --methods (which
    include auglag and highs) runs the cvxpy methods on both sides, and says nothing of the rest."""
    rc = cli.main(["verify", "--relaxation", "l2-ball+entropy", "--quiet"])
    captured = capsys.readouterr()
    assert rc == 0
    assert "all 6 checks passed" in captured.out  # clarabel, ecos, scs x primal, dual
    assert captured.err == ""


def test_cli_methods_that_do_not_apply(capsys):
    rc = cli.main(["verify", "--relaxation", "l2-ball", "--methods", "auglag,highs"])
    assert rc == 2
    assert "a relaxation is solved through cvxpy only" in capsys.readouterr().err
    rc = cli.main(["verify", "--relaxation", "l2-ball", "--methods", "auglag,ecos", "--sides", "dual"])
    captured = capsys.readouterr()
    assert rc == 0 and "all 1 checks passed" in captured.out
    assert "auglag skipped" in captured.err


def test_cli_unknown_relaxation_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["verify", "--relaxation", "l3-ball"])
    assert exc.value.code == 2
    assert "choose from" in capsys.readouterr().err


def test_cli_help_lists_the_relaxations(capsys):
    with pytest.raises(SystemExit):
        cli.main(["verify", "--help"])
    text = " ".join(capsys.readouterr().out.split()).replace("- ", "-")  # argparse wraps at hyphens
    assert "--relaxation NAME" in text
    for name in BUILTIN_RELAXATIONS:
        assert name in text
