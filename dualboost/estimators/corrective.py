"""The corrective classifiers of [KG] Ch. 4: :class:`CorrectiveERLPBoostClassifier` (Alg. 4.1) and
:class:`CorrectiveBinaryERLPBoostClassifier` (Alg. 4.3). The parameters, the Dask input and the
fitted attributes they share with the totally corrective ones are documented in
:mod:`dualboost.estimators.base`.
"""

from __future__ import annotations

from sklearn.utils._param_validation import StrOptions

from dualboost.boosting.core.checkpoint import DEFAULT_EVERY
from dualboost.boosting.corrective.frank_wolfe import STEPS
from dualboost.estimators.base import BoostingClassifier
from dualboost.estimators.params import METHOD, NU_BELOW_ONE, POSITIVE, shared_parameters

__all__ = ["CorrectiveERLPBoostClassifier", "CorrectiveBinaryERLPBoostClassifier", "CORRECTIVE_MAX_ITER"]


#: the corrective classifiers' default cap on the iterations (see :class:`_CorrectiveClassifier`)
CORRECTIVE_MAX_ITER = 1000


class _CorrectiveClassifier(BoostingClassifier):
    """The corrective classifiers: eta and the step (``step``: the Frank-Wolfe rule, None for the
    clipped step of Alg. 4.1(b); ``method``: a solver for the exact step, ``step="line"``;
    docs/math.md#frank-wolfe-steps).

    ``max_iter`` defaults to :data:`CORRECTIVE_MAX_ITER` = 1000, not to the theorem's bound: the
    corrective algorithms need O(ln(N/nu)/eps^2) iterations ([SS] Thm 9, [KG] Sec 4.2: up to
    ``32 eta/eps + 1``, 184,000 for N = 400 at nu = 0.1 N, eps = 0.01), each of them cheap
    (one oracle call and an O(N) update, ~0.5 ms at N = 200 with stumps). 1000 iterations end in
    about a second on a few hundred rows and reach most of the accuracy; a run that stops there
    warns (``ConvergenceWarning``). ``max_iter=None`` runs to the theorem's bound.
    """

    _parameter_constraints = {
        **BoostingClassifier._parameter_constraints,
        "eta": [*POSITIVE, None],
        "method": [*METHOD, None],
        "step": [StrOptions(set(STEPS)), None],
    }

    def __init__(
        self,
        nu: float | str = "auto",
        eps: float = 0.01,
        eta: float | None = None,
        max_iter: int | None = CORRECTIVE_MAX_ITER,
        oracle: object = "stumps",
        method: str | None = None,
        checkpoint: str | None = None,
        checkpoint_every: int = DEFAULT_EVERY,
        resume: bool = False,
        step: str | None = None,
        max_time: float | None = None,
    ) -> None:
        self.nu = nu
        self.eps = eps
        self.eta = eta
        self.max_iter = max_iter
        self.oracle = oracle
        self.method = method
        self.checkpoint = checkpoint
        self.checkpoint_every = checkpoint_every
        self.resume = resume
        self.step = step
        self.max_time = max_time

    def _extra_params(self) -> dict:
        return {"eta": self.eta, "method": self.method, "step": self.step}


@shared_parameters
class CorrectiveERLPBoostClassifier(_CorrectiveClassifier):
    """Corrective ERLPBoost ([KG] Alg. 4.1): only the newest hypothesis's weight is set per
    iteration; many more, much cheaper iterations than ERLPBoost.

    ``method``: None for the clipped closed-form step of Alg. 4.1(b), or a solver name (e.g.
    ``"auglag"``) for the exact step from the corrective subproblem. ``step``: another Frank-Wolfe
    rule (``"classic"``, ``"short"``, ``"line"``, ``"pairwise"``; docs/math.md#frank-wolfe-steps).
    ``max_iter``: 1000 by default (see :data:`CORRECTIVE_MAX_ITER`); None: the bound ``32 eta/eps + 1``.

    Parameters
    ----------
    eta : float, optional
        The entropy regularisation; None: the canonical value (docs/math.md#canonical-eta).
    max_iter : int or None, default 1000
        A cap on the iterations (:data:`CORRECTIVE_MAX_ITER`); None: the bound ``32 eta/eps + 1``,
        O(ln(N/nu)/eps^2) iterations.
    method : str, optional
        None: the clipped closed-form step of Alg. 4.1(b); a solver name (e.g. ``"auglag"``): the exact step
        from the corrective subproblem.
    step : str, optional
        Another Frank-Wolfe rule (``"classic"``, ``"short"``, ``"line"``, ``"pairwise"``;
        docs/math.md#frank-wolfe-steps); None: the clipped step.
    """

    _algorithm = "corrective_erlpboost"


@shared_parameters
class CorrectiveBinaryERLPBoostClassifier(_CorrectiveClassifier):
    """Corrective Binary ERLPBoost ([KG] Alg. 4.3): the corrective algorithm with the binary relative
    entropy (``nu`` < 1); beta by the root of ``sum d = 1`` (Alg. 4.4).

    Parameters
    ----------
    nu : float or "auto", default "auto"
        The capping as a fraction of the training set, below 1 (the binary entropy); ``"auto"`` chooses it by
        validation.
    eta : float, optional
        The entropy regularisation; None: the canonical value (docs/math.md#canonical-eta).
    max_iter : int or None, default 1000
        A cap on the iterations (:data:`CORRECTIVE_MAX_ITER`); None: the bound ``32 eta/eps + 1``,
        O(ln(N/nu)/eps^2) iterations.
    method : str, optional
        None: the clipped closed-form step of Alg. 4.1(b); a solver name (e.g. ``"auglag"``): the exact step
        from the corrective subproblem.
    step : str, optional
        Another Frank-Wolfe rule (``"classic"``, ``"short"``, ``"line"``, ``"pairwise"``;
        docs/math.md#frank-wolfe-steps); None: the clipped step.
    """

    _algorithm = "corrective_binary_erlpboost"
    _binary_entropy = True
    _parameter_constraints = {**_CorrectiveClassifier._parameter_constraints, "nu": NU_BELOW_ONE}
