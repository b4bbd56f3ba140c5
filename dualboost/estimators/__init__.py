"""scikit-learn front-ends of the drivers in :mod:`dualboost.boosting`, one module per family
(docs/architecture.md#layers):

* :mod:`~dualboost.estimators.totally_corrective`: :class:`LPBoostClassifier`,
  :class:`SoftBoostClassifier`, :class:`ERLPBoostClassifier`, :class:`BinaryERLPBoostClassifier`
  ([KG] Algs. 2.1, 3.1-3.3);
* :mod:`~dualboost.estimators.corrective`: :class:`CorrectiveERLPBoostClassifier`,
  :class:`CorrectiveBinaryERLPBoostClassifier` ([KG] Algs. 4.1, 4.3);
* :mod:`~dualboost.estimators.formulations`: :class:`MDBoostClassifier` ([SL]),
  :class:`CGBoostClassifier` ([BZB04]), :class:`NMBoostClassifier` and :class:`QRLPBoostClassifier`
  ([AFAHV25]);
* :mod:`~dualboost.estimators.miniboosts`: :class:`MLPBoostClassifier` ([MHT22]),
  :class:`MaxEdgeAdaBoostClassifier` (AdaBoost as in [KG]'s experiments),
  :class:`AdaBoostVClassifier` ([RW05]), :class:`SmoothBoostClassifier` ([Ser03]);
* :mod:`~dualboost.estimators.maboost`: :class:`MABoostClassifier`, :class:`SparseBoostClassifier`,
  :class:`MadaBoostClassifier` (mirror descent, [NP]);
* :mod:`~dualboost.estimators.gradient`: :class:`GradientProjectionClassifier`,
  :class:`GradientProjectionRegressor` (gradient boosting in function space, [GB]);
* :mod:`~dualboost.estimators.online`: :class:`OnlineBBMClassifier`, :class:`AdaBoostOLClassifier`
  (online boosting, [BKL]);
* :mod:`~dualboost.estimators.cv`: :func:`path` (the nu path, warm-started) and :class:`ERLPBoostCV`,
  :class:`LPBoostCV` (nu chosen by cross-validation);
* :mod:`~dualboost.estimators.reweight`: :func:`reweight` and :class:`ReweightedClassifier` (a fitted
  forest's or ensemble's members re-weighted by one certified LPBoost / ERLPBoost solve);
* :mod:`~dualboost.estimators.persistence`: :func:`save` and :func:`load` (model files: JSON and numpy
  arrays, scikit-learn members through skops; no pickle).

What they share, one job per module: :mod:`~dualboost.estimators.base` holds
:class:`~dualboost.estimators.base.BoostingClassifier` (the parameters and fitted attributes of the
classifiers of [KG]); :mod:`~dualboost.estimators.params` the scikit-learn parameter constraints they
share and the conversion of the capping fraction ``nu`` to the models' count (:func:`nu_count`);
:mod:`~dualboost.estimators.inputs` the validation of features, labels and sample weights;
:mod:`~dualboost.estimators.dask_input` the detection of Dask input (:func:`dask_kind`,
:func:`reject_dask_input`); :mod:`~dualboost.estimators.model_file` ``save``/``load``.
:mod:`~dualboost.estimators.dask` holds
the Dask fit that :class:`ERLPBoostClassifier` runs on a dask X (imported only with the ``dask`` extra;
its :class:`~dualboost.estimators.dask.DaskERLPBoostClassifier` is deprecated).
"""

from dualboost.estimators.corrective import CorrectiveBinaryERLPBoostClassifier, CorrectiveERLPBoostClassifier
from dualboost.estimators.cv import ERLPBoostCV, LPBoostCV, path
from dualboost.estimators.dask_input import dask_kind, reject_dask_input
from dualboost.estimators.formulations import (
    CGBoostClassifier,
    MDBoostClassifier,
    NMBoostClassifier,
    QRLPBoostClassifier,
)
from dualboost.estimators.gradient import GradientProjectionClassifier, GradientProjectionRegressor
from dualboost.estimators.graphsep import GraphSepBoostClassifier
from dualboost.estimators.maboost import MABoostClassifier, MadaBoostClassifier, SparseBoostClassifier
from dualboost.estimators.miniboosts import (
    AdaBoostVClassifier,
    MaxEdgeAdaBoostClassifier,
    MLPBoostClassifier,
    SmoothBoostClassifier,
)
from dualboost.estimators.online import AdaBoostOLClassifier, OnlineBBMClassifier
from dualboost.estimators.params import nu_count
from dualboost.estimators.persistence import load, save
from dualboost.estimators.reweight import ReweightedClassifier, reweight
from dualboost.estimators.tempered import TAdaBoostClassifier, TemperedERLPBoostClassifier
from dualboost.estimators.totally_corrective import (
    BinaryERLPBoostClassifier,
    ERLPBoostClassifier,
    LPBoostClassifier,
    SoftBoostClassifier,
)

__all__ = [
    "LPBoostClassifier",
    "SoftBoostClassifier",
    "ERLPBoostClassifier",
    "BinaryERLPBoostClassifier",
    "TemperedERLPBoostClassifier",
    "TAdaBoostClassifier",
    "GraphSepBoostClassifier",
    "CorrectiveERLPBoostClassifier",
    "CorrectiveBinaryERLPBoostClassifier",
    "MaxEdgeAdaBoostClassifier",
    "MDBoostClassifier",
    "CGBoostClassifier",
    "NMBoostClassifier",
    "QRLPBoostClassifier",
    "MLPBoostClassifier",
    "AdaBoostVClassifier",
    "SmoothBoostClassifier",
    "MABoostClassifier",
    "SparseBoostClassifier",
    "MadaBoostClassifier",
    "GradientProjectionClassifier",
    "GradientProjectionRegressor",
    "OnlineBBMClassifier",
    "AdaBoostOLClassifier",
    "ERLPBoostCV",
    "LPBoostCV",
    "path",
    "ReweightedClassifier",
    "reweight",
    "save",
    "load",
    "nu_count",
    "dask_kind",
    "reject_dask_input",
]
