"""The protocol every entry of the conjugate library follows.

A :class:`ConvexFunction` is a closed convex ``f: R^N -> R u {+inf}`` that knows

* ``value(x)``: ``f(x)``, ``+inf`` outside its domain;
* ``conjugate(theta)``: ``f*(theta) = sup_x <x, theta> - f(x)`` ([SS] Eq. 1);
* ``conjugate_grad(theta)``: a maximiser in that sup, i.e. ``grad f*(theta)`` when f is strictly
  convex ([SS] Lemma 18). This is the map from the w-domain back to the d-domain;
* ``in_domain(x, tol)``: whether ``x`` lies in ``dom f`` up to ``tol``;
* ``cvxpy_value(x)`` / ``cvxpy_conjugate(theta)``: cvxpy expressions with the constraints they
  need. An expression may use auxiliary variables (ψ, β, γ of the spec); it is then exact after
  minimising over them, so it may only be minimised (or its negative maximised), which is how
  the primal and dual models use it.

Fenchel–Young: ``f(x) + f*(theta) >= <x, theta>`` with equality at ``x = conjugate_grad(theta)``
([SS] Lemma 17); the tests check it for every entry.
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

    def fenchel_young_gap(self, x: ArrayLike, theta: ArrayLike) -> float:
        """``f(x) + f*(theta) - <x, theta> >= 0``; zero iff ``x`` is a maximiser for ``theta``."""
        x = np.asarray(x, dtype=np.float64)
        theta = np.asarray(theta, dtype=np.float64)
        return float(self.value(x) + self.conjugate(theta) - x @ theta)
