"""Dask input to the estimators: what a Dask collection is (without importing dask when it is not
loaded), and the ValueError of an estimator that trains in memory only (what runs on Dask instead;
docs/dask.md)."""

from __future__ import annotations

__all__ = ["dask_kind", "reject_dask_input", "DASK_FIT"]


def dask_kind(x: object) -> str | None:
    """``"array"`` if ``x`` is a ``dask.array``, ``"collection"`` for another Dask collection (a Dask
    DataFrame, Bag, Delayed), None otherwise. Imports no Dask module: a Dask object's type comes from
    a module that is loaded already (:func:`dualboost.dask.is_dask_array`).

    Parameters
    ----------
    x : object
        Anything.

    Returns
    -------
    str or None
    """
    module = type(x).__module__
    if not module.startswith(("dask.", "dask_expr.")) or not hasattr(x, "__dask_graph__"):
        return None
    from dualboost.dask.data import is_dask_array  # lazily: dualboost.dask imports this module

    return "array" if is_dask_array(x) else "collection"


#: what trains on dask input, for the error messages
DASK_FIT = (
    "only ERLPBoostClassifier(oracle='stumps', method='auglag') without checkpoint trains on "
    "row-partitioned dask arrays X and y"
)


def reject_dask_input(estimator: object, X: object, y: object = None, *, why: str = "") -> None:
    """Raise a ValueError if X or y is a Dask collection, for an estimator (or a configuration: ``why``)
    that trains in memory only: the message names the dask input, says what runs on Dask and how to
    proceed (``X.compute()`` when X fits in memory). Nothing is computed.

    Parameters
    ----------
    estimator : object
        The estimator (named in the message).
    X : object
        The features.
    y : object, optional
        The labels.
    why : str, default ""
        The configuration that trains in memory only.

    Raises
    ------
    ValueError
        If X or y is a Dask collection.
    """
    kinds = {name: dask_kind(value) for name, value in (("X", X), ("y", y))}
    found = [name for name, kind in kinds.items() if kind is not None]
    if not found:
        return
    arrays = all(kinds[name] == "array" for name in found)
    what = " and ".join(found) + (" are " if len(found) == 2 else " is a ")
    what += ("dask array" if arrays else "Dask collection") + ("s" if len(found) == 2 else "")
    raise ValueError(
        f"X and y must be in-memory arrays for {type(estimator).__name__}{why}; {what}. On Dask, {DASK_FIT}"
        f"{'' if arrays else ' (a Dask DataFrame: X.to_dask_array(lengths=True))'}. If X fits in memory, "
        "pass X.compute() (and y.compute()); nothing was computed."
    )
