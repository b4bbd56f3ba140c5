"""Derivatives of a certified solve (docs/differentiation.md).

For the entropy-regularised max-edge models (:class:`~dualboost.problems.ERLPBoost`,
:class:`~dualboost.problems.TemperedERLPBoost`), whose dual is ``max_{w in simplex} D(w)`` with
``D(w) = -f*(-U w)`` and ``d = grad f*(-U w)``, the solution ``(w*, d*, V)`` (V the optimal value) is
a differentiable function of ``(U, eta, nu, d0)`` wherever the optimal face is stable: the support S
of w* (the hypotheses of positive weight) and the capped (and, for t < 1, zero) examples of d*. On
that face the KKT system ([KG] Eq. 3.10's optimality with the simplex multiplier lambda,
docs/differentiation.md#the-kkt-system)

    U_S^T grad f*(-U_S w_S; p) = lambda 1,      1^T w_S = 1

is smooth, and implicit differentiation gives, with ``H = hess f*(theta)`` (the regulariser's
:class:`~dualboost.conjugates.traits.LowRankHessian`) and ``J_p = d grad f* / d p`` at fixed theta,

    [U_S^T H U_S  1] [dw_S  ]   [dU_S^T d - U_S^T H dU_S w_S + U_S^T J_p dp]
    [1^T          0] [dlambda] = [0                                          ]

``dd = -H (U_S dw_S + dU_S w_S) + J_p dp`` and, by the envelope theorem,
``dV = d^T dU_S w_S - (d f* / d p) dp``. The parameter terms ([DERIVED], docs/differentiation.md#parameters):
``f_eta = (1/eta) f_1`` gives ``J_eta = H theta / eta`` and ``dV/deta = -f(d)/eta``; the prior enters as
``log_t d0 + eta theta`` (``ln d0`` at t = 1), so ``J_d0 = H diag(d0^-t) / eta`` and
``dV/dd0 = d0^-t (d0 - d) / eta``; the cap 1/nu moves the capped examples by ``-1/nu^2`` and the free
ones by ``s |C| / (nu^2 sum s)`` (s the curvature weights), and ``dV/dnu = sum_C psi_n / nu^2`` with
psi the cap multipliers.

:func:`differentiate` checks that the face is stable (within ``tol``) and raises a ValueError saying
which condition fails where the solution map is not differentiable: a hypothesis at weight 0 whose
reduced gradient ``lambda - u_j . d`` is 0 (a breakpoint), an example at its cap whose multiplier is
0 (a cap just binding), for t < 1 an example at 0 whose multiplier is 0, or a singular reduced
Hessian (w* not unique).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike, NDArray

from dualboost._validation import check_positive
from dualboost.conjugates import CappedRelativeEntropy, CappedTemperedRelativeEntropy, log_t
from dualboost.conjugates.traits import LowRankHessian
from dualboost.problems import ERLPBoost, Model, TemperedERLPBoost
from dualboost.solvers import Solution

__all__ = ["SolveDerivative", "differentiate", "FACE_TOL", "WEIGHT_TOL"]

#: the default tolerance of the face identification: weights, reduced gradients and multipliers below
#: it count as 0 (a certified solve at tol 1e-10 has them to ~1e-10; a derivative across a change of
#: face within 1e-7 would be meaningless at the scale of the finite differences that check it)
FACE_TOL = 1e-7
#: weights below it count as 0: near a breakpoint the dual is quadratic in the small weight, so a solve
#: certified to a gap eps determines it only to ~sqrt(eps) (3e-7 at eps = 1e-13)
WEIGHT_TOL = 1e-5


@dataclass
class SolveDerivative:
    """The derivative of ``(w*, d*, V)`` of a certified solve (module docstring): :meth:`jvp` and
    :meth:`vjp`, from one factorisation of the KKT matrix on the identified face.

    Attributes
    ----------
    w, d : ndarray
        The solution.
    value : float
        The optimal value V (the certified dual value).
    support : ndarray
        The indices S of the hypotheses with positive weight.
    capped : ndarray
        The indices of the examples at their cap.
    edge : float
        The multiplier lambda of ``sum w = 1`` (the common edge of the support).
    """

    model: Model
    w: NDArray[np.float64]
    d: NDArray[np.float64]
    value: float
    support: NDArray[np.intp]
    capped: NDArray[np.intp]
    edge: float
    theta: NDArray[np.float64]
    hessian: LowRankHessian
    cap_multipliers: NDArray[np.float64]
    _lu: tuple

    # --- the pieces ------------------------------------------------------------------------------
    @property
    def _t(self) -> float:
        return float(getattr(self.model.regularizer, "t", 1.0))

    def _H(self, v: NDArray[np.float64]) -> NDArray[np.float64]:
        return self.hessian.product(v)

    def _d0_weights(self) -> NDArray[np.float64]:
        """``d(log_t d0)/d d0 = d0^-t``."""
        return self.model.d0 ** (-self._t)

    def _nu_direction(self) -> NDArray[np.float64]:
        """``J_nu``: ``d grad f* / d nu`` at fixed theta (module docstring)."""
        nu = self.model.nu
        out = np.zeros(self.d.size)
        if self.capped.size == 0:
            return out
        s = self.hessian.g
        out[self.capped] = -1.0 / nu**2
        out += s * (self.capped.size / nu**2) / float(s.sum())
        return out

    def _solve(self, rhs: NDArray[np.float64]) -> NDArray[np.float64]:
        return scipy.linalg.lu_solve(self._lu, np.r_[rhs, 0.0])

    # --- products ------------------------------------------------------------------------------
    def jvp(
        self,
        dU: ArrayLike | None = None,
        deta: float = 0.0,
        dnu: float = 0.0,
        dd0: ArrayLike | None = None,
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], float]:
        """The directional derivative of ``(w*, d*, V)`` along ``(dU, deta, dnu, dd0)``.

        Parameters
        ----------
        dU : array_like or None
            A direction for U (N x T; None: 0).
        deta, dnu : float
            Directions for eta and nu.
        dd0 : array_like or None
            A direction for the prior (N entries, summing to 0 to stay on the simplex; None: 0).

        Returns
        -------
        tuple
            ``(dw, dd, dV)``.
        """
        model, S, w_S, d = self.model, self.support, self.w[self.support], self.d
        eta = model.eta
        dU = np.zeros_like(model.U) if dU is None else _matrix(dU, model.U.shape, "dU")
        dd0 = np.zeros(d.size) if dd0 is None else _vector(dd0, d.size, "dd0")
        deta, dnu = float(deta), float(dnu)
        U_S, dU_S = model.U[:, S], dU[:, S]
        move = dU_S @ w_S
        # J_p dp at fixed theta
        jp = self._H(self.theta) * (deta / eta) + self._H(self._d0_weights() * dd0) / eta
        jp += dnu * self._nu_direction()
        rhs = dU_S.T @ d - U_S.T @ self._H(move) + U_S.T @ jp
        sol = self._solve(rhs)
        dw = np.zeros(self.w.size)
        dw[S] = sol[:-1]
        dd = -self._H(U_S @ dw[S] + move) + jp
        dvalue = (
            float(d @ move) + self._value_partials() @ np.array([deta, dnu]) + float(self._value_d0() @ dd0)
        )
        return dw, dd, dvalue

    def vjp(
        self, gw: ArrayLike | None = None, gd: ArrayLike | None = None, gvalue: float = 0.0
    ) -> dict[str, NDArray[np.float64] | float]:
        """The gradients of ``gw . w* + gd . d* + gvalue V`` with respect to U, eta, nu and d0.

        Parameters
        ----------
        gw : array_like or None
            The cotangent of w* (T entries; None: 0).
        gd : array_like or None
            The cotangent of d* (N entries; None: 0).
        gvalue : float
            The cotangent of V.

        Returns
        -------
        dict
            ``{"U": N x T array, "eta": float, "nu": float, "d0": N array}``; the d0 gradient is that of
            the formula in d0 (project it onto ``sum = 0`` for a direction on the simplex).
        """
        model, S, w_S, d = self.model, self.support, self.w[self.support], self.d
        eta = model.eta
        gw = np.zeros(self.w.size) if gw is None else _vector(gw, self.w.size, "gw")
        gd = np.zeros(d.size) if gd is None else _vector(gd, d.size, "gd")
        gvalue = float(gvalue)
        U_S = model.U[:, S]
        c = gw[S] - U_S.T @ self._H(gd)
        a = self._solve(c)[:-1]  # K is symmetric: K^-1 [c; 0]
        y = U_S @ a + gd
        Hy = self._H(y)
        grad_U = np.zeros_like(model.U)
        grad_U[:, S] = np.outer(d, a) - np.outer(Hy, w_S) + gvalue * np.outer(d, w_S)
        partials = self._value_partials()
        return {
            "U": grad_U,
            "eta": float(self.theta @ Hy) / eta + gvalue * partials[0],
            "nu": float(self._nu_direction() @ y) + gvalue * partials[1],
            "d0": self._d0_weights() * Hy / eta + gvalue * self._value_d0(),
        }

    def _value_partials(self) -> NDArray[np.float64]:
        """``(dV/deta, dV/dnu)`` at fixed w: ``-f(d)/eta`` and ``sum_C psi / nu^2``."""
        reg = self.model.regularizer
        return np.array([-reg.value(self.d) / self.model.eta, self.cap_multipliers.sum() / self.model.nu**2])

    def _value_d0(self) -> NDArray[np.float64]:
        """``dV/dd0 = d0^-t (d0 - d) / eta`` at fixed w (``-d f*/d d0``, the envelope theorem on f*'s
        maximum: ``d Delta_t(d, d0)/d d0 = -d0^-t (d - d0)``)."""
        return self._d0_weights() * (self.model.d0 - self.d) / self.model.eta


def _matrix(x: ArrayLike, shape: tuple[int, int], name: str) -> NDArray[np.float64]:
    arr = np.asarray(x, dtype=np.float64)
    if arr.shape != shape or not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be a finite array of shape {shape}; got shape {arr.shape}")
    return arr


def _vector(x: ArrayLike, size: int, name: str) -> NDArray[np.float64]:
    arr = np.asarray(x, dtype=np.float64)
    if arr.shape != (size,) or not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be a finite vector of {size} entries; got shape {arr.shape}")
    return arr


def differentiate(
    model: Model, solution: Solution, tol: float = FACE_TOL, weight_tol: float = WEIGHT_TOL
) -> SolveDerivative:
    """The derivative of a certified solve of ``model`` (module docstring).

    Parameters
    ----------
    model : ERLPBoost or TemperedERLPBoost
        The model that was solved.
    solution : Solution
        Its certified solution (``status == "optimal"``; solve with a tight ``tol``, e.g. 1e-10, for
        derivatives to that precision).
    tol : float
        The face tolerance: reduced gradients and multipliers below it (relative to the largest edge,
        at least 1) count as 0.
    weight_tol : float
        Weights at most this count as 0 (:data:`WEIGHT_TOL`); such a weight with a zero reduced
        gradient is a breakpoint.

    Returns
    -------
    SolveDerivative
        :meth:`~SolveDerivative.jvp` and :meth:`~SolveDerivative.vjp`.

    Raises
    ------
    ValueError
        For another model, an uncertified solution, or where the solution map is not differentiable
        (the message names the hypothesis or example and the condition).
    """
    if not isinstance(model, (ERLPBoost, TemperedERLPBoost)):
        raise ValueError(f"model must be an ERLPBoost or a TemperedERLPBoost; got {type(model).__name__}")
    if not isinstance(solution, Solution) or solution.status != "optimal" or solution.w is None:
        raise ValueError("solution must be a certified Solution of the model (status 'optimal')")
    tol, weight_tol = check_positive(tol, "tol"), check_positive(weight_tol, "weight_tol")
    reg = model.regularizer
    assert isinstance(reg, (CappedRelativeEntropy, CappedTemperedRelativeEntropy))
    w = np.asarray(solution.w, dtype=np.float64)
    if w.size != model.n_hypotheses:
        raise ValueError(f"solution.w has {w.size} entries; the model has {model.n_hypotheses} hypotheses")
    theta = -(model.U @ w)
    d = reg.conjugate_grad(theta)
    edges = model.U.T @ d
    scale = max(1.0, float(np.abs(edges).max()))
    support = np.flatnonzero(w > weight_tol)
    edge = float(edges[support].mean())
    for j in np.flatnonzero(w <= weight_tol):
        if edge - edges[j] <= tol * scale:
            raise ValueError(
                f"not differentiable: hypothesis {j} has weight {w[j]:.3g} (within weight_tol = "
                f"{weight_tol:g} of 0) and reduced gradient {edge - edges[j]:.3g} (within tol = {tol:g}): "
                "a breakpoint of the support"
            )
    hessian = reg.conjugate_hessian(theta, d)
    capped, multipliers = _cap_multipliers(model, theta, d, hessian, tol * scale)
    K = np.zeros((support.size + 1, support.size + 1))
    U_S = model.U[:, support]
    HU = np.column_stack([hessian.product(U_S[:, k]) for k in range(support.size)])
    K[:-1, :-1] = U_S.T @ HU
    K[:-1, -1] = K[-1, :-1] = 1.0
    _check_reduced_hessian(K, support)
    lu = scipy.linalg.lu_factor(K)
    return SolveDerivative(
        model, w, d, float(model.dual_objective(w)), support, capped, edge, theta, hessian, multipliers, lu
    )


def _cap_multipliers(
    model: Model, theta: NDArray[np.float64], d: NDArray[np.float64], hessian: LowRankHessian, tol: float
) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
    """The capped examples and their multipliers ``psi_n = theta_n - (log_t cap - log_t d0_n)/eta -
    beta``, beta the multiplier of ``sum d = 1`` from the free examples (stationarity,
    docs/math.md#kkt-recovery); a ValueError where a cap (or, for t < 1, a zero) binds with multiplier
    within ``tol`` of 0, or where no example is free (nu = N: the map has no derivative in nu)."""
    reg = model.regularizer
    t = float(getattr(reg, "t", 1.0))
    eta, cap = model.eta, 1.0 / model.nu
    free = hessian.g > 0
    if not np.any(free):
        raise ValueError(
            "not differentiable: every example is at its cap or at 0 (nu = N or a degenerate face): "
            "the multiplier of sum d = 1 is not determined"
        )
    log_d0 = log_t(model.d0, t)
    beta = float(np.mean(theta[free] - (log_t(d[free], t) - log_d0[free]) / eta))
    capped = np.flatnonzero(~free & (d > 0)) if model.nu > 1.0 else np.zeros(0, dtype=np.intp)
    psi = theta[capped] - (log_t(np.array(cap), t) - log_d0[capped]) / eta - beta
    for n, value in zip(capped, psi, strict=True):
        if value <= tol:
            raise ValueError(
                f"not differentiable: example {n} is at its cap 1/nu with multiplier {value:.3g} "
                f"(within tol): a cap just binding"
            )
    zeros = np.flatnonzero(d == 0.0) if t < 1.0 else np.zeros(0, dtype=np.intp)  # (t >= 1: underflow)
    for n in zeros:  # t < 1: the multiplier of d_n >= 0
        value = beta + (-1.0 / (1.0 - t) - log_d0[n]) / eta - theta[n]  # log_t 0 = -1/(1-t)
        if value <= tol:
            raise ValueError(
                f"not differentiable: example {n} has weight 0 with multiplier {value:.3g} (within tol): "
                "a zero just binding"
            )
    for n in np.flatnonzero(free & (d >= cap * (1.0 - 1e-9))):
        raise ValueError(f"not differentiable: example {n} is free and at its cap (a cap just binding)")
    return capped, psi


def _check_reduced_hessian(K: NDArray[np.float64], support: NDArray[np.intp]) -> None:
    """A ValueError where the KKT matrix is singular on the face (w* not unique): the Hessian of D on
    the support, restricted to ``sum dw = 0``, has a zero eigenvalue (relative 1e-12)."""
    k = support.size
    if k == 1:
        return
    A = K[:-1, :-1]
    # an orthonormal basis of {sum v = 0} on the support
    Z = scipy.linalg.null_space(np.ones((1, k)))
    eig = np.linalg.eigvalsh(Z.T @ A @ Z)
    if eig.min() <= 1e-12 * max(1.0, float(np.abs(eig).max())):
        raise ValueError(
            f"not differentiable: the reduced Hessian on the support {support.tolist()} is singular "
            f"(smallest eigenvalue {eig.min():.3g}): w* is not unique"
        )
