"""The parameters the estimators share, as scikit-learn's declarative constraints (each estimator's
``_parameter_constraints``, checked once at the start of ``fit``), and the capping nu: a fraction of
the training set in (0, 1] (docs/math.md#capping-nu), its count in [1, N], and the top of
``nu="auto"``'s grid."""

from __future__ import annotations

import inspect
import re
from numbers import Integral, Real

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions

from dualboost._validation import check_scalar
from dualboost.estimators.ties import class_prior
from dualboost.oracles import Oracle
from dualboost.oracles.registry import ORACLES
from dualboost.solvers import AUTO, METHODS

__all__ = [
    "NU_FRACTION",
    "NU_FRACTION_BELOW_ONE",
    "NU",
    "NU_BELOW_ONE",
    "AUTO_NU_SHARE",
    "POSITIVE",
    "COUNT",
    "MAX_TIME",
    "METHOD",
    "ORACLE",
    "check_nu_fraction",
    "auto_nu",
    "nu_count",
    "SHARED_PARAMETERS",
    "shared_parameters",
]


#: scikit-learn's declarative constraints of the parameters the estimators share (each estimator's
#: ``_parameter_constraints``, checked once at the start of ``fit`` with a ValueError naming the
#: parameter): nu as a fraction of the training set, in (0, 1] (or (0, 1) for the binary entropy)
NU_FRACTION = [Interval(Real, 0, 1, closed="right")]
NU_FRACTION_BELOW_ONE = [Interval(Real, 0, 1, closed="neither")]
#: the same, or ``"auto"`` (chosen by validation, :mod:`~dualboost.estimators.nu_selection`): the
#: classifiers of the soft-margin models
NU = [*NU_FRACTION, StrOptions({"auto"})]
NU_BELOW_ONE = [*NU_FRACTION_BELOW_ONE, StrOptions({"auto"})]
#: the top of ``nu="auto"``'s grid (:mod:`~dualboost.estimators.nu_selection`) is this share of the
#: largest capping under which both classes can carry half of d, ``2 min(N+, N-) / N``
#: (docs/math.md#capping-nu). 0.8 was the whole rule before nu was chosen by validation
#: (benchmarks/results/defaults_grid.txt); under validation 0.65 gave the better suite means
#: (benchmarks/results/defaults.txt: +0.14 against -0.76 points to AdaBoost-500 at CV seed 0; at seed 1
#: and on nine held-out noisy sets the two are within a few tenths), at 2/3 of the cost. The accuracy of
#: a noisy set changes fastest near the top (breast cancer with 30 % flips: +4.8 points at 0.8, -2.5 at
#: 0.65), hence the grid's finer first step.
AUTO_NU_SHARE = 0.65
#: a real > 0 (eps, eta, learning rates) and a count >= 1 (iterations, learners, passes)
POSITIVE = [Interval(Real, 0, None, closed="neither")]
COUNT = [Interval(Integral, 1, None, closed="left")]
#: a time limit in seconds for each boosting run of ``fit`` (``RunOptions.max_time``), or None
MAX_TIME = [Interval(Real, 0, None, closed="neither"), None]
#: a solve method of the registry (whether it applies to the model is the registry's ``accepts``)
METHOD = [StrOptions({*METHODS, AUTO})]  # ("auto": dualboost.solvers.auto)
#: the weak learner: a name of ``ORACLES``, an Oracle or a scikit-learn classifier
ORACLE = [StrOptions(set(ORACLES)), Oracle, HasMethods(["fit", "predict"])]


def check_nu_fraction(nu: object, *, below_one: bool = False) -> float:
    """nu as a fraction of the training set in (0, 1] (``below_one``: in (0, 1), as the binary
    relative entropy needs ``nu * N < N``), for a caller without ``_parameter_constraints`` (the CLI).

    Parameters
    ----------
    nu : object
        The value given for nu.
    below_one : bool, default False
        Require nu < 1.

    Returns
    -------
    float
        The checked fraction.
    """
    nu = check_scalar(nu, "nu")
    if below_one and not 0.0 < nu < 1.0:
        raise ValueError(f"nu must lie in (0, 1) (the binary entropy needs nu * N < N); got {nu!r}")
    if not 0.0 < nu <= 1.0:
        raise ValueError(f"nu must lie in (0, 1] (a fraction of the training set); got {nu!r}")
    return nu


def auto_nu(labels: ArrayLike) -> float:
    """The largest fraction ``nu="auto"`` tries (the top of its grid): ``AUTO_NU_SHARE * K min_c N_c /
    N`` for labels of K classes (``2 min(N+, N-) / N`` with two; docs/math.md#capping-nu). Above
    ``K min_c N_c / N`` the capped simplex (over the examples, or over the N(K-1) pairs of K classes,
    docs/math.md#multiclass) holds no d that gives every class the same mass: every such d gives a
    larger class more, the constant hypothesis that predicts it has a positive edge, and the
    soft-margin models collapse towards it.
    ``labels`` may be a dask array (its class counts are one reduction).

    Parameters
    ----------
    labels : array-like of shape (N,)
        The training labels (numpy or dask).

    Returns
    -------
    float
        The top fraction of the ``nu="auto"`` grid.
    """
    prior = class_prior(labels)
    if prior.size < 2:
        raise ValueError(f"y must have at least two classes (for nu='auto'); got {prior.size}")
    return float(AUTO_NU_SHARE * prior.size * np.min(prior))


def nu_count(nu_fraction: float, n_samples: int) -> float:
    """The count nu in [1, N] of models and drivers from the fraction in (0, 1] of estimators and the
    CLI (checked there): ``max(1, nu_fraction * N)`` (docs/math.md#capping-nu).

    Parameters
    ----------
    nu_fraction : float
        The fraction in (0, 1].
    n_samples : int
        N.

    Returns
    -------
    float
        nu in [1, N].
    """
    return float(min(max(1.0, nu_fraction * n_samples), n_samples))


#: the numpydoc entries of the parameters that the estimators describe word for word alike, written
#: once: :func:`shared_parameters` adds them to the "Parameters" section of each class that takes the
#: parameter and does not describe it itself
SHARED_PARAMETERS = {
    "nu": """nu : float or "auto", default "auto"
    The capping as a fraction of the training set in (0, 1]: the models get ``nu_ = max(1, nu N)``, so
    ``d_n <= 1/nu_`` (docs/math.md#capping-nu); ``nu N <= 1`` is the hard margin. ``"auto"`` chooses it by
    validation (docs/boosting.md#the-default-nuauto).""",
    "eps": """eps : float, default 0.01
    The precision: the stop guarantees a soft margin within eps of the best one of the hypothesis class.""",
    "oracle": """oracle : str, Oracle or classifier, default "stumps"
    The weak learner: ``"stumps"``, ``"raw"`` (raw features), ``"svm"`` (linear-kernel hypotheses), a
    :class:`~dualboost.oracles.Oracle`, or a scikit-learn classifier whose ``fit`` takes
    ``sample_weight``.""",
    "checkpoint": """checkpoint : str, optional
    A file to which ``fit`` saves its state every ``checkpoint_every`` iterations (None: no checkpoints).""",
    "checkpoint_every": """checkpoint_every : int, default 10
    The period of the checkpoints, in iterations.""",
    "resume": """resume : bool, default False
    Continue a killed run from ``checkpoint`` (docs/boosting.md#6-long-runs-checkpoints-and-resume).""",
    "max_time": """max_time : float, optional
    A time limit in seconds for each boosting run of ``fit``: the run stops at the first iteration
    boundary after it, certified, with ``stop_reason_ = "time limit"``.""",
}

_SECTION = "\nParameters\n----------\n"


def shared_parameters(cls: type) -> type:
    """Complete the "Parameters" section of ``cls``'s docstring (its last section) with the entries of
    :data:`SHARED_PARAMETERS` for the ``__init__`` parameters it does not describe, every entry in the
    order of the signature (a class decorator; only ``__doc__`` changes).

    Parameters
    ----------
    cls : type
        An estimator class whose docstring ends with its "Parameters" section.

    Returns
    -------
    type
        ``cls``, its docstring completed.
    """
    head, section, entries = inspect.cleandoc(cls.__doc__).partition(_SECTION)
    if not section:
        raise ValueError(f"{cls.__name__}'s docstring has no Parameters section")
    described = {}
    for entry in re.split(r"\n(?=\S)", entries.strip()):  # an entry starts at the margin
        described[entry.partition(" :")[0].strip()] = entry
    names = [name for name in inspect.signature(cls.__init__).parameters if name != "self"]
    described |= {
        name: SHARED_PARAMETERS[name] for name in names if name in SHARED_PARAMETERS and name not in described
    }
    order = {name: i for i, name in enumerate(names)}
    ordered = sorted(described, key=lambda name: order.get(name, len(order)))
    cls.__doc__ = head + section + "\n".join(described[name] for name in ordered) + "\n"
    return cls
