"""scikit-learn front-ends of the algorithms of miniboosts (docs/models.md#algorithms-of-miniboosts):

* :class:`MLPBoostClassifier`: MLPBoost ([MHT22], :func:`~dualboost.boosting.mlpboost`), the
  Frank-Wolfe step of Corrective ERLPBoost or LPBoost's LP, whichever has the larger regularised dual;
* :class:`MaxEdgeAdaBoostClassifier`: AdaBoost with the oracle's max-edge hypothesis each round, as in
  every experiment of [KG] (:func:`~dualboost.boosting.adaboost`; ``dualboost boost --algorithm
  adaboost`` fits it);
* :class:`AdaBoostVClassifier`: AdaBoost* ([RW05], :func:`~dualboost.boosting.adaboostv`), the hard
  margin to within ``tolerance``;
* :class:`SmoothBoostClassifier`: SmoothBoost ([Ser03], :func:`~dualboost.boosting.smoothboost`),
  distributions capped at ``1/(kappa N)`` and training error below kappa.

They share ``fit``, ``predict``, ``decision_function``, ``margins``, the staged predictions,
checkpoints (``checkpoint``, ``checkpoint_every``, ``resume``) and model files with the classifiers
of :mod:`dualboost.estimators.base`. ``nu_`` is the capping count of the model: the one given
(MLPBoost), 1 (AdaBoost and AdaBoost*: the hard margin, no capping) or ``kappa N`` (SmoothBoost: its
distributions satisfy ``d_n <= 1/(kappa N)``). ``sample_weight``: the prior d0 of the relative
entropy (MLPBoost), the first distribution (AdaBoost, AdaBoost*), the measure of the examples in place of the
uniform one (SmoothBoost); rows of weight 0 are removed.
"""

from __future__ import annotations

from numbers import Real

from numpy.typing import ArrayLike
from sklearn.utils._param_validation import Interval, StrOptions

from dualboost.boosting.core.checkpoint import DEFAULT_EVERY
from dualboost.boosting.core.stopping import ADABOOST_MAX_ITER
from dualboost.boosting.corrective.frank_wolfe import STEPS
from dualboost.estimators.base import BoostingClassifier
from dualboost.estimators.corrective import CORRECTIVE_MAX_ITER
from dualboost.estimators.params import POSITIVE, shared_parameters

__all__ = ["MLPBoostClassifier", "MaxEdgeAdaBoostClassifier", "AdaBoostVClassifier", "SmoothBoostClassifier"]


@shared_parameters
class MLPBoostClassifier(BoostingClassifier):
    """MLPBoost ([MHT22]; docs/math.md#mlpboost): each iteration takes the Frank-Wolfe step of
    Corrective ERLPBoost (rule ``step``, docs/math.md#frank-wolfe-steps) or the solution of LPBoost's LP
    over the hypotheses so far (HiGHS), whichever has the larger regularised dual value.

    ``nu``, ``eps``, ``eta``: as for :class:`~dualboost.estimators.CorrectiveERLPBoostClassifier` (the
    same stopping rule, certified: the soft margin within eps of the best one). ``step``: None (the
    clipped step) or one of ``"clipped"``, ``"classic"``, ``"short"``, ``"line"``, ``"pairwise"``.
    ``max_iter``: 1000 by default (each iteration solves an LP; the bound is O(ln(N/nu)/eps^2));
    None: the bound.

    Parameters
    ----------
    eta : float, optional
        The entropy regularisation; None: the canonical value (docs/math.md#canonical-eta).
    max_iter : int or None, default 1000
        A cap on the iterations; None: the bound of the step rule.
    step : str, optional
        The Frank-Wolfe rule of the corrective step (default ``"clipped"``; docs/math.md#frank-wolfe-steps).
    """

    _algorithm = "mlpboost"
    _parameter_constraints = {
        **BoostingClassifier._parameter_constraints,
        "eta": [*POSITIVE, None],
        "step": [StrOptions(set(STEPS)), None],
    }

    def __init__(
        self,
        nu: float | str = "auto",
        eps: float = 0.01,
        eta: float | None = None,
        max_iter: int | None = CORRECTIVE_MAX_ITER,
        oracle: object = "stumps",
        step: str | None = None,
        checkpoint: str | None = None,
        checkpoint_every: int = DEFAULT_EVERY,
        resume: bool = False,
        max_time: float | None = None,
    ) -> None:
        self.nu = nu
        self.eps = eps
        self.eta = eta
        self.max_iter = max_iter
        self.oracle = oracle
        self.step = step
        self.checkpoint = checkpoint
        self.checkpoint_every = checkpoint_every
        self.resume = resume
        self.max_time = max_time

    def _extra_params(self) -> dict:
        return {"eta": self.eta, "step": self.step}


class _UncappedClassifier(BoostingClassifier):
    """A classifier whose driver takes no capping nu and no eps: its own parameters instead
    (:meth:`_extra_params`); ``nu_`` is the capping that its distributions satisfy (:meth:`_capping`)."""

    _parameter_constraints = {
        name: rule
        for name, rule in BoostingClassifier._parameter_constraints.items()
        if name not in ("nu", "eps")
    }

    def _loop_params(self, labels: ArrayLike) -> dict:
        return {"max_iter": None if self.max_iter is None else int(self.max_iter)}

    def _capping(self, n_samples: int) -> float:
        raise NotImplementedError

    def _store(self, result, classes, labels, weights=None) -> None:
        super()._store(result, classes, labels, weights)
        self.nu_ = result.params.get("nu", self._capping(result.d.size))


@shared_parameters
class MaxEdgeAdaBoostClassifier(_UncappedClassifier):
    """AdaBoost with the oracle's max-edge hypothesis each round ([KG]'s baseline; module docstring):
    ``max_iter`` rounds (default 1,000), no stopping rule. scikit-learn's ``AdaBoostClassifier`` is
    the same algorithm with a tree learner (SAMME for K > 2 classes; here K classes run over the
    (example, wrong class) pairs as every classifier of docs/boosting.md#multiclass).

    Parameters
    ----------
    max_iter : int, default 1000
        Rounds (AdaBoost has no stopping rule).
    """

    _algorithm = "adaboost"

    def __init__(
        self,
        max_iter: int = ADABOOST_MAX_ITER,
        oracle: object = "stumps",
        checkpoint: str | None = None,
        checkpoint_every: int = DEFAULT_EVERY,
        resume: bool = False,
        max_time: float | None = None,
    ) -> None:
        self.max_iter = max_iter
        self.oracle = oracle
        self.checkpoint = checkpoint
        self.checkpoint_every = checkpoint_every
        self.resume = resume
        self.max_time = max_time

    def _capping(self, n_samples: int) -> float:
        return 1.0


@shared_parameters
class AdaBoostVClassifier(_UncappedClassifier):
    """AdaBoost* ([RW05]; miniboosts' AdaBoostV; docs/math.md#adaboostv): AdaBoost whose weights aim at
    the margin ``min_q gamma_q - tolerance``; the output's hard margin is within ``tolerance`` of the
    best one of the oracle's class.

    ``tolerance`` in (0, 1]: the precision that [RW05] calls nu (not a capping: AdaBoost* maximises the
    hard margin, ``nu_ = 1``). ``max_iter``: None (default) for [RW05]'s bound
    ``ceil(2 ln(N) / tolerance^2)``; the run usually stops much earlier, when the margin guarantee is
    met.

    Parameters
    ----------
    tolerance : float, default 0.1
        In (0, 1]: the precision of the hard margin ([RW05]'s nu, not a capping).
    max_iter : int, optional
        A cap on the rounds; None: ``ceil(2 ln(N) / tolerance^2)``, by which the guarantee holds.
    """

    _algorithm = "adaboostv"
    _parameter_constraints = {
        **_UncappedClassifier._parameter_constraints,
        "tolerance": [Interval(Real, 0, 1, closed="right")],
    }

    def __init__(
        self,
        tolerance: float = 0.1,
        max_iter: int | None = None,
        oracle: object = "stumps",
        checkpoint: str | None = None,
        checkpoint_every: int = DEFAULT_EVERY,
        resume: bool = False,
        max_time: float | None = None,
    ) -> None:
        self.tolerance = tolerance
        self.max_iter = max_iter
        self.oracle = oracle
        self.checkpoint = checkpoint
        self.checkpoint_every = checkpoint_every
        self.resume = resume
        self.max_time = max_time

    def _extra_params(self) -> dict:
        return {"tolerance": float(self.tolerance)}

    def _capping(self, n_samples: int) -> float:
        return 1.0


@shared_parameters
class SmoothBoostClassifier(_UncappedClassifier):
    """SmoothBoost ([Ser03]; docs/math.md#smoothboost): every distribution the weak learner sees
    is smooth, ``d_n <= 1/(kappa N)``, and the output's training error is below ``kappa`` (fewer than
    kappa N examples have margin ``<= gamma / (2 + gamma)``).

    ``kappa`` in (0, 1): the target training error; ``gamma`` in (0, 1/2): the advantage assumed of the
    weak learner (edges ``>= 2 gamma``); ``max_iter``: None (default) for [Ser03]'s bound
    ``2 / (kappa gamma^2 sqrt(1 - gamma))``; a weak learner without that advantage may reach it (a
    ``ConvergenceWarning``). ``nu_ = kappa N``, the capping its distributions satisfy.

    Parameters
    ----------
    kappa : float, default 0.1
        In (0, 1): the target fraction of training examples with margin <= theta.
    gamma : float, default 0.05
        In (0, 1/2): the advantage the weak learner is assumed to have.
    max_iter : int, optional
        A cap on the rounds; None: the bound of [Ser03].
    """

    _algorithm = "smoothboost"
    _parameter_constraints = {
        **_UncappedClassifier._parameter_constraints,
        "kappa": [Interval(Real, 0, 1, closed="neither")],
        "gamma": [Interval(Real, 0, 0.5, closed="neither")],
    }

    def __init__(
        self,
        kappa: float = 0.1,
        gamma: float = 0.05,
        max_iter: int | None = None,
        oracle: object = "stumps",
        checkpoint: str | None = None,
        checkpoint_every: int = DEFAULT_EVERY,
        resume: bool = False,
        max_time: float | None = None,
    ) -> None:
        self.kappa = kappa
        self.gamma = gamma
        self.max_iter = max_iter
        self.oracle = oracle
        self.checkpoint = checkpoint
        self.checkpoint_every = checkpoint_every
        self.resume = resume
        self.max_time = max_time

    def _extra_params(self) -> dict:
        return {"kappa": float(self.kappa), "gamma": float(self.gamma)}

    def _capping(self, n_samples: int) -> float:
        return float(self.kappa) * n_samples
