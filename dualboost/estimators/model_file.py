"""``save(path)`` and ``load(path)`` of every fitted estimator of the package, through a model file
(JSON + npz, never pickle: :mod:`dualboost.estimators.persistence`)."""

from __future__ import annotations

import os

__all__ = ["ModelFile"]


class ModelFile:
    """``save(path)`` and ``load(path)`` of a fitted estimator through a model file (JSON + npz, no
    pickle: :mod:`dualboost.estimators.persistence`)."""

    def save(self, path: str | os.PathLike) -> os.PathLike:
        """Write this fitted estimator to the model file ``path``; returns the path written.

        Parameters
        ----------
        path : str or os.PathLike
            The model file.

        Returns
        -------
        os.PathLike
            The path written.
        """
        from dualboost.estimators.persistence import save  # lazily: persistence knows every estimator

        return save(self, path)

    @classmethod
    def load(cls, path: str | os.PathLike, *, trusted: tuple[str, ...] = ()) -> ModelFile:
        """The fitted estimator of the model file ``path`` (ValueError if the file holds another class;
        ``trusted``: further types a scikit-learn member may hold, as for
        :func:`~dualboost.estimators.persistence.load`).

        Parameters
        ----------
        path : str or os.PathLike
            The model file.
        trusted : tuple of str, default ()
            Further types a scikit-learn member may hold.

        Returns
        -------
        ModelFile
            The fitted estimator.
        """
        from dualboost.estimators.persistence import load

        model = load(path, trusted=trusted)
        if not isinstance(model, cls):
            raise ValueError(f"{os.fspath(path)!r} holds a {type(model).__name__}, not a {cls.__name__}")
        return model
