"""The totally corrective classifiers of [KG]: :class:`LPBoostClassifier` (Alg. 2.1),
:class:`SoftBoostClassifier` (Alg. 3.1), :class:`ERLPBoostClassifier` (Alg. 3.2) and
:class:`BinaryERLPBoostClassifier` (Alg. 3.3). The parameters, the Dask input and the fitted
attributes they share with the corrective ones are documented in :mod:`dualboost.estimators.base`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from sklearn.utils._param_validation import StrOptions

from dualboost.boosting.core.checkpoint import DEFAULT_EVERY
from dualboost.boosting.core.stopping import CRITERIA
from dualboost.estimators.base import BoostingClassifier
from dualboost.estimators.params import METHOD, NU_BELOW_ONE, POSITIVE, shared_parameters
from dualboost.oracles import DecisionStumps

__all__ = [
    "LPBoostClassifier",
    "SoftBoostClassifier",
    "ERLPBoostClassifier",
    "BinaryERLPBoostClassifier",
]


@shared_parameters
class LPBoostClassifier(BoostingClassifier):
    """LPBoost ([KG] Alg. 2.1): the soft-margin LP re-solved after every hypothesis.

    ``method``: the LP solver (``"highs"``, the default, or a cvxpy solver name). LPBoost has no
    iteration bound (Thm 2.5): ``max_iter=None`` means 1,000, as in the thesis. See
    :mod:`dualboost.estimators.base` for the other parameters and the fitted attributes.

    Parameters
    ----------
    max_iter : int, optional
        A cap on the iterations; None: 1,000 (LPBoost has no iteration bound, Thm 2.5).
    method : str, default "highs"
        The LP solver (``"highs"``, warm-started from the previous basis, or a cvxpy method).
    """

    _algorithm = "lpboost"
    _parameter_constraints = {**BoostingClassifier._parameter_constraints, "method": METHOD}

    def __init__(
        self,
        nu: float | str = "auto",
        eps: float = 0.01,
        max_iter: int | None = None,
        oracle: object = "stumps",
        method: str = "highs",
        checkpoint: str | None = None,
        checkpoint_every: int = DEFAULT_EVERY,
        resume: bool = False,
        max_time: float | None = None,
    ) -> None:
        self.nu = nu
        self.eps = eps
        self.max_iter = max_iter
        self.oracle = oracle
        self.method = method
        self.checkpoint = checkpoint
        self.checkpoint_every = checkpoint_every
        self.resume = resume
        self.max_time = max_time

    def _extra_params(self) -> dict:
        return {"method": self.method}

    def _weight_params(self, weights: NDArray[np.float64], nu: float) -> dict:
        """Weighted caps: ``d_n <= c_n = (w_n / sum w) N / nu_`` (``nu_`` the count of the N kept rows):
        LPBoost has no prior (it is the limit eta -> infinity of ERLPBoost, where only the prior's
        support is left), so a weight can only act through the caps, and these caps make the LP the
        one of the data with example n repeated ``w_n`` times (the copies share a margin, so their
        caps ``1/(nu W)`` add up to ``w_n / (nu W)``, W = sum w) whenever ``nu N >= 1``: integer
        weights equal repeated rows (:func:`~dualboost.boosting.totally_corrective.drivers.lpboost`,
        ``caps``). The dual is the soft margin with example n's slack weighted by ``c_n``."""
        n = weights.size
        return {"caps": weights / weights.sum() * n / nu}


@shared_parameters
class SoftBoostClassifier(BoostingClassifier):
    """SoftBoost ([KG] Alg. 3.1; TotalBoost when nu * N <= 1): relative-entropy projections onto the
    distributions under which every hypothesis so far has edge <= gamma_hat - eps.

    ``method``: the subproblem solver (``"auglag"`` default). ``max_iter=None``: Thm 3.2's bound.

    Parameters
    ----------
    max_iter : int, optional
        A cap on the iterations; None: Thm 3.2's bound.
    method : str, default "auglag"
        The subproblem solver.
    """

    _algorithm = "softboost"
    _parameter_constraints = {**BoostingClassifier._parameter_constraints, "method": METHOD}

    def __init__(
        self,
        nu: float | str = "auto",
        eps: float = 0.01,
        max_iter: int | None = None,
        oracle: object = "stumps",
        method: str = "auglag",
        checkpoint: str | None = None,
        checkpoint_every: int = DEFAULT_EVERY,
        resume: bool = False,
        max_time: float | None = None,
    ) -> None:
        self.nu = nu
        self.eps = eps
        self.max_iter = max_iter
        self.oracle = oracle
        self.method = method
        self.checkpoint = checkpoint
        self.checkpoint_every = checkpoint_every
        self.resume = resume
        self.max_time = max_time

    def _extra_params(self) -> dict:
        return {"method": self.method}


class _EntropicClassifier(BoostingClassifier):
    """The totally corrective entropy-regularised classifiers: eta, criterion and method."""

    _parameter_constraints = {
        **BoostingClassifier._parameter_constraints,
        "eta": [*POSITIVE, None],
        "method": METHOD,
        "criterion": [StrOptions(set(CRITERIA))],
    }

    def __init__(
        self,
        nu: float | str = "auto",
        eps: float = 0.01,
        eta: float | None = None,
        max_iter: int | None = None,
        oracle: object = "stumps",
        method: str = "auglag",
        criterion: str = "practical",
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
        self.method = method
        self.criterion = criterion
        self.checkpoint = checkpoint
        self.checkpoint_every = checkpoint_every
        self.resume = resume
        self.max_time = max_time

    def _extra_params(self) -> dict:
        return {
            "eta": self.eta,
            "method": self.method,
            "criterion": self.criterion,
        }


@shared_parameters
class ERLPBoostClassifier(_EntropicClassifier):
    """ERLPBoost ([KG] Alg. 3.2): LPBoost regularised by ``(1/eta) Delta(d, d0)``.

    ``eta``: None for the theoretical ``(2/eps) ln(N/nu_)`` (docs/math.md#canonical-eta); ``criterion``:
    ``"practical"`` (default) or ``"simple"`` (docs/math.md#erlpboost-stopping); ``method``: the
    subproblem solver (``"auglag"``, warm-started, default). ``max_iter=None``: Thm 3.12's (or 3.10's)
    bound.

    Parameters
    ----------
    eta : float, optional
        The entropy regularisation; None: the canonical ``(2/eps) ln(N/nu_)`` (docs/math.md#canonical-eta).
    max_iter : int, optional
        A cap on the iterations; None: Thm 3.12's (practical) or Thm 3.10's (simple) bound.
    method : str, default "auglag"
        The subproblem solver (``"auglag"``: warm-started).
    criterion : {"practical", "simple"}, default "practical"
        The stopping criterion (docs/math.md#erlpboost-stopping).
    """

    _algorithm = "erlpboost"

    def _dask_unsupported(self) -> str | None:
        """Dask input trains on the Dask path with decision stumps and the auglag solver, no checkpoint."""
        oracle = self.oracle
        stumps = (isinstance(oracle, str) and oracle == "stumps") or type(oracle) is DecisionStumps
        if stumps and self.method == "auglag" and self.checkpoint is None and not self.resume:
            return None
        given = [f"oracle={self.oracle!r}"] if not stumps else []
        given += [f"method={self.method!r}"] if self.method != "auglag" else []
        given += [f"checkpoint={self.checkpoint!r}"] if self.checkpoint is not None else []
        given += ["resume=True"] if self.resume else []
        return f" with {', '.join(given)}"


@shared_parameters
class BinaryERLPBoostClassifier(_EntropicClassifier):
    """Binary ERLPBoost ([KG] Alg. 3.3): ERLPBoost with the binary relative entropy, which keeps the
    caps implicit; ``nu`` must be < 1. Theoretical eta ``(2/eps)(ln(N/nu_) + 1)``; bounds Thms 3.21,
    3.23.

    Parameters
    ----------
    nu : float or "auto", default "auto"
        The capping as a fraction of the training set, below 1 (the binary entropy needs ``nu_ < N``);
        ``"auto"`` chooses it by validation (docs/boosting.md#the-default-nuauto).
    eta : float, optional
        The regularisation; None: the canonical ``(2/eps)(ln(N/nu_) + 1)``.
    max_iter : int, optional
        A cap on the iterations; None: Thm 3.23's (practical) or Thm 3.21's (simple) bound.
    method : str, default "auglag"
        The subproblem solver (``"auglag"``: warm-started).
    criterion : {"practical", "simple"}, default "practical"
        The stopping criterion (docs/math.md#erlpboost-stopping).
    """

    _algorithm = "binary_erlpboost"
    _binary_entropy = True
    _parameter_constraints = {**_EntropicClassifier._parameter_constraints, "nu": NU_BELOW_ONE}
