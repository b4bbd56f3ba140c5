"""The protocol every entry of the conjugate library follows.

A :class:`ConvexFunction` is a closed convex ``f: R^N -> R u {+inf}`` that knows

* ``value(x)``: ``f(x)``, ``+inf`` outside its domain;
* ``conjugate(theta)``: ``f*(theta) = sup_x <x, theta> - f(x)`` ([SS] Eq. 1);
* ``conjugate_grad(theta)``: a maximiser in that sup, i.e. ``grad f*(theta)`` when f is strictly
  convex ([SS] Lemma 18). This is the map from the w-domain back to the d-domain;
* ``in_domain(x, tol)``: whether ``x`` lies in ``dom f`` up to ``tol``;
* ``cvxpy_value(x)`` / ``cvxpy_conjugate(theta)``: cvxpy expressions with the constraints they
  need. An expression may use auxiliary variables (ψ, β, γ of docs/math.md#notation); it is then exact after
  minimising over them, so it may only be minimised (or its negative maximised), which is how
  the primal and dual models use it.

Fenchel–Young: ``f(x) + f*(theta) >= <x, theta>`` with equality at ``x = conjugate_grad(theta)``
([SS] Lemma 17); the tests check it for every entry.

The calculus rules of [SS] Appendix B (docs/math.md#calculus-rules) are available as operators:
``c * f`` and ``f / c`` (scaling, ``c > 0``), ``f + g`` (sum; the conjugate is the infimal
convolution, with closed forms dispatched where known, see :func:`dualboost.conjugates.calculus.add`),
``f + b`` (constant), and the methods :meth:`ConvexFunction.shifted`, :meth:`ConvexFunction.tilted`,
:meth:`ConvexFunction.dilated` and :meth:`ConvexFunction.restricted_to_simplex` ([SS] Lemma 8).
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["ConvexFunction", "CvxpyForm"]

#: A cvxpy expression together with the constraints (on its auxiliary variables or on the
#: argument) that make it equal to the function it represents.
CvxpyForm = tuple[cp.Expression, list[cp.Constraint]]


class ConvexFunction(ABC):
    """A closed convex function with its Fenchel conjugate (see the module docstring)."""

    #: The dimension N of the argument when the function fixes it (``None``: any N).
    n: int | None = None
    #: True when f* is finite and differentiable on all of R^N, so that ``conjugate_grad`` is its
    #: gradient; the infimal convolution of :class:`~dualboost.conjugates.calculus.Sum` then runs
    #: a smooth quasi-Newton method instead of a conic solve.
    conjugate_is_differentiable: bool = False
    #: Make numpy defer ``c * f`` with a numpy scalar ``c`` to :meth:`__rmul__`.
    __array_ufunc__ = None

    @abstractmethod
    def value(self, x: ArrayLike) -> float:
        """``f(x)``; ``+inf`` outside the domain."""

    @abstractmethod
    def conjugate(self, theta: ArrayLike) -> float:
        """``f*(theta) = sup_x <x, theta> - f(x)``."""

    @abstractmethod
    def conjugate_grad(self, theta: ArrayLike) -> NDArray[np.float64]:
        """A maximiser ``x`` of ``<x, theta> - f(x)`` (``grad f*(theta)`` where it exists)."""

    @abstractmethod
    def in_domain(self, x: ArrayLike, tol: float = 1e-9) -> bool:
        """Whether ``x`` lies in ``dom f`` up to ``tol`` (absolute, per constraint)."""

    def cvxpy_value(self, x: cp.Expression) -> CvxpyForm:
        """``f(x)`` as a cvxpy expression plus constraints."""
        raise NotImplementedError(f"{type(self).__name__} has no cvxpy form of f")

    def cvxpy_conjugate(self, theta: cp.Expression) -> CvxpyForm:
        """``f*(theta)`` as a cvxpy expression plus constraints."""
        raise NotImplementedError(f"{type(self).__name__} has no cvxpy form of f*")

    def with_warm_starts(self) -> ConvexFunction:
        """A version of f for an iterative solver: entries whose conjugate needs an inner iteration
        (the binary entropy's normaliser) return a copy that starts it from the previous call's
        result. Values agree with ``self`` to rounding, but depend on the call history, so
        certificates are computed with ``self``. Default: ``self``."""
        return self

    def conjugate_and_grad(self, theta: ArrayLike) -> tuple[float, NDArray[np.float64]]:
        """``(f*(theta), conjugate_grad(theta))`` together; entries whose conjugate is computed
        through its maximiser override this to do the work once (the dual solvers call it)."""
        return self.conjugate(theta), self.conjugate_grad(theta)

    def fenchel_young_gap(self, x: ArrayLike, theta: ArrayLike) -> float:
        """``f(x) + f*(theta) - <x, theta> >= 0``; zero iff ``x`` is a maximiser for ``theta``."""
        x = np.asarray(x, dtype=np.float64)
        theta = np.asarray(theta, dtype=np.float64)
        return float(self.value(x) + self.conjugate(theta) - x @ theta)

    # -- calculus rules of [SS] Appendix B (docs/math.md#calculus-rules) ------------------------

    def __mul__(self, c: object) -> ConvexFunction:
        """``c * f`` with ``c > 0``: ``(c f)*(theta) = c f*(theta / c)``."""
        from dualboost.conjugates.calculus import scale

        return scale(self, c)

    __rmul__ = __mul__

    def __truediv__(self, c: object) -> ConvexFunction:
        """``f / c = (1/c) * f`` with ``c > 0``."""
        from dualboost._validation import check_positive

        return self * (1.0 / check_positive(c, "c"))

    def __add__(self, other: object) -> ConvexFunction:
        """``f + g`` (a :class:`Sum`, or a closed form when one is known) or ``f + b`` (a constant)."""
        from dualboost.conjugates.calculus import add

        return add(self, other)

    __radd__ = __add__

    def shifted(self, a: ArrayLike) -> ConvexFunction:
        """``x -> f(x + a)``; conjugate ``f*(theta) - <theta, a>``."""
        from dualboost.conjugates.calculus import Shifted

        return Shifted(self, a)

    def tilted(self, a: ArrayLike) -> ConvexFunction:
        """``x -> f(x) + <a, x>``; conjugate ``f*(theta - a)``."""
        from dualboost.conjugates.calculus import Tilted

        return Tilted(self, a)

    def dilated(self, c: float) -> ConvexFunction:
        """``x -> f(c x)`` with ``c != 0``; conjugate ``f*(theta / c)``."""
        from dualboost.conjugates.calculus import Dilated

        return Dilated(self, c)

    def restricted_to_simplex(self) -> ConvexFunction:
        """``f + I_S`` with the conjugate of [SS] Lemma 8 (docs/math.md#restriction-to-the-simplex)."""
        from dualboost.conjugates.restriction import SimplexRestriction

        return SimplexRestriction(self)
