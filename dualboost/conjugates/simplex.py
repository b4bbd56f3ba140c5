"""``f + I_S`` by the conjugate calculus, and the conditions of [SS] Thm 7 on f: the regulariser side of
the general relaxation scheme (:class:`~dualboost.problems.Relaxation`, docs/math.md#general-relaxation).

* :func:`theorem7_conditions` checks (i)-(iii) of [SS] Thm 7 (:class:`Theorem7Conditions`);
* :func:`restrict_to_simplex` derives ``f~ = f + I_S``: by [SS] Lemma 8 where Thm 7's conditions hold
  (:class:`~dualboost.conjugates.SimplexRestriction`), else by the library's closed forms where the
  simplex can be absorbed (an l_inf or l1 ball on the simplex is a capped simplex; an entropy plus a
  capped simplex is the capped softmax, docs/math.md#capped-softmax), else by the infimal convolution
  ``(f + I_S)* = f* [] max_i`` (:class:`~dualboost.conjugates.Sum`);
* :func:`strictly_convex` says whether f is strictly convex on the simplex (the primal optimum d is then
  unique).

Nothing here knows about edge matrices or solvers: it is conjugate calculus.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import reduce
from itertools import combinations

import numpy as np
from numpy.typing import NDArray

from dualboost.conjugates.base import ConvexFunction
from dualboost.conjugates.calculus import Scaled, Sum, Tilted, add, scale
from dualboost.conjugates.entropy import CappedBinaryRelativeEntropy, CappedRelativeEntropy
from dualboost.conjugates.indicators import CappedSimplex
from dualboost.conjugates.norms import HalfSquaredNorm, NormBall
from dualboost.conjugates.relative_entropy import RelativeEntropy, UnnormalisedRelativeEntropy
from dualboost.conjugates.restriction import SimplexRestriction
from dualboost.conjugates.smooth_restriction import ExactRestrictionMixin, exact_restriction
from dualboost.conjugates.tempered import CappedTemperedRelativeEntropy

__all__ = ["Theorem7Conditions", "theorem7_conditions", "restrict_to_simplex", "restrict", "strictly_convex"]

#: relative tolerance of the numerical checks of Thm 7 (conjugates may come from a conic solve)
CONDITION_TOL = 1e-7
#: step lengths tried for condition (ii): +-tau e_i in dom f for every i
_CORE_STEPS = (1e-3, 1e-6, 1e-9)


# --- [SS] Theorem 7's conditions ------------------------------------------------------------
@dataclass(frozen=True)
class Theorem7Conditions:
    """The three conditions of [SS] Thm 7 on f, each ``True``, ``False`` or ``None`` (not checked).

    (i) ``min f = 0``, checked as ``f*(0) = 0`` (``min f = -f*(0)``); (ii) ``0 in core(dom f)``,
    checked exactly for a convex domain: ``+-tau e_i in dom f`` for all i and some tau > 0 (the
    cross-polytope they span is a neighbourhood of 0); (iii) ``f*(theta) >= f*(theta - alpha theta_i
    e_i)``, sampled: a few theta (all negative, mixed, positive; several scales), the largest,
    smallest and a random |theta_i|, alpha in {1, 1/2}. ``notes`` says why each one fails.

    Parameters
    ----------
    min_zero : bool or None
        Condition (i).
    zero_in_core : bool or None
        Condition (ii).
    shrink_monotone : bool or None
        Condition (iii).
    notes : tuple of str
        Why each condition fails (empty where it holds or was not checked).
    """

    min_zero: bool | None
    zero_in_core: bool | None
    shrink_monotone: bool | None
    notes: tuple[str, str, str] = ("", "", "")

    @property
    def values(self) -> tuple[bool | None, bool | None, bool | None]:
        return (self.min_zero, self.zero_in_core, self.shrink_monotone)

    @property
    def hold(self) -> bool:
        """All three hold: Thm 7's dual form (and Lemma 8) apply."""
        return all(v is True for v in self.values)

    def failing(self) -> list[str]:
        """The conditions that fail, with the reason, e.g. ``["(ii) ..."]``."""
        return [
            f"{label} {note}"
            for label, v, note in zip(("(i)", "(ii)", "(iii)"), self.values, self.notes, strict=True)
            if v is False
        ]

    def __str__(self) -> str:
        names = ("(i) min f = 0", "(ii) 0 in core(dom f)", "(iii) f* non-increasing towards 0")
        words = {True: "holds", False: "FAILS", None: "not checked"}
        lines = []
        for name, v, note in zip(names, self.values, self.notes, strict=True):
            lines.append(f"{name}: {words[v]}" + (f" ({note})" if note else ""))
        return "\n".join(lines)


def _conjugate_or_inf(f: ConvexFunction, theta: NDArray[np.float64]) -> float:
    try:
        return float(f.conjugate(theta))
    except (ValueError, RuntimeError):
        return np.inf


def _check_min_zero(f: ConvexFunction, n: int) -> tuple[bool, str]:
    value = _conjugate_or_inf(f, np.zeros(n))
    if np.isfinite(value) and abs(value) <= CONDITION_TOL:
        return True, ""
    return False, f"f*(0) = {value:.6g}, so min f = {-value:.6g}"


def _check_zero_in_core(f: ConvexFunction, n: int) -> tuple[bool, str]:
    eye = np.eye(n)
    for tau in _CORE_STEPS:
        if all(f.in_domain(s * tau * eye[i], tol=0.0) for s in (1.0, -1.0) for i in range(n)):
            return True, ""
    for i in range(n):
        for s in (1.0, -1.0):
            if not f.in_domain(s * _CORE_STEPS[-1] * eye[i], tol=0.0):
                return False, f"{'+' if s > 0 else '-'}{_CORE_STEPS[-1]:g} e_{i} is outside dom f"
    return False, "dom f contains no cross-polytope around 0"  # pragma: no cover


def _check_shrink(f: ConvexFunction, n: int, seed: int) -> tuple[bool, str]:
    rng = np.random.default_rng(seed)
    base = rng.standard_normal(n)
    thetas = [-np.abs(base), base, np.abs(base), 0.1 * base, 10.0 * base, 0.01 * rng.standard_normal(n)]
    for theta in thetas:
        value = _conjugate_or_inf(f, theta)
        if not np.isfinite(value):
            continue  # +inf >= anything
        for i in {int(np.argmax(np.abs(theta))), int(np.argmin(np.abs(theta))), int(rng.integers(n))}:
            for alpha in (1.0, 0.5):
                moved = theta.copy()
                moved[i] -= alpha * theta[i]
                after = _conjugate_or_inf(f, moved)
                if after > value + CONDITION_TOL * max(1.0, abs(value)):
                    return False, (
                        f"f*(theta) = {value:.6g} < f*(theta - {alpha:g} theta_i e_i) = {after:.6g} "
                        f"at i = {i}, theta_i = {theta[i]:.3g}"
                    )
    return True, ""


def theorem7_conditions(f: ConvexFunction, n: int, *, full: bool = True, seed: int = 0) -> Theorem7Conditions:
    """Check [SS] Thm 7's conditions (i)-(iii) on ``f`` in dimension ``n`` (see :class:`Theorem7Conditions`).

    (ii) is checked first (no conjugate needed), then (i), then (iii).

    Parameters
    ----------
    f : ConvexFunction
        The regulariser.
    n : int
        The dimension N.
    full : bool, default True
        False stops the checks at the first failure (the rest are ``None``), which is enough to
        choose the dual.
    seed : int, default 0
        The seed of the random points of check (iii).

    Returns
    -------
    Theorem7Conditions
        Each condition ``True``, ``False`` or ``None`` (not checked), with the reasons.
    """
    results: list[tuple[bool | None, str]] = [(None, ""), (None, ""), (None, "")]
    checks = (
        (1, lambda: _check_zero_in_core(f, n)),
        (0, lambda: _check_min_zero(f, n)),
        (2, lambda: _check_shrink(f, n, seed)),
    )
    for index, check in checks:
        results[index] = check()
        if not full and results[index][0] is False:
            break
    return Theorem7Conditions(
        results[0][0], results[1][0], results[2][0], (results[0][1], results[1][1], results[2][1])
    )


# --- f + I_S by the conjugate calculus --------------------------------------------------------
#: entries whose domain already lies in the simplex: adding I_S changes nothing
_INSIDE_SIMPLEX = (
    CappedSimplex,
    CappedRelativeEntropy,
    CappedBinaryRelativeEntropy,
    CappedTemperedRelativeEntropy,
    SimplexRestriction,
)


def _ball_on_simplex(f: NormBall, n: int) -> ConvexFunction:
    """``I{||d||_p <= r} + I_S`` for p in {1, inf}: on the simplex ``||d||_1 = 1`` and
    ``||d||_inf >= 1/N``, so the l_inf ball is the cap ``d <= r`` (docs/math.md#capped-simplex-support)
    and the l1 ball is all or nothing."""
    if f.p == 1.0:
        if f.radius < 1.0:
            raise ValueError(f"f: the l1 ball of radius {f.radius:g} does not meet the simplex (needs >= 1)")
        return CappedSimplex(1.0)
    if f.radius * n < 1.0 - 1e-12:
        raise ValueError(
            f"f: the l_inf ball of radius {f.radius:g} does not meet the simplex (needs >= 1/N = {1 / n:g})"
        )
    return CappedSimplex(min(max(1.0, 1.0 / f.radius), float(n)))


def _flatten(f: ConvexFunction) -> list[ConvexFunction]:
    return [*_flatten(f.f), *_flatten(f.g)] if isinstance(f, Sum) else [f]


def _simplify(parts: list[ConvexFunction]) -> list[ConvexFunction]:
    """Combine the summands pairwise by the library's closed-form rules until none applies (e.g.
    two relative entropies merge, an entropy and a capped simplex become the capped softmax)."""
    parts = list(parts)
    merged = True
    while merged:
        merged = False
        for i, j in combinations(range(len(parts)), 2):
            combined = add(parts[i], parts[j])
            if not isinstance(combined, Sum):
                parts = [p for k, p in enumerate(parts) if k not in (i, j)] + [combined]
                merged = True
                break
    return parts


def _with_uniform_prior(f: ConvexFunction, n: int) -> ConvexFunction:
    """f, or a (scaled) relative entropy without a prior given its uniform prior ``1/n`` (the same
    function on R^n): the calculus's closed form for an entropy on the capped simplex needs the
    dimension, so that such an f gets the capped softmax, whose values stay exact at every weight
    (docs/math.md#stable-evaluation), instead of the generic inner solve."""
    c, inner = (f.c, f.f) if isinstance(f, Scaled) else (1.0, f)
    if isinstance(inner, (RelativeEntropy, UnnormalisedRelativeEntropy)) and inner.d0 is None:
        return scale(type(inner)(np.full(n, 1.0 / n)), c)
    return f


def _absorb_simplex(f: ConvexFunction, n: int) -> ConvexFunction | None:
    """``f + I_S`` as a function whose domain lies in the simplex, by closed forms; ``None`` if none.

    A sum is flattened and simplified; the simplex goes to the summand that leaves the fewest
    summands (so a cap and an entropy become one capped softmax, docs/math.md#capped-softmax).
    """
    if isinstance(f, _INSIDE_SIMPLEX):
        return f
    if isinstance(f, NormBall) and f.p != 2.0:
        return _ball_on_simplex(f, n)
    if isinstance(f, Sum):
        parts = _simplify(_flatten(f))
        best: list[ConvexFunction] | None = None
        for i, part in enumerate(parts):
            absorbed = _absorb_simplex(part, n)
            if absorbed is not None:
                candidate = _simplify([*parts[:i], *parts[i + 1 :], absorbed])
                best = candidate if best is None or len(candidate) < len(best) else best
        return None if best is None else reduce(Sum, best)
    # the library's rules (relative entropies, docs/math.md#conjugate-table)
    closed = add(_with_uniform_prior(f, n), CappedSimplex(1.0))
    if not isinstance(closed, Sum):
        return closed
    if isinstance(f, Scaled):
        inner = _absorb_simplex(f.f, n)
        return None if inner is None else scale(inner, f.c)
    if isinstance(f, Tilted):
        inner = _absorb_simplex(f.f, n)
        return None if inner is None else Tilted(inner, f.a, f.offset)
    return None


def restrict_to_simplex(f: ConvexFunction, n: int, *, lemma8: bool = False) -> ConvexFunction:
    """``f~ = f + I_S`` from the conjugate calculus (module docstring): [SS] Lemma 8 when ``lemma8``
    (Thm 7's conditions hold), else a closed form absorbing the simplex, else the infimal
    convolution ``Sum(f, I_S)``. Where f has a strictly convex part of the library's form, f~
    gets the exact conjugate of the inner solve (:func:`~dualboost.conjugates.exact_restriction`,
    docs/math.md#exact-restriction): the same function, with ``grad f~*`` and its curvature.

    Parameters
    ----------
    f : ConvexFunction
        The function restricted.
    n : int
        The dimension N.
    lemma8 : bool, default False
        Use [SS] Lemma 8 (its conditions hold).

    Returns
    -------
    ConvexFunction
        f~.
    """
    return restrict(f, n, lemma8)[0]


def restrict(f: ConvexFunction, n: int, lemma8: bool) -> tuple[ConvexFunction, str]:
    """:func:`restrict_to_simplex` and, where f~ has no exact conjugate, the reason.

    Parameters
    ----------
    f, n, lemma8
        As in :func:`restrict_to_simplex`.

    Returns
    -------
    tuple
        ``(f~, reason)``.
    """
    if lemma8:
        derived: ConvexFunction = SimplexRestriction(f)
    else:
        absorbed = _absorb_simplex(f, n)
        derived = absorbed if absorbed is not None else Sum(f, CappedSimplex(1.0))
    try:
        return exact_restriction(derived, n)
    except ValueError as exc:  # a ball that misses the simplex: say it now, naming f
        raise ValueError(f"f: {exc}") from exc


def strictly_convex(f: ConvexFunction) -> bool:
    """Whether f (on the simplex) is strictly convex, so that the primal optimum d is unique.

    Parameters
    ----------
    f : ConvexFunction
        A function of the library.

    Returns
    -------
    bool
        Whether it is strictly convex on the simplex.
    """
    if isinstance(
        f,
        (
            CappedRelativeEntropy,
            CappedBinaryRelativeEntropy,
            CappedTemperedRelativeEntropy,
            RelativeEntropy,
            UnnormalisedRelativeEntropy,
            ExactRestrictionMixin,
        ),
    ):
        return True
    if isinstance(f, HalfSquaredNorm):
        return f.p == 2.0
    if isinstance(f, (Scaled, Tilted, SimplexRestriction)):
        return strictly_convex(f.f)
    if isinstance(f, Sum):
        return strictly_convex(f.f) or strictly_convex(f.g)
    return False
