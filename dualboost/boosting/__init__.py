"""Boosting drivers (docs/architecture.md#layers): one subpackage per family, the run machinery they
share in :mod:`dualboost.boosting.core` (run state, history, results, stopping rules, checkpoints,
progress line, plots), and :mod:`dualboost.boosting.algorithms` (the [KG] drivers by name).

The drivers of [KG] (each takes a fitted oracle and returns a :class:`BoostResult` with the
hypotheses, their weights w, the per-iteration :class:`History` and the oracle/solver time split):

* totally corrective (:mod:`~dualboost.boosting.totally_corrective`): :func:`lpboost` (Alg. 2.1),
  :func:`softboost` (Alg. 3.1), :func:`erlpboost` (Alg. 3.2), :func:`binary_erlpboost` (Alg. 3.3);
* the other totally corrective formulations
  (:mod:`~dualboost.boosting.totally_corrective.formulations`): :func:`mdboost` ([SL]),
  :func:`cgboost` ([BZB04]), :func:`nmboost` and :func:`qrlpboost` ([AFAHV25]);
* corrective (:mod:`~dualboost.boosting.corrective`): :func:`corrective_erlpboost` (Alg. 4.1),
  :func:`corrective_binary_erlpboost` (Alg. 4.3);
* :func:`adaboost` (the baseline, [KG] Ch. 6; :mod:`~dualboost.boosting.corrective.adaboost`);
* the algorithms of miniboosts: :func:`mlpboost` ([MHT22]), :func:`adaboostv` (AdaBoost*, [RW05]) and
  :func:`smoothboost` ([Ser03]); the Frank-Wolfe step rules of the corrective drivers (``step=``,
  :mod:`~dualboost.boosting.corrective.frank_wolfe`);
  :data:`ALGORITHMS` and :func:`boost` by name;
* the tempered and total relative entropies (docs/tempered.md): :func:`tempered_erlpboost`,
  :func:`t_adaboost` ([NAW]) and :func:`tklboost` ([LV11]); :func:`graphsepboost` ([AGHM21],
  docs/graphsep.md);
  iteration caps from the theorems in :mod:`~dualboost.boosting.core.stopping`.

:mod:`~dualboost.boosting.relaxation`: [SS] Fig. 1 and its totally corrective variant for any
:class:`~dualboost.problems.Relaxation`.

The other families, same history format:

* mirror descent ([NP], :mod:`~dualboost.boosting.maboost`): :func:`maboost`,
  :func:`lamaboost`, :func:`sparseboost`, :func:`madaboost`;
* gradient boosting in function space ([GB], :mod:`~dualboost.boosting.gradient`):
  :func:`gradient_projection` (naive, repeated, residual);
* online boosting ([BKL], :mod:`~dualboost.boosting.online`): :class:`OnlineBBM`,
  :class:`AdaBoostOL`;
* checkpoints of long runs: :mod:`~dualboost.boosting.core.checkpoint`; the progress line:
  :class:`~dualboost.boosting.core.progress.ProgressLine`.
"""

from dualboost.boosting.algorithms import ALGORITHMS, boost
from dualboost.boosting.core.history import History, HistoryRow
from dualboost.boosting.core.progress import ProgressLine
from dualboost.boosting.core.result import BoostResult
from dualboost.boosting.corrective.adaboost import adaboost, adaboostv
from dualboost.boosting.corrective.drivers import corrective_binary_erlpboost, corrective_erlpboost, mlpboost
from dualboost.boosting.corrective.graphsep import graphsepboost
from dualboost.boosting.corrective.smoothboost import smoothboost
from dualboost.boosting.corrective.t_adaboost import t_adaboost
from dualboost.boosting.gradient.drivers import GradientBoostResult, gradient_projection
from dualboost.boosting.maboost.drivers import MABoostResult, lamaboost, maboost, madaboost, sparseboost
from dualboost.boosting.online.drivers import AdaBoostOL, OnlineBBM
from dualboost.boosting.relaxation.drivers import (
    RelaxationBoostResult,
    corrective_relaxation_boost,
    max_edge_oracle,
    totally_corrective_relaxation_boost,
)
from dualboost.boosting.totally_corrective.drivers import binary_erlpboost, erlpboost, lpboost, softboost
from dualboost.boosting.totally_corrective.formulations import cgboost, mdboost, nmboost, qrlpboost
from dualboost.boosting.totally_corrective.tempered import tempered_erlpboost
from dualboost.boosting.totally_corrective.tkl import tklboost

__all__ = [
    "lpboost",
    "softboost",
    "erlpboost",
    "binary_erlpboost",
    "mdboost",
    "cgboost",
    "nmboost",
    "qrlpboost",
    "corrective_erlpboost",
    "corrective_binary_erlpboost",
    "adaboost",
    "mlpboost",
    "adaboostv",
    "smoothboost",
    "tempered_erlpboost",
    "t_adaboost",
    "tklboost",
    "graphsepboost",
    "boost",
    "ALGORITHMS",
    "BoostResult",
    "History",
    "HistoryRow",
    "RelaxationBoostResult",
    "corrective_relaxation_boost",
    "totally_corrective_relaxation_boost",
    "max_edge_oracle",
    "maboost",
    "lamaboost",
    "sparseboost",
    "madaboost",
    "MABoostResult",
    "gradient_projection",
    "GradientBoostResult",
    "OnlineBBM",
    "AdaBoostOL",
    "ProgressLine",
]
