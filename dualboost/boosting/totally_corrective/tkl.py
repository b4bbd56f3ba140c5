"""tKlBoost: ERLPBoost regularised by the total Kullback-Leibler divergence ([LV11] M. Liu and B. C.
Vemuri, CVPR 2011; docs/tempered.md#total-kl), as the 2009 C++ code of Vishwanathan and Warmuth
runs it.

The C++ code's ``tKlBoost`` is its ERLPBoost (the KL regulariser; the prior is uniform and fixed,
so ``tKL = KL / c`` with ``c = sqrt(1 + (ln N - 1)^2)``, :func:`~dualboost.conjugates.total_entropy.
total_kl_scale`) with its parameters set from one number D in (0, 1]: the cap count ``nu = 1/D`` and
the KL coefficient ``lambda = eps c / (2 ln(N D))``, i.e. a KL eta ``2 ln(N D) / (eps c)``, the
canonical eta ``(2/eps) ln(N/nu)`` divided by c. :func:`tklboost` runs [KG] Alg. 3.2 with
``(1/eta) tKL(d, d0)`` (:class:`~dualboost.conjugates.total_entropy.CappedTotalRelativeEntropy`),
default ``eta = 2 ln(N D) / (eps c^2)``: the same KL coefficient as the C++ run.
"""

from __future__ import annotations

import math

import numpy as np

from dualboost._validation import check_positive, check_scalar
from dualboost.boosting.core.options import RunOptions, takes_run_options
from dualboost.boosting.core.result import BoostResult
from dualboost.boosting.core.run import check_oracle
from dualboost.boosting.totally_corrective.drivers import _entropy_regularized
from dualboost.conjugates.total_entropy import CappedTotalRelativeEntropy, total_kl_scale
from dualboost.problems import ERLPBoost

__all__ = ["tklboost", "tkl_parameters"]


def tkl_parameters(n_samples: int, D: float, eps: float) -> tuple[float, float]:
    """``(nu, eta)`` of the C++ code's tKlBoost (module docstring): ``nu = 1/D`` and the tKL eta
    ``2 ln(N D) / (eps c^2)``, ``c = sqrt(1 + (ln N - 1)^2)``.

    Parameters
    ----------
    n_samples : int
        N.
    D : float
        The C++ code's D in (0, 1] (1/7, 1/5, 1/3 in its configurations), with ``N D > 1``.
    eps : float
        The accuracy > 0.

    Returns
    -------
    tuple
        ``(nu, eta)``.
    """
    D = check_scalar(D, "D")
    if not 0.0 < D <= 1.0 or n_samples * D <= 1.0:
        raise ValueError(f"D must lie in (1/N, 1] = ({1.0 / n_samples:.3g}, 1] (nu = 1/D); got {D!r}")
    eps = check_positive(eps, "eps")
    c = total_kl_scale(np.full(n_samples, 1.0 / n_samples))
    return 1.0 / D, 2.0 * math.log(n_samples * D) / (eps * c * c)


@takes_run_options
def tklboost(
    oracle,
    *,
    D: float = 1.0 / 7.0,
    eps: float = 0.01,
    eta: float | None = None,
    max_iter: int | None = None,
    criterion: str = "practical",
    method: str = "auglag",
    tol: float | None = None,
    options: RunOptions,
) -> BoostResult:
    """tKlBoost (module docstring): ERLPBoost with ``(1/eta) tKL(d, d0)``, d0 uniform, ``nu = 1/D``.

    Parameters
    ----------
    oracle : Oracle
        A fitted oracle.
    D : float
        The C++ code's parameter in (1/N, 1]: nu = 1/D.
    eps : float
        The accuracy of the stop ``delta~ <= eps/2``.
    eta : float or None
        The tKL coefficient's inverse; None: :func:`tkl_parameters` (the C++ code's).
    max_iter, criterion, method, tol
        As for :func:`~dualboost.boosting.erlpboost`.
    options : RunOptions

    Returns
    -------
    BoostResult
        The run; ``params["eta"]`` is the KL eta ``eta c`` the subproblems use.
    """
    n = check_oracle(oracle)
    nu, default_eta = tkl_parameters(n, D, eps)
    regularizer = CappedTotalRelativeEntropy(np.full(n, 1.0 / n), nu, default_eta if eta is None else eta)
    return _entropy_regularized(
        ERLPBoost,
        "tklboost",
        oracle,
        nu=nu,
        eps=eps,
        eta=regularizer.eta,
        max_iter=max_iter,
        criterion=criterion,
        method=method,
        tol=tol,
        options=options,
    )
