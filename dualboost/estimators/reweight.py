"""Re-weighting a fitted ensemble (colboost's ``reweight_ensemble``): :func:`reweight` and
:class:`ReweightedClassifier`.

The members h_1, ..., h_Q of a fitted ensemble (the trees of a RandomForest or ExtraTrees, the stages
of a GradientBoosting or an AdaBoost, or any list of fitted classifiers) are a fixed finite hypothesis
class. On data (X, y) their edge matrix is ``U[n, q] = y_n h_q(x_n)`` in [-1, 1]
(docs/math.md#edges-and-the-oracle), and one solve of a soft-margin model over all of U gives new
weights w over the members:

* ``model="lpboost"``: the soft-margin LP ([KG] Eq. 2.2, docs/math.md#lpboost),
  ``max_{w in S^Q} AvgMin_nu(U w)``, solved by HiGHS; an LP vertex, so most members get w = 0;
* ``model="erlpboost"``: its entropy-regularised form ([KG] Eq. 3.10, docs/math.md#erlpboost-dual)
  at eta (default the canonical ``(2/eps) ln(N/nu)``, docs/math.md#canonical-eta), solved by auglag;
* ``model="binary_erlpboost"``: the same with the binary relative entropy ([KG] Eq. 3.26,
  docs/math.md#binary-erlpboost; nu < 1, canonical eta ``(2/eps)(ln(N/nu) + 1)``), by auglag;
* ``model="qrlpboost"``: the quadratic expansion of ERLPBoost's entropy at the uniform centre
  (colboost's first QP, docs/math.md#qrlp-boost; nu and eta as ERLPBoost), by auglag;
* ``model="mdboost"``: the margin distribution ([SL] Eq. 6 with the identity, docs/math.md#mdboost;
  parameter ``D``, default 1), by auglag;
* ``model="cgboost"``: the l2-penalised hinge ([BZB04], docs/math.md#cgboost; parameter ``C``,
  default 1; w is not normalised by the model, the vote is), by HiGHS's QP solver;
* ``model="nmboost"``: the negative-margin LP ([AFAHV25], docs/math.md#nm-boost; ``lam`` default
  0.01 as :class:`~dualboost.estimators.formulations.NMBoostClassifier`, ``tau`` default 1/Q for a
  pool of Q members, colboost's and the model's), by HiGHS.

These are the models that are one convex problem over a fixed pool (:data:`MODELS`; colboost's six
formulations are among them). MDBoost, CGBoost and NM-Boost have no capping: ``nu`` does not apply
(``"auto"`` is ignored, a number is refused). SoftBoost and the corrective models are not: SoftBoost's
problem needs the edge bound of a run in progress and ends in LPBoost's LP, the corrective ones are a
step of a run (:data:`NOT_MODELS`); ``model=`` one of them is a ValueError saying so and listing the
choices.

Every solution is certified (:class:`~dualboost.solvers.Solution`: primal and dual values recomputed
by the model, their gap); an uncertified solve raises. The result is a weighted vote
``f(x) = sum_q w_q h_q(x)`` over the members with ``w_q > 0``.

How the members' outputs map into [-1, 1] (positive: the larger class, ``classes_[1]``):

* a classifier with ``predict_proba`` (the trees of a forest; a list member): ``h = 2 P(classes_[1] | x) - 1``
  (a forest's trees are fitted on the forest's encoded labels, so their column 1 is the forest's
  ``classes_[1]``); with ``output="predict"``, or without ``predict_proba``, and for AdaBoost's members
  (SAMME's discrete votes): ``h = +1`` where the member predicts ``classes_[1]``, else -1;
* a regressor (the stages of a GradientBoosting, whose trees fit the log-odds of ``classes_[1]``; a
  list member without ``classes_``): ``h = clip(r(x) / s, -1, 1)`` with s = max_n |r(x_n)| on the
  re-weighting data (as :class:`~dualboost.oracles.RawFeatures` scales a feature); a member that is 0 on
  all of X gets s = 1.

**Out-of-bag edges.** On its own bootstrap rows a fully grown tree has margin 1, so on the forest's
training rows a single tree can be optimal for the soft margin (breast cancer, a 70/30 split, 200
trees, nu = 0.1: one tree kept, test accuracy 0.906 against the forest's 0.953; out-of-bag: 51 trees,
0.953; ``nu="auto"``: 63 trees, 0.942). For a
bagged forest (``bootstrap=True``: ``estimators_samples_``) re-weighted on its training rows
(``oob="auto"``: X has as many rows as the forest was fitted on; ``oob=True``: required) the edge
matrix is the out-of-bag one, ``U[n, q] = y_n h_q(x_n)`` where row n is out of tree q's bootstrap
sample and 0 (no vote) where it is in it: the margin of a row is the vote of the trees that did not
see it, as in the forest's ``oob_score_``.

**K > 2 classes.** Each member (a tree of a forest, a member of an AdaBoost, a classifier of a list,
each fitted on the ensemble's K classes) is a class hypothesis, :class:`MemberVote`: the class it
predicts (a hard vote: ``output`` does not apply). The model is solved over the N(K-1) (example,
wrong class) pairs with the edges ``[h_q(x_n) = y_n] - [h_q(x_n) = k]`` (out-of-bag as above), as the
boosting classifiers do (docs/boosting.md#multiclass); ``nu`` is a fraction of the pairs;
``decision_function`` returns the votes ``F_c = sum_q w_q [h_q = c]`` (N x K), ``predict_proba`` their
softmax. A GradientBoosting of K classes (K regression trees per stage) is refused.

**nu.** ``nu="auto"`` (the default) chooses the capping by the rule of
:mod:`~dualboost.estimators.nu_selection` (a stratified holdout of the rows; each grid nu one solve
over the edge matrix of the other rows, scored on the held-out rows' edges), then solves on all rows.

**Probabilities and stages**, as the classifiers of :mod:`dualboost.estimators` give them:
``predict_proba = expit(a f)`` (:class:`~dualboost.estimators.probability.ProbabilityLink`) with the
slope a fitted on the re-weighting data's margins ``U w`` (out-of-bag ones for a bagged forest);
the staged predictions of :class:`~dualboost.estimators.base.BoostingClassifier` run over
``stages_``, which here are the votes of the kept members added by decreasing weight (stage k: the
k heaviest, their weights renormalised; the last stage is the fitted vote), to see how many members
a vote needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import HasMethods, StrOptions
from sklearn.utils.validation import check_is_fitted

from dualboost._validation import Matrix, binary_labels
from dualboost.boosting.core.result import StageRecorder, Stages, combined_decision
from dualboost.estimators.base import BoostingClassifier
from dualboost.estimators.inputs import labelled_data, validate_features
from dualboost.estimators.nu_selection import NuSelection, ScorePath, select_nu, validation_score
from dualboost.estimators.params import NU, POSITIVE, auto_nu, check_nu_fraction, nu_count
from dualboost.estimators.probability import ProbabilityLink, fit_link_slope, fit_softmax_slope
from dualboost.estimators.ties import class_prior, predicted_classes
from dualboost.oracles import Hypothesis
from dualboost.oracles.multiclass import ClassHypothesis, PairCoding, class_votes
from dualboost.problems import (
    BinaryERLPBoost,
    CGBoost,
    ERLPBoost,
    LPBoost,
    MDBoost,
    Model,
    NMBoost,
    QRLPBoost,
    canonical_eta,
)
from dualboost.solvers import Solution

__all__ = [
    "reweight",
    "ReweightedClassifier",
    "Member",
    "MemberVote",
    "MODELS",
    "NOT_MODELS",
    "MODEL_OPTIONS",
    "OUTPUTS",
    "ensemble_members",
]

#: the models of the re-weighting solve (module docstring), each one's solve method and side
MODELS = {
    "lpboost": ("highs", "primal"),
    "erlpboost": ("auglag", "dual"),
    "binary_erlpboost": ("auglag", "dual"),
    "qrlpboost": ("auglag", "dual"),
    "mdboost": ("auglag", "dual"),
    "cgboost": ("highs", "dual"),
    "nmboost": ("highs", "dual"),
}
#: the models of dualboost that are no fit over a fixed pool, and why
NOT_MODELS = {
    "softboost": "SoftBoost's problem bounds the edges by the best edge of a run in progress and ends "
    "in LPBoost's LP (use model='lpboost')",
    "corrective_erlpboost": "a corrective model is one Frank-Wolfe step of a run, not a fit (use "
    "model='erlpboost', the problem whose solution its run approaches)",
    "corrective_binary_erlpboost": "a corrective model is one Frank-Wolfe step of a run, not a fit "
    "(use model='binary_erlpboost')",
}
#: each model's own options and the models they apply to (None in the estimator: the default)
MODEL_OPTIONS = {
    "nu": ("lpboost", "erlpboost", "binary_erlpboost", "qrlpboost"),
    "eta": ("erlpboost", "binary_erlpboost", "qrlpboost"),
    "D": ("mdboost",),
    "C": ("cgboost",),
    "lam": ("nmboost",),
    "tau": ("nmboost",),
}
#: the defaults of the formulations' options (those of :mod:`dualboost.estimators.formulations`; tau:
#: None, the model's 1/Q over a pool of Q members, as colboost takes it)
_DEFAULTS = {"D": 1.0, "C": 1.0, "lam": 0.01, "tau": None}
#: how classifier members vote: ``"auto"`` (probabilities where the ensemble averages them) or ``"predict"``
OUTPUTS = ("auto", "predict")
#: the certificate's tolerance of the solve (relative gap and infeasibilities)
TOL = 1e-7
#: whether the edge matrix of a bagged forest is its out-of-bag one: ``"auto"`` (when X has as many rows
#: as the forest was trained on), True (required) or False
OOB = ("auto", True, False)
#: member kinds: a probability of ``classes_[1]`` (in its ``column`` of predict_proba), a class vote,
#: a scaled regression output
KINDS = ("proba", "predict", "regression")


@dataclass(frozen=True)
class Member(Hypothesis):
    """Member ``index`` of a fitted ensemble as a hypothesis in [-1, 1] (module docstring):
    ``kind`` ``"proba"`` (``2 P - 1`` from column ``column`` of ``predict_proba``), ``"predict"``
    (+1 where ``predict`` returns ``positive``, else -1) or ``"regression"`` (``clip(predict / scale)``).
    ``estimator`` is the fitted member (not compared: ``index`` identifies it in its pool)."""

    index: int
    kind: str
    column: int = field(compare=False)
    positive: object = field(compare=False)
    scale: float = field(compare=False)
    estimator: BaseEstimator = field(compare=False, repr=False)

    def _predict(self, X: Matrix) -> NDArray[np.float64]:
        if self.kind == "proba":
            values = 2.0 * self.estimator.predict_proba(X)[:, self.column] - 1.0
        elif self.kind == "predict":
            values = np.where(np.asarray(self.estimator.predict(X)) == self.positive, 1.0, -1.0)
        else:
            values = np.asarray(self.estimator.predict(X), dtype=np.float64).ravel() / self.scale
        return np.clip(np.asarray(values, dtype=np.float64), -1.0, 1.0)

    def describe(self) -> str:
        return f"member {self.index} ({type(self.estimator).__name__}, {self.kind})"


@dataclass(frozen=True)
class MemberVote(ClassHypothesis):
    """Member ``index`` of a fitted ensemble of K > 2 classes as a class hypothesis: the index (into
    the member's ``classes_``, which are the ensemble's) of the class it predicts (module docstring)."""

    index: int
    estimator: BaseEstimator = field(compare=False, repr=False)

    def _predict(self, X: Matrix) -> NDArray[np.float64]:
        known = np.asarray(self.estimator.classes_)
        predicted = np.asarray(self.estimator.predict(X))
        at = np.minimum(np.searchsorted(known, predicted), known.size - 1)
        if known.size != self.n_classes or not np.array_equal(known[at], predicted):
            raise ValueError(
                f"member {self.index} ({type(self.estimator).__name__}) predicts labels outside its "
                f"{self.n_classes} classes"
            )
        return at.astype(np.float64)

    def describe(self) -> str:
        return f"member {self.index} ({type(self.estimator).__name__}, a class vote)"


def _forest_like(fitted: object) -> str | None:
    """The family of a fitted scikit-learn ensemble this module reads, by class name and module (so that
    subclasses count), or None."""
    from sklearn.ensemble import (
        AdaBoostClassifier,
        ExtraTreesClassifier,
        GradientBoostingClassifier,
        RandomForestClassifier,
    )

    if isinstance(fitted, (RandomForestClassifier, ExtraTreesClassifier)):
        return "forest"
    if isinstance(fitted, AdaBoostClassifier):
        return "adaboost"
    if isinstance(fitted, GradientBoostingClassifier):
        return "gradient"
    return None


def _check_classes(fitted: object, classes: NDArray, what: str) -> None:
    known = getattr(fitted, "classes_", None)
    if known is None or len(known) != len(classes) or not np.array_equal(np.asarray(known), classes):
        given = None if known is None else np.asarray(known).tolist()
        raise ValueError(
            f"{what} was fitted on the classes {given}; y has the classes {classes.tolist()}: re-weighting "
            "needs the same ones"
        )


def ensemble_members(fitted: object, classes: NDArray, output: str = "auto") -> list[tuple]:
    """The pool of a fitted ensemble or a list of fitted estimators as ``(estimator, kind, column,
    positive)`` (module docstring); a ValueError naming ``fitted`` for anything else, an unfitted
    ensemble, an empty list, or classes other than ``classes`` (y's labels, sorted). For K > 2
    classes: :func:`class_members`.

    Parameters
    ----------
    fitted : object
        A fitted scikit-learn ensemble or a list of fitted estimators.
    classes : ndarray
        The sorted labels of y.
    output : str, default "auto"
        Which output of the members to read (module docstring).

    Returns
    -------
    list of tuple
        The members as ``(estimator, kind, column, positive)``.
    """
    from sklearn.frozen import FrozenEstimator

    if len(classes) > 2:
        return class_members(fitted, classes)
    positive = classes[1]
    if isinstance(fitted, FrozenEstimator):
        fitted = fitted.estimator
    family = _forest_like(fitted)
    if family is not None:
        check_is_fitted(fitted)
        _check_classes(fitted, classes, type(fitted).__name__)
        if family == "forest":
            kind = "proba" if output == "auto" else "predict"
            # the trees predict the forest's encoded labels 0, 1 (0.0, 1.0 from predict)
            return [(tree, kind, 1, 1.0) for tree in fitted.estimators_]
        if family == "adaboost":
            return [(member, "predict", 0, positive) for member in fitted.estimators_]
        return [(tree, "regression", 0, None) for tree in np.asarray(fitted.estimators_).ravel()]
    if isinstance(fitted, (list, tuple)) and fitted:
        pool = []
        for k, member in enumerate(fitted):
            if not hasattr(member, "predict"):
                raise ValueError(f"fitted[{k}] has no predict method: {member!r}")
            check_is_fitted(member)
            if not hasattr(member, "classes_"):
                pool.append((member, "regression", 0, None))
                continue
            member_classes = np.asarray(member.classes_).tolist()
            if positive not in member_classes or not set(member_classes) <= set(classes.tolist()):
                raise ValueError(
                    f"fitted[{k}] was fitted on the classes {member_classes}; y has the classes "
                    f"{classes.tolist()}"
                )
            if output == "auto" and hasattr(member, "predict_proba"):
                pool.append((member, "proba", member_classes.index(positive), positive))
            else:
                pool.append((member, "predict", 0, positive))
        return pool
    raise ValueError(
        "fitted must be a fitted RandomForestClassifier, ExtraTreesClassifier, GradientBoostingClassifier "
        f"or AdaBoostClassifier, or a non-empty list of fitted estimators; got {type(fitted).__name__}"
    )


def class_members(fitted: object, classes: NDArray) -> list[tuple]:
    """The pool of K > 2 classes as ``(estimator, "vote", 0, None)``: the trees of a forest, the
    members of an AdaBoost, or a list of classifiers, each fitted on the ensemble's K classes (module
    docstring); a ValueError for a GradientBoosting (its stages are K regression trees, no classifier)
    or a member without ``classes_``."""
    from sklearn.frozen import FrozenEstimator

    if isinstance(fitted, FrozenEstimator):
        fitted = fitted.estimator
    family = _forest_like(fitted)
    if family == "gradient":
        raise ValueError(
            f"a GradientBoostingClassifier of {len(classes)} classes has {len(classes)} regression trees "
            "per stage and no classifier members to re-weight over the (example, wrong class) pairs; "
            "re-weight a forest, an AdaBoost or a list of classifiers"
        )
    if family is not None:
        check_is_fitted(fitted)
        _check_classes(fitted, classes, type(fitted).__name__)
        return [(member, "vote", 0, None) for member in fitted.estimators_]
    if isinstance(fitted, (list, tuple)) and fitted:
        for k, member in enumerate(fitted):
            if not hasattr(member, "predict"):
                raise ValueError(f"fitted[{k}] has no predict method: {member!r}")
            check_is_fitted(member)
            _check_classes(member, classes, f"fitted[{k}]")
        return [(member, "vote", 0, None) for member in fitted]
    raise ValueError(
        "fitted must be a fitted RandomForestClassifier, ExtraTreesClassifier or AdaBoostClassifier, or a "
        f"non-empty list of fitted classifiers; got {type(fitted).__name__}"
    )


def _pool_hypotheses(
    pool: list[tuple], X: Matrix, n_features: int, n_classes: int = 2
) -> tuple[list[Member | MemberVote], NDArray[np.float64]]:
    """The members as :class:`Member` hypotheses and their outputs ``H`` (N x Q) on X (the regression
    members' scales taken here); for K = ``n_classes`` > 2, :class:`MemberVote` hypotheses and the
    class index each predicts."""
    hypotheses, outputs = [], np.empty((X.shape[0], len(pool)))
    for q, (estimator, kind, column, positive) in enumerate(pool):
        if kind == "vote":  # K > 2 classes: the class index each member predicts
            vote = MemberVote(n_features=n_features, n_classes=n_classes, index=q, estimator=estimator)
            hypotheses.append(vote)
            outputs[:, q] = vote._predict(X)
            continue
        scale = 1.0
        if kind == "regression":
            peak = float(np.max(np.abs(np.asarray(estimator.predict(X), dtype=np.float64))))
            scale = peak if peak > 0 else 1.0
        member = Member(
            n_features=n_features,
            index=q,
            kind=kind,
            column=column,
            positive=positive,
            scale=scale,
            estimator=estimator,
        )
        hypotheses.append(member)
        outputs[:, q] = member._predict(X)
    return hypotheses, outputs


class ReweightedClassifier(ProbabilityLink, ClassifierMixin, BaseEstimator):
    """A fitted ensemble's members re-weighted by one certified soft-margin solve (module docstring).

    ``ensemble``: a fitted RandomForestClassifier, ExtraTreesClassifier, GradientBoostingClassifier or
    AdaBoostClassifier, or a list of fitted estimators (not refitted: ``fit`` only re-weights them);
    ``model``: one of :data:`MODELS` (default ``"lpboost"``; module docstring); ``nu``: the capping as a
    fraction of the re-weighting data, as the classifiers take it (``max(1, nu N)``,
    docs/math.md#capping-nu; not for mdboost, cgboost, nmboost); ``eps``: the precision that sets the
    canonical eta; ``eta``: the eta of erlpboost, binary_erlpboost and qrlpboost (None: canonical);
    ``D`` (mdboost), ``C`` (cgboost), ``lam`` and ``tau`` (nmboost): their models' parameters (None: 1,
    1, 0.01 as their classifiers, and tau 1/Q; given to another model: a ValueError);
    ``output``: ``"auto"`` or ``"predict"`` (classifier members vote +-1); ``oob``: the out-of-bag edges of
    a bagged forest (module docstring: ``"auto"``, True or False). scikit-learn's ``clone`` (in
    ``GridSearchCV``, ``cross_val_score``) clones ``ensemble`` too, unfitted: wrap it (or each member of
    a list) in ``sklearn.frozen.FrozenEstimator`` there.

    Fitted attributes: ``classes_``, ``n_features_in_``, ``n_members_`` (Q, the pool), ``support_``
    (indices of the members with w > 0), ``estimators_`` (those members), ``estimator_weights_``
    (their w, summing to 1), ``hypotheses_`` (them as :class:`Member`), ``solution_`` (the certified
    :class:`~dualboost.solvers.Solution` over the whole pool: ``solution_.w`` has Q entries), ``nu_``
    (the count), ``nu_fraction_`` and ``nu_selection_`` (how nu was chosen,
    :class:`~dualboost.estimators.nu_selection.NuSelection`; these three for the models with a
    capping), ``oob_`` (whether the edges were out-of-bag), ``eta_`` (the entropy models and QRLP),
    ``class_prior_`` (the fraction of each class; a tie f = 0 predicts the larger,
    :mod:`dualboost.estimators.ties`) and ``link_slope_`` (``predict_proba``, module docstring).

    Parameters
    ----------
    ensemble : estimator or list of estimators, optional
        A fitted RandomForestClassifier, ExtraTreesClassifier, GradientBoostingClassifier or
        AdaBoostClassifier, or a list of fitted estimators (not refitted: ``fit`` only re-weights them).
    model : str, default "lpboost"
        One of :data:`MODELS` (module docstring).
    nu : float or "auto", default "auto"
        The capping as a fraction of the re-weighting data, as the classifiers take it (``max(1, nu N)``,
        docs/math.md#capping-nu; not for mdboost, cgboost, nmboost).
    eps : float, default 0.01
        The precision that sets the canonical eta.
    eta : float, optional
        The eta of erlpboost, binary_erlpboost and qrlpboost (None: canonical).
    output : {"auto", "predict"}, default "auto"
        ``"predict"``: classifier members vote +-1.
    oob : bool or "auto", default "auto"
        The out-of-bag edges of a bagged forest (module docstring).
    D : float, optional
        mdboost's parameter (None: 1).
    C : float, optional
        cgboost's parameter (None: 1).
    lam : float, optional
        nmboost's lam (None: 0.01).
    tau : float, optional
        nmboost's tau (None: 1/Q).
    """

    #: whether ``fit`` takes K > 2 classes (a model file's class count is checked against it)
    _multiclass = True
    _parameter_constraints: dict = {
        "ensemble": [list, tuple, HasMethods(["predict"])],
        "model": [StrOptions(set(MODELS) | set(NOT_MODELS))],  # NOT_MODELS: refused in fit, saying why
        "nu": NU,
        "eps": POSITIVE,
        "eta": [*POSITIVE, None],
        "output": [StrOptions(set(OUTPUTS))],
        "oob": ["boolean", StrOptions({"auto"})],
        "D": [*POSITIVE, None],
        "C": [*POSITIVE, None],
        "lam": [*POSITIVE, None],
        "tau": [*POSITIVE, None],
    }

    def __init__(
        self,
        ensemble: object = None,
        *,
        model: str = "lpboost",
        nu: float | str = "auto",
        eps: float = 0.01,
        eta: float | None = None,
        output: str = "auto",
        oob: bool | str = "auto",
        D: float | None = None,
        C: float | None = None,
        lam: float | None = None,
        tau: float | None = None,
    ) -> None:
        self.ensemble = ensemble
        self.model = model
        self.nu = nu
        self.eps = eps
        self.eta = eta
        self.output = output
        self.oob = oob
        self.D = D
        self.C = C
        self.lam = lam
        self.tau = tau

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: ArrayLike, y: ArrayLike) -> ReweightedClassifier:
        """Solve the model over the members' edge matrix on (X, y) (out-of-bag for a bagged forest on
        its training rows; over the (example, wrong class) pairs for K > 2 classes; module docstring)
        at the given or chosen nu, and keep the members with w > 0."""
        self._check_model()
        X, y, _ = labelled_data(self, X, y)
        classes, indices = np.unique(y, return_inverse=True)
        labels = indices.ravel() if classes.size > 2 else binary_labels(y, X.shape[0], "y")[0]
        pool = ensemble_members(self.ensemble, classes, self.output)
        hypotheses, outputs = _pool_hypotheses(pool, X, X.shape[1], classes.size)
        seen = _in_bag(self.ensemble, X.shape[0], self.oob)
        self.oob_ = seen is not None
        edges = _Edges(outputs, labels, classes.size, seen)
        nu = None
        if self.model in MODEL_OPTIONS["nu"]:
            if isinstance(self.nu, str):
                self.nu_selection_ = select_nu(labels, auto_nu(labels), self._scores(edges, labels))
            else:
                self.nu_selection_ = NuSelection("given", float(self.nu))
            self.nu_fraction_ = self.nu_selection_.fraction
            self.nu_ = nu = nu_count(self.nu_fraction_, edges.U.shape[0])
        solution = self._solve(edges.U, nu)
        support = np.flatnonzero(solution.w > 0)
        if support.size == 0:  # (CGBoost's w = 0: no member has a positive edge on the hinge)
            raise ValueError(
                f"reweight: the {self.model} solution gives every member weight 0 (none has a positive "
                "edge on this data)"
            )
        self.classes_ = classes
        self.class_prior_ = class_prior(labels)
        self.n_members_ = len(pool)
        self.solution_ = solution
        self.support_ = support
        self.hypotheses_ = [hypotheses[q] for q in support]
        self.estimator_weights_ = solution.w[support] / solution.w[support].sum()
        self.estimators_ = [h.estimator for h in self.hypotheses_]
        w = np.zeros(len(pool))
        w[support] = self.estimator_weights_
        if classes.size > 2:
            self.link_slope_ = fit_softmax_slope(edges.votes(w), labels)
        else:
            self.link_slope_ = fit_link_slope(edges.U @ w)
        return self

    def _check_model(self) -> None:
        """Refuse a model of :data:`NOT_MODELS` (saying why), a numeric ``nu`` or another model's option
        given to a model that does not take it, and ``nu`` of 1 for the binary entropy."""
        if self.model in NOT_MODELS:
            raise ValueError(
                f"model={self.model!r} cannot re-weight a fixed pool: {NOT_MODELS[self.model]}. Choose one "
                f"of {', '.join(MODELS)}"
            )
        for name, models in MODEL_OPTIONS.items():
            value = getattr(self, name)
            if value is not None and not (name == "nu" and value == "auto") and self.model not in models:
                raise ValueError(
                    f"{name}={value!r} does not apply to model={self.model!r} (it applies to "
                    f"{', '.join(models)}); leave it at its default"
                )
        if self.model == "binary_erlpboost" and not isinstance(self.nu, str):
            check_nu_fraction(self.nu, below_one=True)

    def _option(self, name: str) -> float | None:
        """The model option ``name`` as given, or its default (:data:`_DEFAULTS`)."""
        value = getattr(self, name)
        return _DEFAULTS[name] if value is None else float(value)

    def _model(self, U: NDArray[np.float64], nu: float | None) -> Model:
        """The model over the edge matrix U (at the count nu where it has a capping; sets ``eta_``)."""
        if self.model == "lpboost":
            return LPBoost(U, nu=nu)
        if self.model in MODEL_OPTIONS["eta"]:
            binary = self.model == "binary_erlpboost"
            canonical = canonical_eta(U.shape[0], nu, float(self.eps), binary=binary)
            self.eta_ = canonical if self.eta is None else float(self.eta)
            kind = {"erlpboost": ERLPBoost, "binary_erlpboost": BinaryERLPBoost, "qrlpboost": QRLPBoost}
            return kind[self.model](U, nu=nu, eta=self.eta_)
        if self.model == "mdboost":
            return MDBoost(U, D=self._option("D"))
        if self.model == "cgboost":
            return CGBoost(U, C=self._option("C"))
        return NMBoost(U, lam=self._option("lam"), tau=self._option("tau"))

    def _solve(self, U: NDArray[np.float64], nu: float | None) -> Solution:
        """The certified solve of the model over the edge matrix U (:meth:`_model`)."""
        method, side = MODELS[self.model]
        solution = self._model(U, nu).solve(method=method, side=side, tol=TOL)
        _require_certified(solution, self.model)
        return solution

    @property
    def stages_(self) -> Stages:
        """The stages of the staged predictions (module docstring): the kept members added by decreasing
        weight, stage k the k heaviest with their weights renormalised
        (:class:`~dualboost.boosting.core.result.Stages`, one entry per stage)."""
        check_is_fitted(self)
        weights = self.estimator_weights_
        recorder, total = StageRecorder(), 0.0
        for q in np.argsort(-weights, kind="stable"):
            total += float(weights[q])
            recorder.step(float(weights[q]) / total, int(q), weights.size)
        return recorder.finish(weights)

    # the staged predictions of the boosting classifiers, over the stages above
    staged_decision_function = BoostingClassifier.staged_decision_function
    staged_predict = BoostingClassifier.staged_predict
    staged_predict_proba = BoostingClassifier.staged_predict_proba
    staged_score = BoostingClassifier.staged_score

    def _scores(self, edges: _Edges, labels: NDArray) -> ScorePath:
        """``nu="auto"``'s validation scores: one solve over the edges of the training rows (their pairs
        for K > 2 classes) per grid nu, the accuracy of its vote on the held-out rows as :meth:`predict`
        would vote (w normalised as ``estimator_weights_``; a tie predicts the training rows' majority)."""

        def scores(train, test, grid):
            prior = class_prior(labels[train])
            rows = edges.rows_of(train)
            for fraction in grid:
                w = self._solve(edges.U[rows], nu_count(float(fraction), int(rows.sum()))).w
                total = float(w.sum())
                f = edges.decision(w / total if total > 0 else w, test)
                yield validation_score(f, labels[test], None, prior)

        return scores

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """``f(X) = sum_q w_q h_q(X)`` in [-1, 1] over the kept members (positive: ``classes_[1]``;
        ties within 1e-9 of 0 are 0, :func:`~dualboost.boosting.core.result.combined_decision`); for
        K > 2 classes the votes ``F_c(X) = sum_q w_q [h_q(X) = c]`` (N x K)."""
        check_is_fitted(self)
        X = validate_features(self, X, reset=False)
        if len(self.classes_) > 2:
            return class_votes(self.estimator_weights_, self.hypotheses_, X, len(self.classes_))
        return combined_decision(self.estimator_weights_, self.hypotheses_, X)

    def predict(self, X: ArrayLike) -> NDArray:
        """``classes_[1]`` where the decision function is > 0, ``classes_[0]`` where it is < 0, and at a tie
        f = 0 the training majority (:func:`~dualboost.estimators.ties.classes_by_sign`); for K > 2
        classes the largest vote (:func:`~dualboost.estimators.ties.predicted_classes`)."""
        f = self.decision_function(X)
        return predicted_classes(f, self.classes_, getattr(self, "class_prior_", None))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        tags.input_tags.sparse = True
        return tags


class _Edges:
    """The edge matrix of the members' ``outputs`` (N x Q: values in [-1, 1], or for K > 2 classes the
    class index each member predicts) on the labels: ``U[n, q] = y_n h_q(x_n)``, or over the
    (example, wrong class) pairs ``[h_q(x_n) = y_n] - [h_q(x_n) = k]``
    (:class:`~dualboost.oracles.multiclass.PairCoding`); a member votes nowhere on the rows of ``seen``
    (its bootstrap rows: the out-of-bag edges, module docstring)."""

    def __init__(self, outputs: NDArray, labels: NDArray, n_classes: int, seen: NDArray | None) -> None:
        self.outputs, self.labels, self.n_classes = outputs, labels, n_classes
        self.voting = np.ones(outputs.shape, dtype=bool) if seen is None else ~seen
        if n_classes > 2:
            self.coding = PairCoding(labels, n_classes)
            columns = [self.coding.column(outputs[:, q].astype(np.intp)) for q in range(outputs.shape[1])]
            self.rows = self.coding.rows
            self.U = np.where(self.voting[self.rows], np.column_stack(columns), 0.0)
        else:
            self.rows = np.arange(labels.size)
            self.U = labels[:, None] * np.where(self.voting, outputs, 0.0)

    def rows_of(self, examples: NDArray[np.intp]) -> NDArray[np.bool_]:
        """The rows of U that belong to the ``examples``."""
        return np.isin(self.rows, examples)

    def votes(self, w: NDArray[np.float64], examples: NDArray[np.intp] | slice = slice(None)) -> NDArray:
        """The N x K votes of the members weighted by ``w`` on the ``examples`` (K > 2 classes)."""
        outputs, voting = self.outputs[examples], self.voting[examples]
        F = np.zeros((outputs.shape[0], self.n_classes))
        rows = np.arange(outputs.shape[0])
        for q in np.flatnonzero(w):
            np.add.at(F, (rows[voting[:, q]], outputs[voting[:, q], q].astype(np.intp)), w[q])
        return F

    def decision(self, w: NDArray[np.float64], examples: NDArray[np.intp]) -> NDArray:
        """The decision values of the weights ``w`` on the ``examples``: ``f = y (U w)`` per example,
        or the votes for K > 2 classes."""
        if self.n_classes > 2:
            return self.votes(w, examples)
        return self.labels[examples] * (self.U[examples] @ w)


def _in_bag(fitted: object, n_rows: int, oob: bool | str) -> NDArray[np.bool_] | None:
    """The N x Q mask of the rows in each tree's bootstrap sample, for the out-of-bag edge matrix of a
    bagged forest (module docstring), or None (``oob=False``, not a bagged forest, or, with ``"auto"``,
    X of another size than the forest's training set); ``oob=True`` without them is a ValueError."""
    from sklearn.frozen import FrozenEstimator

    if oob is False:
        return None
    forest = fitted.estimator if isinstance(fitted, FrozenEstimator) else fitted
    bagged = _forest_like(forest) == "forest" and bool(getattr(forest, "bootstrap", False))
    n_trained = getattr(forest, "_n_samples", None)
    if not bagged or n_trained != n_rows:
        if oob is True:
            raise ValueError(
                "oob=True needs a fitted bagged forest (RandomForestClassifier or ExtraTreesClassifier with "
                f"bootstrap=True) re-weighted on its {n_trained} training rows; got {type(forest).__name__} "
                f"and {n_rows} rows"
            )
        return None
    seen = np.zeros((n_rows, len(forest.estimators_)), dtype=bool)
    for q, rows in enumerate(forest.estimators_samples_):
        seen[rows, q] = True
    return seen


def _require_certified(solution: Solution, model: str) -> None:
    if solution.status != "optimal" or solution.w is None:
        raise RuntimeError(
            f"reweight: the {model} solve over the members was not certified (status {solution.status!r}, "
            f"gap {solution.gap:.3g}, method {solution.method!r}): {solution.message}"
        )


def reweight(
    fitted: object,
    X: ArrayLike,
    y: ArrayLike,
    model: str = "lpboost",
    nu: float | str = "auto",
    **options,
) -> ReweightedClassifier:
    """Re-weight the members of a fitted ensemble on (X, y) by one certified solve of ``model`` (one of
    :data:`MODELS`, module docstring) at the capping ``nu`` (a fraction of N, or ``"auto"``: chosen by
    validation, module docstring; for the models with a capping): the fitted
    :class:`ReweightedClassifier` (``options``: its ``eps``, ``eta``, ``output``, ``oob``, ``D``, ``C``,
    ``lam``, ``tau``).

    Parameters
    ----------
    fitted : estimator or list of estimators
        The fitted ensemble (:class:`ReweightedClassifier`'s ``ensemble``).
    X : array_like, shape (N, p)
        The re-weighting data.
    y : array_like, shape (N,)
        Its labels.
    model : str, default "lpboost"
        One of :data:`MODELS`.
    nu : float or "auto", default "auto"
        The capping, for the models with one.
    **options
        :class:`ReweightedClassifier`'s ``eps``, ``eta``, ``output``, ``oob``, ``D``, ``C``, ``lam``,
        ``tau``.

    Returns
    -------
    ReweightedClassifier
        Fitted.
    """
    return ReweightedClassifier(fitted, model=model, nu=nu, **options).fit(X, y)
