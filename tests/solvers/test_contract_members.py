"""Every member a solver reads from a model is declared in the solver contract, and no solver or
model probes a model for one (:mod:`dualboost.solvers.contract`, docs/architecture.md#the-solver-contract).

* static: every ``model.<member>`` that solvers/*.py read is declared by a Protocol of the contract
  (or by ``highs.py``'s two), and solvers/*.py and problems/*.py call ``hasattr(``/``getattr(`` only
  where the allow-list below says why (none on a model);
* dynamic: every built-in model class has every member of the Protocols it implements, and the
  members a model may lack get their defaults from ``Model`` (no probe needed).
"""

from __future__ import annotations

import inspect
import re
import typing
from pathlib import Path

import numpy as np
import pytest

from dualboost import problems
from dualboost.conjugates import CappedRelativeEntropy
from dualboost.solvers import contract, highs

ROOT = Path(contract.__file__).resolve().parents[1]
#: the Protocols that describe models (those of a model's ``regularizer`` are in
#: dualboost/conjugates/traits.py)
MODEL_PROTOCOLS = [
    contract.Certifiable,
    contract.CvxpyForms,
    contract.LinearProgram,
    contract.SmoothDual,
    highs.HighsProgram,
    highs.QuadraticProgram,
]
#: ``hasattr(``/``getattr(`` calls allowed in solvers/ and problems/, each on something other than a
#: model: (file, the call)
ALLOWED = {
    # the dataclass fields of an options object, read by their names from dataclasses.fields
    ("solvers/options.py", "getattr(self, f.name)"),
    # the cap of a Relaxation's derived regulariser (a conjugate of dualboost.conjugates, not a
    # model): capped ones have nu, the plain simplex restriction has the vacuous cap 1
    ("problems/relaxation.py", 'getattr(self.regularizer, "nu", 1.0)'),
}

U = np.random.default_rng(3).uniform(-1, 1, size=(12, 5))
W_PREV = np.full(4, 0.25)
#: one instance of every concrete model class of dualboost.problems
FACTORIES = {
    problems.LPBoost: lambda: problems.LPBoost(U, nu=2),
    problems.SoftBoost: lambda: problems.SoftBoost(U, nu=2, gamma_hat=0.5, eps=0.01),
    problems.ERLPBoost: lambda: problems.ERLPBoost(U, nu=2, eta=10),
    problems.BinaryERLPBoost: lambda: problems.BinaryERLPBoost(U, nu=2, eta=10),
    problems.CorrectiveERLPBoost: lambda: problems.CorrectiveERLPBoost(U, W_PREV, nu=2, eta=10),
    problems.CorrectiveBinaryERLPBoost: lambda: problems.CorrectiveBinaryERLPBoost(U, W_PREV, nu=2, eta=10),
    problems.MDBoost: lambda: problems.MDBoost(U),
    problems.CGBoost: lambda: problems.CGBoost(U),
    problems.NMBoost: lambda: problems.NMBoost(U),
    problems.QRLPBoost: lambda: problems.QRLPBoost(U, nu=2, eta=10),
    problems.TemperedERLPBoost: lambda: problems.TemperedERLPBoost(U, nu=2, eta=10, t=0.5),
    problems.Relaxation: lambda: problems.Relaxation(
        U, CappedRelativeEntropy(np.full(12, 1 / 12), nu=2, eta=10)
    ),
}


def declared(protocol: type) -> set[str]:
    """The members a Protocol declares (its own and its bases')."""
    return set(typing._get_protocol_attrs(protocol))  # the set isinstance checks


def test_every_concrete_model_class_is_listed():
    concrete = {
        cls
        for name in problems.__all__
        if inspect.isclass(cls := getattr(problems, name))
        and issubclass(cls, problems.Model)
        and not inspect.isabstract(cls)
        and cls not in (problems.Model, problems.MaxEdgeModel)
    }
    assert concrete <= set(FACTORIES)


def test_members_solvers_read_are_declared():
    """``model.x``, ``self.model.x`` and ``evaluator.model.x`` read in solvers/*.py name declared
    members (assignments ``model.x = ...`` are left out: highs.py builds a ``highspy.HighsModel``
    called ``model``)."""
    members = set().union(*(declared(p) for p in MODEL_PROTOCOLS))
    read = set()
    for path in (ROOT / "solvers").glob("*.py"):
        pattern = r"(?<![\w.])(?:self\.|evaluator\.)?model\.([A-Za-z_]\w*)(?!\w|\s*=[^=])"
        read |= set(re.findall(pattern, path.read_text()))
    read -= {"solve"}  # model.solve(...) in docstrings: the user's entry point, not a solver's read
    assert read - members == set()


@pytest.mark.parametrize("cls", list(FACTORIES), ids=lambda c: c.__name__)
def test_each_model_has_the_members_of_its_protocols(cls):
    model = FACTORIES[cls]()
    assert isinstance(model, contract.Certifiable)
    for protocol in MODEL_PROTOCOLS:
        if isinstance(model, protocol):
            assert all(hasattr(model, m) for m in declared(protocol)), protocol.__name__
    # the members a model may lack have Model's defaults, read without a probe
    assert model.highs_sides and set(model.highs_sides) <= {"primal", "dual"}
    assert model._single_U is None or model._single_U[0] is model.U


def test_the_contract_describes_models_only():
    """The Protocols of conjugates live beside them, not in the solver contract."""
    from dualboost.conjugates import traits

    assert not hasattr(contract, "SmoothConjugate") and not hasattr(contract, "LowRankConjugate")
    reg = CappedRelativeEntropy(np.full(12, 1 / 12), nu=2, eta=10)
    assert isinstance(reg, traits.SmoothConjugate) and isinstance(reg, traits.SmoothPart)


def test_no_probing_of_models_in_solvers_and_problems():
    found = set()
    for folder in ("solvers", "problems"):
        for path in (ROOT / folder).glob("*.py"):
            for call in re.findall(r"\b(?:has|get)attr\([^()]*\)", path.read_text()):
                found.add((f"{folder}/{path.name}", call))
    assert found == ALLOWED


def test_the_contract_is_four_protocols_and_its_docstring_names_them():
    """Certifiable, CvxpyForms, LinearProgram, SmoothDual (the simplex, line, eta-family and step
    members are optional capabilities of SmoothDual with defaults on Model)."""
    protocols = {
        name
        for name in contract.__all__
        if inspect.isclass(obj := getattr(contract, name)) and getattr(obj, "_is_protocol", False)
    }
    assert protocols == {"Certifiable", "CvxpyForms", "LinearProgram", "SmoothDual"}
    assert all(f":class:`{name}`" in contract.__doc__ for name in protocols)
    capabilities = {"gap_from_gradient", "primal_from_edges", "weights", "line_start", "eta_family"}
    capabilities |= {"with_eta", "lp_limit", "dual_step_spread", "nonsmooth_reason"}
    assert capabilities <= declared(contract.SmoothDual)


def test_capabilities_a_model_lacks_say_so():
    """Model's defaults of the optional members: a clear error naming the model, never an
    AttributeError from deep inside a solver."""
    soft = FACTORIES[problems.SoftBoost]()
    assert not soft.eta_family and soft.lp_limit() is None
    with pytest.raises(NotImplementedError, match="softboost: the gap from the gradient"):
        soft.gap_from_gradient(np.full(5, 0.2), np.zeros(5))
    with pytest.raises(NotImplementedError, match="softboost: w\\(a\\) is the corrective steps'"):
        soft.weights(0.5)
    with pytest.raises(ValueError, match="not a family indexed by eta"):
        soft.with_eta(2.0)
    assert FACTORIES[problems.ERLPBoost]().eta_family
    line = FACTORIES[problems.CorrectiveERLPBoost]()
    assert 0.0 <= line.line_start() <= 1.0
