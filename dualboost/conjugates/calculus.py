"""Conjugate calculus: new library entries from old ones ([SS] Appendix B,
docs/math.md#calculus-rules).

=====================  ===========================  =============================================
wrapper                 function                     conjugate
=====================  ===========================  =============================================
:class:`Scaled`         ``c f(x)``, ``c > 0``        ``c f*(theta / c)``
:class:`Shifted`        ``f(x + a)``                 ``f*(theta) - <theta, a>``
:class:`Tilted`         ``f(x) + <a, x> + b``        ``f*(theta - a) - b``
:class:`Dilated`        ``f(c x)``, ``c != 0``       ``f*(theta / c)``
:class:`SeparableSum`   ``sum_j f_j(x_{B_j})``       ``sum_j f_j*(theta_{B_j})``
:class:`Sum`            ``f(x) + g(x)``              ``min_y f*(y) + g*(theta - y)`` (numerical)
=====================  ===========================  =============================================

The restriction to the simplex ([SS] Lemma 8) is in :mod:`dualboost.conjugates.restriction`.
:func:`add` implements ``f + g``: it returns a closed form when one is known (the entropy on the
capped simplex, docs/math.md#capped-softmax) and a :class:`Sum` otherwise. :func:`scale` implements ``c * f``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import minimize

from dualboost._validation import check_nonzero, check_positive, check_scalar, check_size, check_vector
from dualboost.conjugates.base import ConvexFunction, CvxpyForm
from dualboost.conjugates.entropy import CappedRelativeEntropy
from dualboost.conjugates.indicators import CappedSimplex
from dualboost.conjugates.numerical import solve_cvxpy
from dualboost.conjugates.relative_entropy import RelativeEntropy, UnnormalisedRelativeEntropy
from dualboost.conjugates.tempered import tempered_on_capped_simplex

__all__ = [
    "Scaled",
    "Shifted",
    "Tilted",
    "Dilated",
    "SeparableSum",
    "Sum",
    "scale",
    "add",
]


def _check_function(f: object, name: str) -> ConvexFunction:
    if not isinstance(f, ConvexFunction):
        raise ValueError(f"{name} must be a ConvexFunction; got {type(f).__name__}")
    return f


class _Wrapper(ConvexFunction):
    """A function built from one inner function ``f`` (shared state and repr)."""

    def __init__(self, f: ConvexFunction) -> None:
        self.f = _check_function(f, "f")
        self.n = f.n
        self.conjugate_is_differentiable = f.conjugate_is_differentiable

    def _vector(self, x: ArrayLike, name: str) -> NDArray[np.float64]:
        return check_vector(x, name, self.n)


class Scaled(_Wrapper):
    """``c f(x)`` with ``c > 0``; conjugate ``c f*(theta / c)``, maximiser ``f.conjugate_grad(theta / c)``.

    [SS] App. B (docs/math.md#calculus-rules). E.g. ``beta h`` of docs/math.md#entropy-smoothing:
    ``(beta h)* = beta h*(./beta)``.

    Parameters
    ----------
    f : ConvexFunction
        The function transformed.
    c : float
        The factor, > 0.
    """

    def __init__(self, f: ConvexFunction, c: float) -> None:
        super().__init__(f)
        self.c = check_positive(c, "c")

    def value(self, x: ArrayLike) -> float:
        return self.c * self.f.value(self._vector(x, "x"))

    def in_domain(self, x: ArrayLike, tol: float = 1e-9) -> bool:
        return self.f.in_domain(x, tol)

    def conjugate(self, theta: ArrayLike) -> float:
        return self.c * self.f.conjugate(self._vector(theta, "theta") / self.c)

    def conjugate_grad(self, theta: ArrayLike) -> NDArray[np.float64]:
        return self.f.conjugate_grad(self._vector(theta, "theta") / self.c)

    def cvxpy_value(self, x: cp.Expression) -> CvxpyForm:
        expr, constraints = self.f.cvxpy_value(x)
        return self.c * expr, constraints

    def cvxpy_conjugate(self, theta: cp.Expression) -> CvxpyForm:
        expr, constraints = self.f.cvxpy_conjugate(theta / self.c)
        return self.c * expr, constraints

    def __repr__(self) -> str:
        return f"{self.c!r} * {self.f!r}"


class Shifted(_Wrapper):
    """``f(x + a)``; conjugate ``f*(theta) - <theta, a>``, maximiser ``f.conjugate_grad(theta) - a``.

    [SS] App. B: ``f(d + d0) -> f*(theta) - <theta, d0>`` (docs/math.md#calculus-rules).

    Parameters
    ----------
    f : ConvexFunction
        The function transformed.
    a : array_like
        The shift.
    """

    def __init__(self, f: ConvexFunction, a: ArrayLike) -> None:
        super().__init__(f)
        self.a = check_vector(a, "a", f.n)
        self.n = self.a.size

    def value(self, x: ArrayLike) -> float:
        return self.f.value(self._vector(x, "x") + self.a)

    def in_domain(self, x: ArrayLike, tol: float = 1e-9) -> bool:
        x = np.asarray(x, dtype=np.float64)
        return x.shape == self.a.shape and self.f.in_domain(x + self.a, tol)

    def conjugate(self, theta: ArrayLike) -> float:
        theta = self._vector(theta, "theta")
        return self.f.conjugate(theta) - float(theta @ self.a)

    def conjugate_grad(self, theta: ArrayLike) -> NDArray[np.float64]:
        return self.f.conjugate_grad(self._vector(theta, "theta")) - self.a

    def cvxpy_value(self, x: cp.Expression) -> CvxpyForm:
        return self.f.cvxpy_value(x + self.a)

    def cvxpy_conjugate(self, theta: cp.Expression) -> CvxpyForm:
        expr, constraints = self.f.cvxpy_conjugate(theta)
        return expr - theta @ self.a, constraints

    def __repr__(self) -> str:
        return f"Shifted({self.f!r}, a=<{self.n} entries>)"


class Tilted(_Wrapper):
    """``f(x) + <a, x> + offset``; conjugate ``f*(theta - a) - offset``.

    The maximiser is ``f.conjugate_grad(theta - a)``.
    The affine perturbation rule (docs/math.md#calculus-rules; the linear part of [SS] App. B). ``a = None``
    adds only the constant ``offset`` (``f + b`` builds this).

    Parameters
    ----------
    f : ConvexFunction
        The function transformed.
    a : array_like or None
        The linear term.
    offset : float, default 0.0
        The constant.
    """

    def __init__(self, f: ConvexFunction, a: ArrayLike | None, offset: float = 0.0) -> None:
        super().__init__(f)
        self.a = None if a is None else check_vector(a, "a", f.n)
        if self.a is not None:
            self.n = self.a.size
        self.offset = check_scalar(offset, "offset")

    def _linear(self, x: NDArray[np.float64]) -> float:
        return 0.0 if self.a is None else float(self.a @ x)

    def _untilt(self, theta: ArrayLike) -> NDArray[np.float64]:
        theta = self._vector(theta, "theta")
        return theta if self.a is None else theta - self.a

    def value(self, x: ArrayLike) -> float:
        x = self._vector(x, "x")
        return self.f.value(x) + self._linear(x) + self.offset

    def in_domain(self, x: ArrayLike, tol: float = 1e-9) -> bool:
        return self.f.in_domain(x, tol)

    def conjugate(self, theta: ArrayLike) -> float:
        return self.f.conjugate(self._untilt(theta)) - self.offset

    def conjugate_grad(self, theta: ArrayLike) -> NDArray[np.float64]:
        return self.f.conjugate_grad(self._untilt(theta))

    def cvxpy_value(self, x: cp.Expression) -> CvxpyForm:
        expr, constraints = self.f.cvxpy_value(x)
        linear = 0.0 if self.a is None else self.a @ x
        return expr + linear + self.offset, constraints

    def cvxpy_conjugate(self, theta: cp.Expression) -> CvxpyForm:
        expr, constraints = self.f.cvxpy_conjugate(theta if self.a is None else theta - self.a)
        return expr - self.offset, constraints

    def __repr__(self) -> str:
        tilt = "None" if self.a is None else f"<{self.n} entries>"
        return f"Tilted({self.f!r}, a={tilt}, offset={self.offset!r})"


class Dilated(_Wrapper):
    """``f(c x)`` with ``c != 0``; conjugate ``f*(theta / c)``, maximiser ``f.conjugate_grad(theta / c) / c``.

    ``c`` a scalar, or a vector of non-zero entries (a diagonal dilation ``f(diag(c) x)``: the same
    rules, entrywise, since ``diag(c)`` is invertible). [SS] App. B (docs/math.md#calculus-rules).

    Parameters
    ----------
    f : ConvexFunction
        The function transformed.
    c : float or array_like
        The dilation, non-zero (entrywise for a vector).
    """

    def __init__(self, f: ConvexFunction, c: float | ArrayLike) -> None:
        super().__init__(f)
        if np.ndim(c) == 0:
            self.c = check_nonzero(c, "c")
        else:
            self.c = check_vector(c, "c", getattr(f, "n", None))
            if np.any(self.c == 0.0):
                raise ValueError("c must be non-zero in every entry")
            self.n = self.c.size

    def value(self, x: ArrayLike) -> float:
        return self.f.value(self.c * self._vector(x, "x"))

    def in_domain(self, x: ArrayLike, tol: float = 1e-9) -> bool:
        return self.f.in_domain(self.c * np.asarray(x, dtype=np.float64), tol)

    def conjugate(self, theta: ArrayLike) -> float:
        return self.f.conjugate(self._vector(theta, "theta") / self.c)

    def conjugate_grad(self, theta: ArrayLike) -> NDArray[np.float64]:
        return self.f.conjugate_grad(self._vector(theta, "theta") / self.c) / self.c

    def cvxpy_value(self, x: cp.Expression) -> CvxpyForm:
        return self.f.cvxpy_value(self.c * x if np.ndim(self.c) == 0 else cp.multiply(self.c, x))

    def cvxpy_conjugate(self, theta: cp.Expression) -> CvxpyForm:
        scaled = theta / self.c if np.ndim(self.c) == 0 else cp.multiply(1.0 / self.c, theta)
        return self.f.cvxpy_conjugate(scaled)

    def __repr__(self) -> str:
        c = repr(self.c) if np.ndim(self.c) == 0 else f"<{self.c.size} entries>"
        return f"Dilated({self.f!r}, c={c})"


class SeparableSum(ConvexFunction):
    """``f(x) = sum_j f_j(x_{B_j})`` over consecutive blocks; ``f*(theta) = sum_j f_j*(theta_{B_j})``.

    The maximiser is the concatenation of the blocks' maximisers. ``sizes`` gives the block
    lengths; it may be omitted when every ``f_j`` has a fixed dimension ``f_j.n``.

    Parameters
    ----------
    functions : sequence of ConvexFunction
        The f_j.
    sizes : sequence of int, optional
        The block lengths.
    """

    def __init__(self, functions: Sequence[ConvexFunction], sizes: Sequence[int] | None = None) -> None:
        self.functions = [_check_function(f, "functions[]") for f in functions]
        if not self.functions:
            raise ValueError("functions must not be empty")
        if sizes is None:
            if any(f.n is None for f in self.functions):
                raise ValueError("sizes is required when a block function has no fixed dimension")
            sizes = [int(f.n) for f in self.functions]  # type: ignore[arg-type]
        if len(sizes) != len(self.functions):
            raise ValueError(
                f"sizes must have one entry per function ({len(self.functions)}); got {len(sizes)}"
            )
        for f, size in zip(self.functions, sizes, strict=True):
            if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
                raise ValueError(f"sizes must be positive integers; got {size!r}")
            check_size(f.n, int(size), "sizes[]")
        self.sizes = [int(s) for s in sizes]
        self.n = sum(self.sizes)
        self._cuts = np.cumsum(self.sizes)[:-1]
        self.conjugate_is_differentiable = all(f.conjugate_is_differentiable for f in self.functions)

    def _blocks(self, x: ArrayLike, name: str) -> list[NDArray[np.float64]]:
        return np.split(check_vector(x, name, self.n), self._cuts)

    def _cvxpy_blocks(self, x: cp.Expression) -> list[cp.Expression]:
        starts = np.concatenate(([0], np.cumsum(self.sizes)))
        return [x[a:b] for a, b in zip(starts[:-1], starts[1:], strict=True)]

    def value(self, x: ArrayLike) -> float:
        return float(sum(f.value(b) for f, b in zip(self.functions, self._blocks(x, "x"), strict=True)))

    def in_domain(self, x: ArrayLike, tol: float = 1e-9) -> bool:
        x = np.asarray(x, dtype=np.float64)
        if x.shape != (self.n,):
            return False
        blocks = np.split(x, self._cuts)
        return all(f.in_domain(b, tol) for f, b in zip(self.functions, blocks, strict=True))

    def conjugate(self, theta: ArrayLike) -> float:
        blocks = self._blocks(theta, "theta")
        return float(sum(f.conjugate(b) for f, b in zip(self.functions, blocks, strict=True)))

    def conjugate_grad(self, theta: ArrayLike) -> NDArray[np.float64]:
        blocks = self._blocks(theta, "theta")
        return np.concatenate([f.conjugate_grad(b) for f, b in zip(self.functions, blocks, strict=True)])

    def _cvxpy_sum(
        self, x: cp.Expression, form: Callable[[ConvexFunction, cp.Expression], CvxpyForm]
    ) -> CvxpyForm:
        exprs, constraints = [], []
        for f, block in zip(self.functions, self._cvxpy_blocks(x), strict=True):
            expr, cons = form(f, block)
            exprs.append(expr)
            constraints.extend(cons)
        return cp.sum(cp.hstack(exprs)), constraints

    def cvxpy_value(self, x: cp.Expression) -> CvxpyForm:
        return self._cvxpy_sum(x, lambda f, b: f.cvxpy_value(b))

    def cvxpy_conjugate(self, theta: cp.Expression) -> CvxpyForm:
        return self._cvxpy_sum(theta, lambda f, b: f.cvxpy_conjugate(b))

    def __repr__(self) -> str:
        return f"SeparableSum({self.functions!r}, sizes={self.sizes})"


class Sum(ConvexFunction):
    """``f(x) + g(x)``; conjugate = infimal convolution ``min_y f*(y) + g*(theta - y)``
    (docs/math.md#calculus-rules).

    Computed numerically. When both conjugates are finite and differentiable everywhere
    (``conjugate_is_differentiable``), by L-BFGS-B over ``y`` with the exact gradient
    ``grad f*(y) - grad g*(theta - y)``; the maximiser is ``grad f*(y*)`` (or ``grad g*(theta - y*)``,
    whichever certifies the larger lower bound ``<x, theta> - f(x) - g(x)``); if L-BFGS-B stops away
    from a stationary point (gradient above 1e-6), the conic solve below is used. Otherwise, by a conic
    solve of ``min f*(y) + g*(z) s.t. y + z = theta`` over the cvxpy forms; the maximiser is then
    minus the multiplier of ``y + z = theta``. Accuracy is that of the solver (about 1e-8), not
    of a closed form: use :func:`add` to get closed forms where they exist.

    Parameters
    ----------
    f, g : ConvexFunction
        The terms.
    """

    def __init__(self, f: ConvexFunction, g: ConvexFunction) -> None:
        self.f = _check_function(f, "f")
        self.g = _check_function(g, "g")
        self.n = check_size(f.n, g.n, "g")
        self.conjugate_is_differentiable = f.conjugate_is_differentiable and g.conjugate_is_differentiable
        self._cache: tuple[bytes, float, NDArray[np.float64], NDArray[np.float64]] | None = None

    def value(self, x: ArrayLike) -> float:
        x = check_vector(x, "x", self.n)
        return self.f.value(x) + self.g.value(x)

    def in_domain(self, x: ArrayLike, tol: float = 1e-9) -> bool:
        return self.f.in_domain(x, tol) and self.g.in_domain(x, tol)

    def _smooth(self, theta: NDArray[np.float64]) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
        def objective(y: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
            value = self.f.conjugate(y) + self.g.conjugate(theta - y)
            grad = self.f.conjugate_grad(y) - self.g.conjugate_grad(theta - y)
            return value, grad

        result = minimize(
            objective,
            theta / 2.0,
            jac=True,
            method="L-BFGS-B",
            options={"maxiter": 20000, "maxfun": 200000, "ftol": 1e-16, "gtol": 1e-12},
        )
        y = result.x
        tolerance = 1e-6 * (1.0 + np.abs(theta).max())
        stationary = np.isfinite(result.fun) and np.abs(result.jac).max() <= tolerance
        if not stationary:  # e.g. an overflowing exponential: let the conic solver try
            return self._conic(theta)
        candidates = [self.f.conjugate_grad(y), self.g.conjugate_grad(theta - y)]
        x = max(candidates, key=lambda c: float(c @ theta) - self.value(c))
        return float(result.fun), x, y

    def _conic(self, theta: NDArray[np.float64]) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
        y, z = cp.Variable(theta.size, name="y"), cp.Variable(theta.size, name="z")
        f_expr, f_cons = self.f.cvxpy_conjugate(y)
        g_expr, g_cons = self.g.cvxpy_conjugate(z)
        split = y + z == theta
        problem = cp.Problem(cp.Minimize(f_expr + g_expr), [*f_cons, *g_cons, split])
        status = solve_cvxpy(problem)
        if status in (cp.INFEASIBLE, cp.INFEASIBLE_INACCURATE):
            return np.inf, np.full(theta.size, np.nan), np.full(theta.size, np.nan)
        if status in (cp.UNBOUNDED, cp.UNBOUNDED_INACCURATE):
            raise ValueError("dom f and dom g do not intersect: f + g is identically +inf")
        x = -np.asarray(split.dual_value, dtype=np.float64)
        return float(problem.value), x, np.asarray(y.value, dtype=np.float64)

    def _solve(self, theta: ArrayLike) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
        theta = check_vector(theta, "theta", self.n)
        key = theta.tobytes()
        if self._cache is None or self._cache[0] != key:
            solve = self._smooth if self.conjugate_is_differentiable else self._conic
            self._cache = (key, *solve(theta))
        return self._cache[1], self._cache[2].copy(), self._cache[3].copy()

    def split(self, theta: ArrayLike) -> NDArray[np.float64]:
        """The minimiser y of the infimal convolution ``f*(y) + g*(theta - y)``: at the maximiser x,
        f sees y and g sees ``theta - y`` (both Fenchel-Young pairs are then tight)."""
        return self._solve(theta)[2]

    def conjugate(self, theta: ArrayLike) -> float:
        return self._solve(theta)[0]

    def conjugate_grad(self, theta: ArrayLike) -> NDArray[np.float64]:
        value, x, _ = self._solve(theta)
        if not np.isfinite(value):
            raise ValueError("theta lies outside dom (f + g)*: the supremum is +inf")
        return x

    def cvxpy_value(self, x: cp.Expression) -> CvxpyForm:
        f_expr, f_cons = self.f.cvxpy_value(x)
        g_expr, g_cons = self.g.cvxpy_value(x)
        return f_expr + g_expr, [*f_cons, *g_cons]

    def cvxpy_conjugate(self, theta: cp.Expression) -> CvxpyForm:
        y = cp.Variable(theta.shape, name="y")
        f_expr, f_cons = self.f.cvxpy_conjugate(y)
        g_expr, g_cons = self.g.cvxpy_conjugate(theta - y)
        return f_expr + g_expr, [*f_cons, *g_cons]

    def __repr__(self) -> str:
        return f"Sum({self.f!r}, {self.g!r})"


def scale(f: ConvexFunction, c: object) -> ConvexFunction:
    """``c * f`` for ``c > 0`` (nested scalings collapse; ``c = 1`` returns ``f``).

    Parameters
    ----------
    f : ConvexFunction
        The function transformed.
    c : float
        The factor, > 0.

    Returns
    -------
    ConvexFunction
        ``c * f``.
    """
    c = check_positive(c, "c")
    if isinstance(f, Scaled):
        return scale(f.f, c * f.c)
    return f if c == 1.0 else Scaled(f, c)


def _entropy_on_capped_simplex(a: ConvexFunction, b: ConvexFunction) -> ConvexFunction | None:
    """``(1/eta) [Unnormalised]RelativeEntropy(d0) + CappedSimplex(nu)`` in closed form
    (docs/math.md#capped-softmax).

    On the simplex ``sum d ln(d/d0) = KL(d || d0/Z) - ln Z`` with ``Z = sum d0``, and the unnormalised
    entropy adds ``Z - 1``; so the sum is ``CappedRelativeEntropy(d0/Z, nu, eta)`` plus a constant.
    """
    if not isinstance(b, CappedSimplex):
        return None
    c, inner = (a.c, a.f) if isinstance(a, Scaled) else (1.0, a)
    if not isinstance(inner, (RelativeEntropy, UnnormalisedRelativeEntropy)) or inner.d0 is None:
        return None  # without d0 the dimension is unknown until the first argument: no closed form yet
    z = float(inner.d0.sum())
    constant = -np.log(z) + (z - 1.0 if isinstance(inner, UnnormalisedRelativeEntropy) else 0.0)
    capped = CappedRelativeEntropy(inner.d0 / z, nu=b.nu, eta=1.0 / c)
    return capped if abs(constant) <= 1e-12 else Tilted(capped, None, offset=c * constant)


def _merge_relative_entropies(a: ConvexFunction, b: ConvexFunction) -> ConvexFunction | None:
    """``s RelativeEntropy(p) + t RelativeEntropy(q) = (s + t) RelativeEntropy(p^(s/(s+t)) q^(t/(s+t)))``.

    Exact on the orthant: ``s d ln(d/p) + t d ln(d/q) = (s + t) d ln d - d (s ln p + t ln q)``, per entry.
    (E.g. a regulariser's entropy plus the smoothing ``beta h`` of [SS] Eq. 8.)
    """
    parts = []
    for f in (a, b):
        c, inner = (f.c, f.f) if isinstance(f, Scaled) else (1.0, f)
        if type(inner) is not RelativeEntropy:
            return None
        parts.append((c, inner))
    (s, p), (t, q) = parts
    if p.d0 is None and q.d0 is None:  # two uniform priors: the merged prior is uniform too
        return scale(RelativeEntropy(), s + t)
    if p.d0 is None or q.d0 is None:
        return None
    check_size(p.n, q.n, "b")
    prior = np.exp((s * p._log_d0 + t * q._log_d0) / (s + t))
    return scale(RelativeEntropy(prior), s + t)


#: Closed-form rules tried by :func:`add`, each ``rule(a, b) -> f | None`` (tried in both orders).
SUM_RULES: list[Callable[[ConvexFunction, ConvexFunction], ConvexFunction | None]] = [
    _entropy_on_capped_simplex,
    _merge_relative_entropies,
    tempered_on_capped_simplex,
]


def add(f: ConvexFunction, other: object) -> ConvexFunction:
    """``f + other``: a closed form from :data:`SUM_RULES` if one applies, else :class:`Sum`.

    Parameters
    ----------
    f : ConvexFunction
        The first term.
    other : ConvexFunction or float
        The second term, or a real constant ``b`` (giving ``Tilted(f, None, b)``, conjugate ``f* - b``).

    Returns
    -------
    ConvexFunction
        ``f + other``.
    """
    f = _check_function(f, "f")
    if not isinstance(other, ConvexFunction):
        b = check_scalar(other, "other")
        return f if b == 0.0 else Tilted(f, None, offset=b)
    check_size(f.n, other.n, "other")
    for rule in SUM_RULES:
        for a, b in ((f, other), (other, f)):
            closed = rule(a, b)
            if closed is not None:
                return closed
    return Sum(f, other)
