"""The exact conjugate of ``f~ = f + I_S`` for a strictly convex f built by the library
(docs/math.md#exact-restriction).

For the sums the calculus builds on the simplex S (:func:`dualboost.conjugates.simplex.restrict_to_simplex`),

    f(d) = alpha sum_n d_n ln d_n + (kappa/2) ||d||_2^2 + <a, d> + b  on  {d in S : d <= u, ||d - c|| <= r},

with ``alpha`` the summed weights of the relative entropies (their priors go into the linear term
``a``), ``kappa`` that of ``(1/2)||.||_2^2``, ``u`` the tightest cap (``CappedSimplex``, an l_inf ball,
a capped entropy) and at most one l2 ball (centred at ``c``: a :class:`~dualboost.conjugates.Shifted`
ball). When ``alpha > 0`` or ``kappa > 0`` the maximiser ``d = grad f~*(theta)`` of
``<theta, d> - f(d)`` over that set is unique, and given the multipliers beta (of ``sum d = 1``) and
lambda >= 0 (of the ball) it is a closed form per coordinate: with ``K = kappa + lambda`` and
``y_n = theta_n - a_n - alpha - beta + lambda c_n``, ``d_n`` solves ``alpha ln d + K d = y_n``, i.e.

    d_n = min(u, (alpha / K) W(y_n / alpha + ln(K / alpha)))      (W: the Wright omega function)

(``min(u, exp(y_n / alpha))``, the capped softmax, when ``K = 0``; ``clip(y_n / K, 0, u)`` when
``alpha = 0``). beta is the root of the decreasing ``sum_n d_n(beta) = 1`` (bracketed, safeguarded
Newton), and lambda, where the ball binds, the root of the decreasing ``1/r - 1/||d(lambda) - c||``
(safeguarded Newton, the secular-equation form of Moré and Sorensen). Both run to machine precision;
the value is ``f~*(theta) = <theta, d> - f(d)`` (Fenchel-Young equality, [SS] Lemma 17).

Hessian: implicit differentiation of the stationarity conditions gives
``hess f~*(theta) = G - G B (B^T G B)^-1 B^T G`` with ``G = diag(g)``, ``g_n = d_n / (alpha + K d_n)``
on the uncapped coordinates (0 on the capped ones), and ``B = [1]`` or ``[1, d - c]`` when the ball
binds (docs/math.md#exact-restriction): a diagonal minus a rank-one or rank-two term, which the dual
solvers use as they use the capped softmax's ``eta (diag s - s s^T / sum s)``
(:meth:`ExactRestrictionMixin.conjugate_hessian`, the one form of
:class:`~dualboost.conjugates.traits.SmoothConjugate`).

The closed forms (:class:`~dualboost.conjugates.CappedRelativeEntropy`,
:class:`~dualboost.conjugates.CappedBinaryRelativeEntropy`) stay as they are; :func:`exact_restriction`
wraps what has none.
"""

from __future__ import annotations

import copy
import math
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import entr, wrightomega

from dualboost._validation import check_vector
from dualboost.conjugates.base import ConvexFunction, CvxpyForm
from dualboost.conjugates.calculus import Scaled, Shifted, Sum, Tilted
from dualboost.conjugates.entropy import CappedBinaryRelativeEntropy, CappedRelativeEntropy
from dualboost.conjugates.indicators import CappedSimplex
from dualboost.conjugates.norms import HalfSquaredNorm, NormBall
from dualboost.conjugates.projections import capped_softmax, project_capped_simplex
from dualboost.conjugates.relative_entropy import RelativeEntropy, UnnormalisedRelativeEntropy
from dualboost.conjugates.restriction import SimplexRestriction
from dualboost.conjugates.stable import entropy_excess
from dualboost.conjugates.tempered import CappedTemperedRelativeEntropy
from dualboost.conjugates.traits import LowRankHessian

__all__ = [
    "SimplexPieces",
    "simplex_pieces",
    "exact_restriction",
    "ExactRestrictionMixin",
    "ExactRestriction",
    "ExactRestrictedSum",
    "ExactSimplexRestriction",
    "LowRankHessian",
]

_EPS = np.finfo(float).eps
#: iterations of each safeguarded root search (each halves its bracket at worst: 200 exhaust float64)
_MAX_ROOT_STEPS = 200
#: the number of recent solutions whose multipliers are remembered (for ``conjugate_hessian``
#: from a d alone: the dual solvers pass back the d that ``conjugate_and_grad`` returned)
_REMEMBERED = 8
#: Newton steps on (beta, lambda) together from a warm start before the bracketed searches
_JOINT_STEPS = 30


# --- the structure of f + I_S -------------------------------------------------------------------
@dataclass
class SimplexPieces:
    """``f`` on the simplex in the form of the module docstring, collected from the calculus tree."""

    n: int
    alpha: float = 0.0
    kappa: float = 0.0
    linear: NDArray[np.float64] = field(default=None)  # type: ignore[assignment]
    offset: float = 0.0
    cap: float = 1.0
    zero: NDArray[np.bool_] = field(default=None)  # type: ignore[assignment]
    balls: list[tuple[NDArray[np.float64], float]] = field(default_factory=list)
    #: the relative entropies as (weight, prior), whose ``-weight ln prior`` is in ``linear``: with
    #: one, f's value keeps its exact form ``alpha KL(d, prior) + ...`` (docs/math.md#stable-evaluation)
    entropies: list[tuple[float, NDArray[np.float64]]] = field(default_factory=list)
    #: the linear terms that are not an entropy's (of Tilted pieces)
    tilt: NDArray[np.float64] = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.linear is None:
            self.linear = np.zeros(self.n)
        if self.zero is None:
            self.zero = np.zeros(self.n, dtype=bool)
        if self.tilt is None:
            self.tilt = np.zeros(self.n)

    @property
    def strictly_convex(self) -> bool:
        return self.alpha > 0.0 or self.kappa > 0.0


def _collect(f: ConvexFunction, c: float, acc: SimplexPieces) -> str | None:
    """Add ``c f`` to ``acc``; the reason when a piece has no place in the form (else None)."""
    if f.n is not None and f.n != acc.n:
        return f"{f!r} has dimension {f.n}, expected {acc.n}"
    if isinstance(f, Sum):
        return _collect(f.f, c, acc) or _collect(f.g, c, acc)
    if isinstance(f, SimplexRestriction):
        return _collect(f.f, c, acc)
    if isinstance(f, Scaled):
        return _collect(f.f, c * f.c, acc)
    if isinstance(f, Tilted):
        if f.a is not None:
            acc.linear += c * f.a
            acc.tilt += c * f.a
        acc.offset += c * f.offset
        return _collect(f.f, c, acc)
    if isinstance(f, (RelativeEntropy, UnnormalisedRelativeEntropy)):
        d0, log_d0 = f.prior(acc.n)
        acc.alpha += c
        acc.linear -= c * log_d0
        acc.entropies.append((c, d0))
        if isinstance(f, UnnormalisedRelativeEntropy):  # - sum d + sum d0 is constant on S
            acc.offset += c * (float(d0.sum()) - 1.0)
        return None
    if isinstance(f, CappedRelativeEntropy):
        weight = c / f.eta
        acc.alpha += weight
        acc.zero |= f.d0 <= 0.0
        acc.linear -= weight * np.where(f.d0 > 0.0, f._log_d0, 0.0)
        acc.entropies.append((weight, f.d0))
        acc.cap = min(acc.cap, 1.0 / f.nu)
        return None
    if isinstance(f, CappedSimplex):
        acc.cap = min(acc.cap, 1.0 / f.nu)
        return None
    if isinstance(f, NormBall):
        if f.p == np.inf:
            acc.cap = min(acc.cap, f.radius)
        elif f.p == 2.0:
            acc.balls.append((np.zeros(acc.n), f.radius))
        elif f.radius < 1.0:  # the l1 ball is all of S or misses it
            return f"the l1 ball of radius {f.radius:g} does not meet the simplex"
        return None
    if isinstance(f, Shifted) and isinstance(f.f, NormBall) and f.f.p == 2.0:
        acc.balls.append((-f.a, f.f.radius))  # ||d + a||_2 <= r: centre -a
        return None
    if isinstance(f, HalfSquaredNorm) and f.p == 2.0:
        acc.kappa += c
        return None
    return f"{f!r} has no place in the exact inner solve (entropies, (1/2)||.||_2^2, caps, one l2 ball)"


def simplex_pieces(f: ConvexFunction, n: int) -> tuple[SimplexPieces | None, str]:
    """``(pieces, "")`` when ``f + I_S`` (in dimension n) has the form of the module docstring with a
    strictly convex part, else ``(None, reason)``: why the exact gradient of f~* is not available.

    Parameters
    ----------
    f : ConvexFunction
        The function restricted to the simplex.
    n : int
        The dimension N.

    Returns
    -------
    tuple of (SimplexPieces or None, str)
        The pieces, or None and the reason.
    """
    acc = SimplexPieces(n)
    reason = _collect(f, 1.0, acc)
    if reason is None and len(acc.balls) > 1:
        reason = "more than one l2 ball (one multiplier per ball; the inner solve handles one)"
    if reason is None and not acc.strictly_convex:
        reason = (
            "f has no strictly convex part on the simplex (no entropy, no (1/2)||.||_2^2), so the "
            "maximiser of <theta, d> - f(d) is not unique and f~* is not differentiable"
        )
    if reason is None and acc.cap * np.count_nonzero(~acc.zero) < 1.0 - 1e-12:
        reason = f"the cap d <= {acc.cap:g} leaves no point of the simplex"
    return (None, reason) if reason else (acc, "")


# --- the inner solve ------------------------------------------------------------------------------
class _Solved(NamedTuple):
    """The maximiser and its multipliers: ``g = dd/dy`` (0 on capped coordinates), beta, lambda."""

    d: NDArray[np.float64]
    g: NDArray[np.float64]
    beta: float
    lam: float


class _InnerSolver:
    """The multipliers (beta, lambda) of the module docstring's inner problem, by root searches."""

    def __init__(self, pieces: SimplexPieces) -> None:
        self.n = pieces.n
        self.alpha, self.kappa, self.cap = pieces.alpha, pieces.kappa, pieces.cap
        self.zero = pieces.zero if pieces.zero.any() else None
        self.n_free = int(np.count_nonzero(~pieces.zero))
        self.linear, self.offset = pieces.linear, pieces.offset
        # y = theta + base - beta + lambda c
        self.base = -pieces.linear - pieces.alpha
        if self.zero is not None:
            self.base = np.where(self.zero, -np.inf, self.base)
        self.ball = pieces.balls[0] if pieces.balls else None
        self.nu = 1.0 / self.cap
        self._exact_entropy = self._entropy_form(pieces)
        if self.ball is not None:
            self._check_ball(pieces)

    def _cold_lambda(self, theta_base: NDArray[np.float64]) -> float:
        """A first lambda where the ball binds: with the quadratic term alone, d is the point p of the
        capped simplex nearest the centre plus the centred ``y / K``, and ``||d - c|| = r`` gives
        ``K = ||y - mean y|| / sqrt(r^2 - ||p - c||^2)``; the entropy's curvature only lowers the
        lambda needed (measured: 0.5-0.8 of this at N = 500 to 100,000)."""
        centre, radius = self.ball
        y = theta_base + self.alpha if self.zero is None else (theta_base + self.alpha)[~self.zero]
        spread = float(np.linalg.norm(y - y.mean()))
        room = radius * radius - self._distance**2
        lam = spread / np.sqrt(room) - self.kappa if room > 0.0 else np.nan
        return lam if np.isfinite(lam) and lam > 0.0 else 1.0

    def _check_ball(self, pieces: SimplexPieces) -> None:
        """The ball must contain a point of the capped simplex in its interior (else lambda is
        unbounded): the distance from its centre to the capped simplex (on the coordinates not forced
        to 0, by the Euclidean projection) must be below its radius."""
        centre, radius = self.ball
        free = ~pieces.zero
        nearest = project_capped_simplex(centre[free], min(self.nu, float(self.n_free)))
        distance = float(np.sqrt(np.sum((nearest - centre[free]) ** 2) + np.sum(centre[~free] ** 2)))
        self._distance = distance
        if not distance < radius * (1.0 - 1e-12):
            raise ValueError(
                f"the l2 ball of radius {radius:g} does not meet the simplex in more than a point "
                f"(its centre is {distance:g} from the simplex and its caps)"
            )

    # -- d from the multipliers --------------------------------------------------------------
    def d_at(self, z: NDArray[np.float64], beta: float, lam: float) -> tuple[NDArray, NDArray]:
        """``(d, g)`` at ``(beta, lambda)`` for ``z = theta + base + lambda c`` (K > 0)."""
        K = self.kappa + lam
        y = z - beta
        if self.alpha > 0.0:
            d = wrightomega(y / self.alpha + np.log(K / self.alpha))
            d *= self.alpha / K
            g = d / (self.alpha + K * d)
        else:
            d = np.maximum(y / K, 0.0)
            g = np.where(d > 0.0, 1.0 / K, 0.0)
        capped = d >= self.cap
        if capped.any():
            d[capped] = self.cap
            g[capped] = 0.0
        return d, g

    def softmax(self, z: NDArray[np.float64]) -> _Solved:
        """``lambda = kappa = 0``: the capped softmax of ``z / alpha`` in closed form
        (docs/math.md#capped-softmax), ``beta = -alpha * log_scale``."""
        projection = capped_softmax(z / self.alpha, self.nu)
        d = projection.d
        g = d / self.alpha
        if projection.capped.size:
            g[projection.capped] = 0.0
        beta = -self.alpha * projection.log_scale if np.isfinite(projection.log_scale) else np.nan
        return _Solved(d, g, float(beta), 0.0)

    def solve_beta(self, z: NDArray[np.float64], lam: float, beta0: float) -> _Solved:
        """beta with ``sum d = 1`` at fixed lambda: a safeguarded Newton iteration on the decreasing
        ``s(beta) = sum d(beta)``. With ``p = 1/n`` (n the coordinates not forced to 0) the bracket
        ``[min z - phi(p), max z - phi(p/2)]``, ``phi(p) = alpha ln p + K p`` the y at which d = p,
        has ``s >= 1`` at its left end (every d at least min(p, u)) and ``s <= 1/2`` at its right.
        The last d is corrected by the Newton step's own linearisation, ``d - g (s - 1)/sum g``
        (0 on the capped coordinates), so that ``sum d = 1`` to rounding."""
        if lam == 0.0 and self.kappa == 0.0:
            return self.softmax(z)
        K = self.kappa + lam
        finite = z if self.zero is None else z[~self.zero]
        p = 1.0 / self.n_free
        phi = (lambda q: self.alpha * np.log(q) + K * q) if self.alpha > 0.0 else (lambda q: K * q)
        lo, hi = float(finite.min() - phi(p)), float(finite.max() - phi(0.5 * p))
        # cold: the beta at which every d would be p if z were constant (its mean), inside the bracket
        beta = beta0 if lo < beta0 < hi else min(max(float(finite.mean() - phi(p)), lo), hi)
        if not lo < beta < hi:
            beta = 0.5 * (lo + hi)
        for _ in range(_MAX_ROOT_STEPS):
            d, g = self.d_at(z, beta, lam)
            excess = float(d.sum()) - 1.0
            total = float(g.sum())
            if excess > 0.0:
                lo = beta
            elif excess < 0.0:
                hi = beta
            else:
                break
            with np.errstate(divide="ignore", invalid="ignore"):
                step = beta + excess / total if total > 0.0 else np.nan
            new = step if lo < step < hi else 0.5 * (lo + hi)
            tiny = 4.0 * _EPS * max(1.0, abs(beta))
            if abs(new - beta) <= tiny or hi - lo <= tiny:
                break
            beta = new
        if excess != 0.0 and total > 0.0:
            d -= g * (excess / total)
            np.clip(d, 0.0, self.cap, out=d)
        return _Solved(d, g, float(beta), lam)

    # -- the ball's multiplier ---------------------------------------------------------------
    def _secular(self, theta_base: NDArray, lam: float, beta0: float) -> tuple[_Solved, float, float]:
        """``(solution, phi, phi')`` at lambda for ``phi(lambda) = 1/r - 1/||d(lambda) - c||``
        (decreasing; its root is where the ball binds), ``phi'`` by implicit differentiation:
        ``dd/dlambda = -G v + g (g.v)/sum g`` with ``v = d - c``."""
        centre, radius = self.ball
        z = theta_base + lam * centre if lam else theta_base
        sol = self.solve_beta(z, lam, beta0)
        v = sol.d - centre
        norm = float(np.sqrt(v @ v))
        if norm == 0.0:
            return sol, -np.inf, 0.0
        total = float(sol.g.sum())
        gv = float(sol.g @ v)
        dnorm2 = -2.0 * (float(sol.g @ (v * v)) - (gv * gv / total if total > 0.0 else 0.0))
        return sol, 1.0 / radius - 1.0 / norm, dnorm2 / (2.0 * norm**3)

    def solve(self, theta: NDArray[np.float64], warm: tuple[float, float] | None) -> _Solved:
        """The maximiser for theta; ``warm``: the multipliers of an earlier call to start from."""
        theta_base = theta + self.base
        beta0, lam0 = warm if warm is not None else (np.nan, 0.0)
        if self.ball is None:
            return self.solve_beta(theta_base, 0.0, beta0)
        warm = lam0 > 0.0 and np.isfinite(beta0)
        if not warm or self.kappa == 0.0:  # lambda = 0 first (a closed form when kappa = 0)
            sol, phi, dphi = self._secular(theta_base, 0.0, np.nan if warm else beta0)
            if phi <= 0.0:
                return sol  # the ball does not bind: lambda = 0
        if not warm:  # cold: the multiplier the ball would need without the entropy (see _cold_lambda)
            lam0 = self._cold_lambda(theta_base)
            # beta at that lambda (the softmax's normaliser is on another scale once K > 0)
            beta0 = self.solve_beta(theta_base + lam0 * self.ball[0], lam0, np.nan).beta
        if np.isfinite(beta0):
            joint = self._joint(theta, theta_base, beta0, lam0)
            if joint is not None:
                return joint
        radius = self.ball[1]
        lo, hi = 0.0, np.inf  # phi(lo) > 0 > phi(hi) once evaluated
        lam = lam0 if lam0 > 0.0 else 0.0
        zero_tried = lam == 0.0
        best = None
        for _ in range(_MAX_ROOT_STEPS):
            sol, phi, dphi = self._secular(theta_base, lam, beta0)
            beta0 = sol.beta if np.isfinite(sol.beta) else beta0
            if lam == 0.0 and phi <= 0.0:
                return sol  # the ball does not bind: lambda = 0
            best = sol
            if phi > 0.0:
                lo = lam
            elif phi < 0.0:
                hi = lam
            else:
                break
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                step = lam - phi / dphi if dphi < 0.0 else np.nan
            if not lo < step < hi:
                if not np.isfinite(hi):
                    step = 4.0 * lam if lam > 0.0 else 1.0
                elif lo == 0.0 and not zero_tried:  # a warm start past the root, which may be 0
                    step, zero_tried = 0.0, True
                else:
                    step = 0.5 * (lo + hi)
            if abs(phi) <= 4.0 * _EPS / radius or (lam > 0.0 and abs(step - lam) <= 4.0 * _EPS * lam):
                break
            lam = step
        else:
            raise ValueError(
                f"the l2 ball of radius {radius:g} does not meet the simplex (or only touches it): "
                "f + I_S has no interior point"
            )
        return best

    def _joint(
        self, theta: NDArray[np.float64], theta_base: NDArray[np.float64], beta: float, lam: float
    ) -> _Solved | None:
        """Damped Newton on both multipliers at once (one d per step instead of a root search for beta
        per lambda). ``(beta, lambda)`` minimise the convex dual function
        ``Phi = <theta, d> - f(d) - beta F_1 - lambda F_2`` at ``d = d(beta, lambda)``, whose gradient
        is ``-F``, ``F = (sum d - 1, (||d - c||^2 - r^2)/2)``, and whose Hessian is ``B^T G B``,
        ``B = [1, d - c]``; the step is ``(B^T G B)^-1 F``, halved until Phi decreases (Armijo) or
        the residual F halves, and kept inside lambda > 0 (the ball binds: :meth:`solve` checked
        lambda = 0 unless a warm start with kappa > 0, whose lambda = 0 would cost a root search).
        None where it stalls: the bracketed searches of :meth:`solve` take over."""
        centre, radius = self.ball
        r2 = radius * radius

        def evaluate(b: float, lm: float):
            d, g = self.d_at(theta_base + lm * centre, b, lm)
            v = d - centre
            f1, f2 = float(d.sum()) - 1.0, 0.5 * (float(v @ v) - r2)
            phi = float(theta @ d) - self.f_value(d) - b * f1 - lm * f2
            return d, g, v, f1, f2, phi, max(abs(f1), abs(f2) / r2)

        current = evaluate(beta, lam)
        at_boundary = 0  # steps cut short to keep lambda > 0
        for _ in range(_JOINT_STEPS):
            d, g, v, f1, f2, phi, size = current
            m11, m12, m22 = float(g.sum()), float(g @ v), float(g @ (v * v))
            det = m11 * m22 - m12 * m12
            if not det > 0.0:
                return None
            step_beta = (m22 * f1 - m12 * f2) / det
            step_lam = (m11 * f2 - m12 * f1) / det
            if abs(step_beta) <= 8.0 * _EPS * max(1.0, abs(beta)) and abs(step_lam) <= 8.0 * _EPS * lam:
                d -= g * (step_beta + v * step_lam)  # the step's own linearisation: F = 0 to rounding
                np.clip(d, 0.0, self.cap, out=d)
                return _Solved(d, g, beta, lam)
            at_boundary = 0 if lam + step_lam > 0.0 else at_boundary + 1
            t = 1.0 if not at_boundary else 0.5 * lam / -step_lam  # lambda > 0 at the root: halve
            slope = -(f1 * step_beta + f2 * step_lam)  # < 0: a descent direction of Phi
            for _ in range(40):
                trial = evaluate(beta + t * step_beta, lam + t * step_lam)
                if trial[5] <= phi + 1e-4 * t * slope or trial[6] <= 0.5 * size:
                    break
                t *= 0.5
            else:
                return None
            beta, lam, current = beta + t * step_beta, lam + t * step_lam, trial
        return None

    # -- value and curvature -----------------------------------------------------------------
    @staticmethod
    def _entropy_form(pieces: SimplexPieces) -> tuple[NDArray, NDArray, float] | None:
        """``(q, rest, alpha ln Z)`` with ``alpha sum d ln d + <linear, d> = alpha sum kl(d_n, q_n)
        + <rest, d> - alpha ln Z`` on S, for one relative entropy ``alpha sum d ln(d/p)``: ``q = p/Z``
        over the coordinates not forced to 0, ``Z = sum p`` there, rest the other (tilt) terms;
        None for none or several (their geometric prior is rounded)."""
        if len(pieces.entropies) != 1:
            return None
        weight, prior = pieces.entropies[0]
        free = ~pieces.zero
        prior = np.where(free, prior, 0.0)
        excess = math.fsum([*prior[free], -1.0])  # Z - 1, exactly rounded
        # a prior within 1e-12 of normalised is taken as normalised (its rounding, ~1e-16, would count
        # alpha times), as the calculus's closed form of an entropy on the simplex takes it
        log_norm = math.log1p(excess) if abs(excess) > 1e-12 else 0.0
        return prior / (1.0 + excess), pieces.tilt, weight * log_norm

    def f_value(self, d: NDArray[np.float64]) -> float:
        """f at a point of S (the module docstring's form, no membership test). With one relative
        entropy in its kl form (:meth:`_entropy_form`): ``alpha sum d ln d`` and ``<linear, d>`` are
        each of size alpha ln N, their sum of size alpha KL (docs/math.md#stable-evaluation)."""
        if self._exact_entropy is not None:
            q, rest, log_norm = self._exact_entropy
            value = self.alpha * float(entropy_excess(d, q).sum()) - log_norm + float(rest @ d) + self.offset
            return value + (0.5 * self.kappa * float(d @ d) if self.kappa > 0.0 else 0.0)
        value = float(self.linear @ d) + self.offset
        if self.alpha > 0.0:
            value -= self.alpha * float(entr(d).sum())
        if self.kappa > 0.0:
            value += 0.5 * self.kappa * float(d @ d)
        return value

    def hessian(self, sol: _Solved) -> LowRankHessian:
        """``G - G B (B^T G B)^-1 B^T G`` (module docstring): ``V = G B``, ``S = B^T G B``."""
        columns = [np.ones(self.n)]
        if self.ball is not None and sol.lam > 0.0:
            columns.append(sol.d - self.ball[0])
        B = np.column_stack(columns)
        V = sol.g[:, None] * B
        return LowRankHessian(sol.g, V, B.T @ V)


# --- the functions with the exact conjugate -------------------------------------------------------
class ExactRestrictionMixin:
    """The exact conjugate of ``f + I_S`` (module docstring) for a function whose value, domain and
    cvxpy forms come from the class it is mixed into: a :class:`~dualboost.conjugates.traits.SmoothConjugate`
    (``conjugate_and_grad``, ``conjugate_hessian``, ``remembers``, ``with_warm_starts``)."""

    conjugate_is_differentiable = True
    #: every evaluation is an inner solve to machine precision from any start: certify with a warm copy
    warm_copy_certifies = True
    _inner: _InnerSolver

    def _init_exact(self, pieces: SimplexPieces) -> None:
        self._inner = _InnerSolver(pieces)
        self._pieces = pieces
        self.n = pieces.n
        self._warm = False
        self._last: tuple[float, float] | None = None  # the multipliers of the last call (warm copy)
        #: (d, solution) of the recent calls, shared with the warm copies (the dual solvers ask the
        #: model's own object for the curvature at a d that a warm copy returned)
        self._memory: deque[tuple[NDArray[np.float64], _Solved]] = deque(maxlen=_REMEMBERED)
        self._theta_cache: tuple[bytes, float, _Solved] | None = None

    @property
    def pieces(self) -> SimplexPieces:
        """f on the simplex in the module docstring's form (alpha, kappa, the linear term, the cap,
        the ball), as collected from the calculus tree."""
        return self._pieces

    def _solved(self, theta: ArrayLike) -> tuple[float, _Solved]:
        theta = check_vector(theta, "theta", self.n)
        key = theta.tobytes()
        if self._theta_cache is not None and self._theta_cache[0] == key:
            return self._theta_cache[1], self._theta_cache[2]
        sol = self._inner.solve(theta, self._last if self._warm else None)
        if self._warm and np.isfinite(sol.beta):
            self._last = (sol.beta, sol.lam)
        value = float(theta @ sol.d) - self._inner.f_value(sol.d)
        self._theta_cache = (key, value, sol)
        self._memory.append((sol.d, sol))
        return value, sol

    def _stable_value(self, value: float, x: ArrayLike) -> float:
        """f~(x) from the inner solver's form where the wrapped function's ``value`` is finite (x in
        its domain: the indicators are 0): the same number, without the cancellation of a heavily
        weighted entropy (docs/math.md#stable-evaluation)."""
        if not np.isfinite(value):
            return value
        return self._inner.f_value(np.clip(check_vector(x, "d", self.n), 0.0, None))

    def conjugate(self, theta: ArrayLike) -> float:
        """``f~*(theta) = <theta, d> - f(d)`` at the exact maximiser d."""
        return self._solved(theta)[0]

    def conjugate_grad(self, theta: ArrayLike) -> NDArray[np.float64]:
        """``d = grad f~*(theta)`` (a copy)."""
        return self._solved(theta)[1].d.copy()

    def conjugate_and_grad(self, theta: ArrayLike) -> tuple[float, NDArray[np.float64]]:
        """``(f~*(theta), d)``; d is remembered (do not modify it) so that the curvature at it can be
        asked for from d alone (:meth:`remembers`)."""
        value, sol = self._solved(theta)
        return value, sol.d

    def multipliers(self, theta: ArrayLike) -> tuple[float, float]:
        """``(beta, lambda)``: the multipliers of ``sum d = 1`` and of the l2 ball (0 without one)."""
        sol = self._solved(theta)[1]
        return sol.beta, sol.lam

    def remembers(self, grad: NDArray[np.float64]) -> bool:
        """Whether ``grad`` is a d this object returned recently (its multipliers are known)."""
        return any(d is grad for d, _ in self._memory)

    def conjugate_hessian(
        self, theta: ArrayLike | None, grad: NDArray[np.float64] | None = None
    ) -> LowRankHessian:
        """``hess f~*(theta) = diag(g) - V S^-1 V^T`` by implicit differentiation of the inner solve
        (module docstring); where the ball or a cap starts or stops binding f~* is C^1, not C^2, and
        this is the Hessian of the current piece. ``theta`` may be None when ``grad`` is a d this
        object returned (:meth:`remembers`)."""
        if grad is not None:
            for d, sol in reversed(self._memory):
                if d is grad:
                    return self._inner.hessian(sol)
        if theta is None:
            raise ValueError("theta is required unless grad is a d returned by conjugate_and_grad")
        return self._inner.hessian(self._solved(theta)[1])

    def step_spread(self, move: Callable[[], NDArray[np.float64]], grad: NDArray[np.float64]) -> float:
        """0: no trust radius (the softmax's bound on the Hessian's change does not cover the l2 terms
        and the ball; the line search keeps the steps safe)."""
        return 0.0

    def conjugate_hessian_product(self, theta: ArrayLike, v: ArrayLike) -> NDArray[np.float64]:
        """``hess f~*(theta) v`` (O(N))."""
        v = check_vector(v, "v", self.n)
        return self.conjugate_hessian(theta).product(v)

    def with_warm_starts(self) -> ExactRestrictionMixin:
        """A copy whose root searches start from the previous call's multipliers (values agree with
        the original's to rounding)."""
        warm = copy.copy(self)
        warm._warm, warm._last = True, None
        warm._theta_cache = None  # (the memory of d's is shared)
        return warm


class ExactRestrictedSum(ExactRestrictionMixin, Sum):
    """A :class:`~dualboost.conjugates.Sum` ``f + g`` (f~ as the calculus derived it) whose conjugate
    is the exact inner solve instead of the numerical infimal convolution.

    Parameters
    ----------
    f : Sum
        f~ as the calculus derived it.
    pieces : SimplexPieces
        The parts of ``f + I_S`` the inner solve works on (:func:`simplex_pieces`).
    """

    def __init__(self, f: Sum, pieces: SimplexPieces) -> None:
        Sum.__init__(self, f.f, f.g)
        self._init_exact(pieces)

    def value(self, x: ArrayLike) -> float:
        return self._stable_value(Sum.value(self, x), x)

    def split(self, theta: ArrayLike) -> NDArray[np.float64]:
        """The infimal convolution's split, by the conic solve (for reports only)."""
        return Sum._conic(self, check_vector(theta, "theta", self.n))[2]


class ExactSimplexRestriction(ExactRestrictionMixin, SimplexRestriction):
    """[SS] Lemma 8's ``f + I_S`` with the exact conjugate of the inner solve.

    Parameters
    ----------
    f : SimplexRestriction
        [SS] Lemma 8's ``f + I_S``.
    pieces : SimplexPieces
        The parts of ``f + I_S`` the inner solve works on (:func:`simplex_pieces`).
    """

    def __init__(self, f: SimplexRestriction, pieces: SimplexPieces) -> None:
        SimplexRestriction.__init__(self, f.f)
        self._init_exact(pieces)

    def value(self, x: ArrayLike) -> float:
        return self._stable_value(SimplexRestriction.value(self, x), x)


class ExactRestriction(ExactRestrictionMixin, ConvexFunction):
    """Any other ``f~`` of the form (a tilted or scaled closed form, say): value, domain and cvxpy
    forms from ``f``, the conjugate from the inner solve.

    Parameters
    ----------
    f : ConvexFunction
        f~, for its value, domain and cvxpy forms.
    pieces : SimplexPieces
        The parts of ``f + I_S`` the inner solve works on (:func:`simplex_pieces`).
    """

    def __init__(self, f: ConvexFunction, pieces: SimplexPieces) -> None:
        self.f = f
        self._init_exact(pieces)

    def value(self, x: ArrayLike) -> float:
        return self._stable_value(self.f.value(x), x)

    def in_domain(self, x: ArrayLike, tol: float = 1e-9) -> bool:
        return self.f.in_domain(x, tol)

    def cvxpy_value(self, x) -> CvxpyForm:
        return self.f.cvxpy_value(x)

    def cvxpy_conjugate(self, theta) -> CvxpyForm:
        return self.f.cvxpy_conjugate(theta)

    def __repr__(self) -> str:
        return repr(self.f)


#: closed forms that stay as they are (their conjugate and curvature are already exact and fast)
_CLOSED_FORMS = (
    CappedRelativeEntropy,
    CappedBinaryRelativeEntropy,
    CappedTemperedRelativeEntropy,
    ExactRestrictionMixin,
)


def exact_restriction(f_tilde: ConvexFunction, n: int) -> tuple[ConvexFunction, str]:
    """``(f~ with the exact conjugate, "")`` where :func:`simplex_pieces` applies to
    ``f~ = f + I_S`` (its domain must already lie in the simplex), else ``(f~, reason)``; closed
    forms are returned as they are, with reason ``""``.

    Parameters
    ----------
    f_tilde : ConvexFunction
        ``f + I_S``.
    n : int
        The dimension N.

    Returns
    -------
    tuple of (ConvexFunction, str)
        f~ (with the exact conjugate where it applies) and the reason where it does not.
    """
    if isinstance(f_tilde, _CLOSED_FORMS):
        return f_tilde, ""
    pieces, reason = simplex_pieces(f_tilde, n)
    if pieces is None:
        return f_tilde, reason
    if isinstance(f_tilde, Sum):
        return ExactRestrictedSum(f_tilde, pieces), ""
    if isinstance(f_tilde, SimplexRestriction):
        return ExactSimplexRestriction(f_tilde, pieces), ""
    return ExactRestriction(f_tilde, pieces), ""
