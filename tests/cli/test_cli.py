"""The `dualboost` command: verify's table, JSON, exit status and help."""

from __future__ import annotations

import json

import pytest

from dualboost import cli, verify


def test_verify_subset_passes_and_prints_table(capsys):
    rc = cli.main(["verify", "--models", "erlpboost,lpboost", "--methods", "ecos", "--quiet"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "rel. gap" in out and "map err" in out
    # 2 lpboost + 3 erlpboost instances, 1 method, 2 sides
    assert "all 10 checks passed" in out


def test_verify_json_rows_are_consistent(tmp_path):
    path = tmp_path / "rows.json"
    rc = cli.main(["verify", "--models", "binary_erlpboost", "--methods", "clarabel", "--json", str(path)])
    rows = json.loads(path.read_text())
    assert rc == 0
    assert len(rows) == 2 * 2
    for row in rows:
        assert row["passed"] and row["status"] == "optimal"
        # weak duality, recomputed from the printed values: primal >= dual up to the tolerance
        assert row["primal_value"] >= row["dual_value"] - 1e-6 * max(1, abs(row["primal_value"]))
        assert row["gap"] <= verify.GAP_TOL[row["method"]]
        assert row["map_error"] <= verify.MAP_TOL[row["method"]]


def test_verify_exits_1_and_names_the_failures(monkeypatch, capsys):
    # A map tolerance no solution can meet must make every row fail, with the reason printed.
    monkeypatch.setitem(verify.MAP_TOL, "ecos", -1.0)
    rc = cli.main(["verify", "--models", "erlpboost", "--methods", "ecos", "--sides", "dual", "--quiet"])
    out = capsys.readouterr().out
    assert rc == 1
    assert "3 of 3 checks FAILED" in out
    assert "erlpboost [N=60 t=10 nu=1 eta=10] ecos/dual: map error" in out


def test_help_explains_every_option(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["verify", "--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    for option in ("--models", "--methods", "--sides", "--seed", "--json", "--extreme", "--quiet"):
        assert option in text
    assert "exits 1" in " ".join(text.split()).lower()


def test_unknown_model_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["verify", "--models", "adaboost"])
    assert exc.value.code == 2
    assert "choose from" in capsys.readouterr().err


def test_no_command_prints_help(capsys):
    assert cli.main([]) == 2
    assert "verify" in capsys.readouterr().out


def test_run_verify_rejects_unknown_names():
    with pytest.raises(ValueError, match="unknown method"):
        list(verify.run_verify(methods=["gurobi"]))
