"""The run machinery every driver of :mod:`dualboost.boosting` shares.

* :mod:`~dualboost.boosting.core.options`: the run options every driver takes
  (:class:`~dualboost.boosting.core.options.RunOptions`: callback, iterates, stages, checkpoints,
  the time limit), as keywords or as one object;
* :mod:`~dualboost.boosting.core.run`: the state of a run (:class:`~dualboost.boosting.core.run.Run`,
  the hypotheses and their columns in an :class:`~dualboost.boosting.core.run.Ensemble`), the checks
  of a driver's arguments and the warnings at its end;
* :mod:`~dualboost.boosting.core.history`: the per-iteration history every driver records;
* :mod:`~dualboost.boosting.core.result`: :class:`~dualboost.boosting.core.result.BoostResult` and
  the decision function of a weighted ensemble;
* :mod:`~dualboost.boosting.core.stopping`: the iteration caps of the theorems of [KG];
* :mod:`~dualboost.boosting.core.eta`: the entropy family's eta, a user's or the canonical default;
* :mod:`~dualboost.boosting.core.checkpoint`: checkpoints of long runs;
* :mod:`~dualboost.boosting.core.progress`: the progress line on a terminal;
* :mod:`~dualboost.boosting.core.plot`: plots of a history.
"""
