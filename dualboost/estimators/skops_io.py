"""The scikit-learn members of a model file, through skops, read so that a file runs no code of its own
(:mod:`dualboost.estimators.persistence`, docs/boosting.md#7-choosing-nu-re-weighting-a-forest-model-files).

skops (the ``models`` extra) writes an object as a zip holding ``schema.json``, a tree of nodes each
naming a type (``__module__`` and ``__class__``) and how it is rebuilt (``__loader__``), and ``.npy``
arrays. Rebuilding imports every named type and calls it (``ConstructorFromReduceNode``: ``type(*args)``,
``ObjectNode``: ``type.__new__`` and ``__setstate__``, ``DictNode``: ``type()`` and each key type on
its key, ...). A name that is not a harmless type -- ``builtins.eval``, ``numpy.save``, ``os.system``,
``operator.methodcaller``, ``functools.partial`` -- runs what the file says, so :func:`read_member`
first walks the whole tree (:func:`named_types`) and refuses, with a ValueError and before anything is
imported or constructed:

* a node of a kind (``__loader__``) outside :data:`SKOPS_NODE_KINDS` (methods, ``operator``
  functions, ``functools.partial``, ...);
* a name outside :data:`SKOPS_TRUSTED_TYPES` and the caller's ``trusted``: exact names, every one a
  class (no function, no module); skops's own list of types it trusts (every scikit-learn estimator,
  every numpy ufunc) is not used, nor is a module prefix;
* a member of more than ``budget`` bytes, or holding more, or an array of an object, string (beyond
  :data:`MAX_STRING_CHARS` characters) or structured dtype, or one whose ``.npy`` header declares more
  bytes than it holds.

skops's ``get_untrusted_types`` must agree (a second opinion: each type it reports must be allowed as
well). After rebuilding, every ``sklearn.tree._tree.Tree`` in the member is checked
(:func:`check_trees`): scikit-learn walks a tree's nodes in compiled code without bounds checks, so a
child or feature index out of range would read outside memory (skops does not trust trees by default
for that reason); a tree's nodes must form a tree (each child after its parent, leaves with no children)
and read features in ``[0, n_features)``.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterator

import numpy as np
from sklearn.base import BaseEstimator

from dualboost._archive import npy_header

__all__ = [
    "SKOPS_TRUSTED_TYPES",
    "SKOPS_NODE_KINDS",
    "MAX_STRING_CHARS",
    "skops",
    "dumps",
    "read_member",
    "named_types",
    "check_trees",
]

_SKOPS_MISSING = (
    "this model file holds scikit-learn members, stored with skops, which could not be imported ({error}); "
    "install the 'models' extra: pip install 'dualboost[models]'"
)
_SKOPS_BROKEN = (
    "this model file holds scikit-learn members, stored with skops, which is installed but does not import "
    "with this scikit-learn ({error}); upgrade it: pip install -U skops (the 'models' extra of dualboost)"
)

#: The exact types (``module.class``, as skops names them) that the skops data of a scikit-learn member
#: may name without the caller's ``trusted``: the containers and scalars skops writes, numpy's arrays,
#: scalar types and random states, and the scikit-learn classifiers (with their internal parts) whose
#: ``predict`` reads their fitted attributes through numpy -- checked index by index, or by
#: :func:`check_trees` for the trees. Derived from ``skops.io.get_untrusted_types`` and the schemas of
#: members fitted by ``SklearnOracle`` and re-weighted by ``reweight``: decision and extra trees, random
#: and extra-trees forests, bagging, AdaBoost, the trees of gradient boosting (as re-weighted members),
#: logistic regression, linear SVC, ridge, SGD and perceptron classifiers, Gaussian naive Bayes, dummy
#: classifiers. Every name is a class, none a function or a module.
#: Not listed, so refused unless given in ``trusted``: SVC (libsvm reads the support vectors by the
#: counts the file states), k-nearest neighbours (KD and ball trees hold raw indices), histogram and
#: classic gradient boosting as a member (their predictors index nodes and outputs in compiled code).
SKOPS_TRUSTED_TYPES: tuple[str, ...] = (
    "builtins.bool",
    "builtins.dict",
    "builtins.float",
    "builtins.int",
    "builtins.list",
    "builtins.str",
    "builtins.tuple",
    "numpy.ndarray",
    "numpy.dtype",
    "numpy.bool",
    "numpy.bool_",
    "numpy.float16",
    "numpy.float32",
    "numpy.float64",
    "numpy.longdouble",
    "numpy.int8",
    "numpy.int16",
    "numpy.int32",
    "numpy.int64",
    "numpy.longlong",
    "numpy.uint8",
    "numpy.uint16",
    "numpy.uint32",
    "numpy.uint64",
    "numpy.ulonglong",
    "numpy.str_",
    "numpy.random.mtrand.RandomState",
    "sklearn.tree._classes.DecisionTreeClassifier",
    "sklearn.tree._classes.DecisionTreeRegressor",
    "sklearn.tree._classes.ExtraTreeClassifier",
    "sklearn.tree._classes.ExtraTreeRegressor",
    "sklearn.tree._tree.Tree",
    "sklearn.ensemble._forest.RandomForestClassifier",
    "sklearn.ensemble._forest.ExtraTreesClassifier",
    "sklearn.ensemble._bagging.BaggingClassifier",
    "sklearn.ensemble._weight_boosting.AdaBoostClassifier",
    "sklearn.linear_model._logistic.LogisticRegression",
    "sklearn.linear_model._ridge.RidgeClassifier",
    "sklearn.linear_model._stochastic_gradient.SGDClassifier",
    "sklearn.linear_model._perceptron.Perceptron",
    "sklearn.linear_model._sgd_fast.Hinge",
    "sklearn.svm._classes.LinearSVC",
    "sklearn.naive_bayes.GaussianNB",
    "sklearn.dummy.DummyClassifier",
    "sklearn.preprocessing._label.LabelBinarizer",
    "sklearn.preprocessing._label.LabelEncoder",
)
#: The kinds of skops node (``__loader__``) a member may hold: each rebuilds the type it names by calling
#: it or its ``__new__``/``__setstate__`` with data of the file (or imports it: ``TypeNode``), so that a
#: harmless type gives a harmless object. Refused whatever ``trusted`` says: ``MethodNode`` (a bound
#: method by name), ``OperatorFuncNode`` (``operator.attrgetter``/``methodcaller``), ``PartialNode``
#: (``functools.partial``), ``FunctionNode``, ``ConstructorFromReduceNode``, ``DefaultDictNode``,
#: ``RandomGeneratorNode``, ``SparseMatrixNode`` (a nested archive), ``CachedNode`` and any other.
SKOPS_NODE_KINDS: tuple[str, ...] = (
    "ObjectNode",
    "DictNode",
    "ListNode",
    "TupleNode",
    "JsonNode",
    "NdArrayNode",
    "DTypeNode",
    "TypeNode",
    "TreeNode",
    "LossNode",
    "RandomStateNode",
)
#: the longest string (in characters) of a string array inside a member (labels, feature names)
MAX_STRING_CHARS = 4096
#: the largest ``schema.json`` of a member read, in bytes
_MAX_SCHEMA_BYTES = 1 << 26
#: what reading a damaged skops zip raises (RecursionError: a schema nested too deeply for json)
_READ_ERRORS = (
    zipfile.BadZipFile,
    KeyError,
    ValueError,
    EOFError,
    OSError,
    RuntimeError,
    NotImplementedError,
    SyntaxError,
)


def skops():
    """``skops.io``, or an ImportError naming the ``models`` extra."""
    try:
        import skops.io as sio
    except ModuleNotFoundError as exc:  # absent
        raise ImportError(_SKOPS_MISSING.format(error=exc)) from exc
    except ImportError as exc:  # installed, but it does not import with this scikit-learn
        raise ImportError(_SKOPS_BROKEN.format(error=exc)) from exc
    return sio


def dumps(estimator: BaseEstimator) -> bytes:
    """The skops bytes of a fitted scikit-learn ``estimator``.

    Parameters
    ----------
    estimator : BaseEstimator
        A fitted scikit-learn estimator.

    Returns
    -------
    bytes
        Its skops serialisation.
    """
    return skops().dumps(estimator)


def _nodes(value: object) -> Iterator[dict]:
    """Every node (a dict with a ``__loader__``) of a skops schema, nested ones included."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if "__loader__" in item:
                yield item
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def named_types(schema: object) -> tuple[set[str], set[str], list[str]]:
    """``(names, kinds, files)`` of a skops schema: every ``module.class`` its nodes name (a JSON
    value's node, which names ``builtins.str`` and is rebuilt by ``json.loads``, aside), every node kind
    (``__loader__``), and the array files its ``NdArrayNode`` read.

    Parameters
    ----------
    schema : object
        A skops schema (parsed JSON).

    Returns
    -------
    tuple
        ``(names, kinds, files)``.
    """
    names, kinds, files = set(), set(), []
    for node in _nodes(schema):
        kind = node["__loader__"]
        kinds.add(kind if isinstance(kind, str) else repr(kind))
        if kind == "JsonNode":
            continue
        module, name = node.get("__module__"), node.get("__class__")
        plain = isinstance(module, str) and isinstance(name, str)
        names.add(f"{module}.{name}" if plain else repr((module, name)))
        if kind == "NdArrayNode" and node.get("type") == "numpy":
            files.append(node.get("file"))
    return names, kinds, files


def read_member(
    data: bytes, trusted: tuple[str, ...], n_features: int, budget: int, where: str
) -> tuple[BaseEstimator, int]:
    """The scikit-learn member of the skops bytes ``data`` (module docstring), and the bytes that
    rebuilding it decompressed: ``trusted``, further exact type names allowed; ``n_features``, the
    model's feature count (its trees read features below it, its ``n_features_in_`` is it); ``budget``,
    the most bytes that rebuilding may decompress (its schema and each array read, as often as the
    schema reads it); ``where`` begins the messages. ValueError for anything refused, before anything
    is imported or rebuilt.

    Parameters
    ----------
    data : bytes
        The skops bytes.
    trusted : tuple of str
        Further exact type names allowed.
    n_features : int
        The model's feature count.
    budget : int
        The most bytes rebuilding may decompress.
    where : str
        The beginning of the error messages.

    Returns
    -------
    tuple
        ``(member, decompressed)``: the estimator and the bytes decompressed.
    """
    sio = skops()
    allowed = set(SKOPS_TRUSTED_TYPES) | set(trusted)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            declared = archive.getinfo("schema.json").file_size
            if declared > min(budget, _MAX_SCHEMA_BYTES):
                raise ValueError(f"its schema.json holds {declared} bytes")
            schema = json.loads(archive.read("schema.json"))
            names, kinds, files = named_types(schema)
            for name in files:
                declared += _check_npy(archive, name)
    except _READ_ERRORS as exc:
        raise ValueError(f"{where}: a scikit-learn member is not valid skops data ({exc})") from None
    if declared > budget:
        raise ValueError(
            f"{where}: a scikit-learn member would decompress to {declared} bytes, more than the {budget} "
            "left to read from this file"
        )
    unknown_kinds = sorted(kinds - set(SKOPS_NODE_KINDS))
    if unknown_kinds:
        raise ValueError(
            f"{where}: a scikit-learn member holds skops nodes of the kinds {unknown_kinds}, which a model "
            f"file does not trust (they call what the file names); it reads only {list(SKOPS_NODE_KINDS)}"
        )
    refused = sorted(names - allowed)
    if not refused:
        try:  # skops's own audit, as a second opinion
            refused = sorted(set(sio.get_untrusted_types(data=data)) - allowed)
        except Exception as exc:  # skops reads a zip of its own: any failure is a corrupt member
            raise ValueError(f"{where}: a scikit-learn member could not be read ({exc})") from None
    if refused:
        raise ValueError(
            f"{where}: a scikit-learn member names the types {refused}, which a model file does not trust "
            "(dualboost.estimators.persistence.SKOPS_TRUSTED_TYPES); pass their exact names in "
            "trusted=[...] (--trust TYPE) only if you trust the file"
        )
    try:
        member = sio.loads(data, trusted=sorted(allowed))
    except Exception as exc:
        raise ValueError(f"{where}: a scikit-learn member could not be read ({exc})") from None
    if getattr(member, "n_features_in_", n_features) != n_features:
        raise ValueError(
            f"{where}: a scikit-learn member was fitted on {member.n_features_in_} features, the model on "
            f"{n_features}"
        )
    check_trees(member, n_features, where)
    return member, declared


def _check_npy(archive: zipfile.ZipFile, name: object) -> int:
    """The size of the ``.npy`` file ``name`` of a skops zip, once it is known to be a numeric, boolean or
    short-string array, or the nodes of a tree, whose header declares the bytes it holds (ValueError
    otherwise)."""
    if not isinstance(name, str) or not name.endswith(".npy"):
        raise ValueError(f"an array file is named {name!r}")
    from sklearn.tree._tree import NODE_DTYPE  # the nodes of a tree: a record of numbers

    info = archive.getinfo(name)
    with archive.open(info) as handle:
        npy_header(handle, info.file_size, name, "biufcU", 4 * MAX_STRING_CHARS, records=(NODE_DTYPE,))
    return info.file_size


def check_trees(member: object, n_features: int, where: str) -> None:
    """ValueError unless every ``sklearn.tree._tree.Tree`` reachable from ``member`` (its attributes,
    lists, tuples, dicts and object arrays, nested) is a tree over at most ``n_features`` features
    (module docstring), and every estimator holding one (``tree_``) has its ``n_features_in_``.

    Parameters
    ----------
    member : object
        A rebuilt scikit-learn member.
    n_features : int
        The model's feature count.
    where : str
        The beginning of the error messages.
    """
    from sklearn.tree._tree import Tree

    seen: set[int] = set()
    stack = [member]
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, Tree):
            _check_tree(item, n_features, where)
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, np.ndarray) and item.dtype.hasobject:
            stack.extend(item.ravel().tolist())
        elif hasattr(item, "__dict__") and type(item).__module__.startswith("sklearn."):
            tree = getattr(item, "tree_", None)
            if isinstance(tree, Tree) and getattr(item, "n_features_in_", tree.n_features) != tree.n_features:
                raise ValueError(
                    f"{where}: a scikit-learn tree reads {tree.n_features} features, its estimator "
                    f"{getattr(item, 'n_features_in_', None)}"
                )
            stack.extend(vars(item).values())


def _check_tree(tree: object, n_features: int, where: str) -> None:
    count, capacity = int(tree.node_count), int(tree.capacity)
    if not 1 <= count <= capacity:
        raise ValueError(f"{where}: a scikit-learn tree has {count} nodes of {capacity} stored")
    nodes = tree.__getstate__()["nodes"]  # the first node_count nodes (a view of the stored ones)
    left, right = nodes["left_child"].astype(np.int64), nodes["right_child"].astype(np.int64)
    feature, index = nodes["feature"].astype(np.int64), np.arange(count)
    leaf = left == -1
    inner = ~leaf
    limit = min(int(tree.n_features), int(n_features))
    bad = (
        np.any(leaf != (right == -1))
        or np.any(left[inner] <= index[inner])
        or np.any(right[inner] <= index[inner])
        or np.any(np.maximum(left, right)[inner] >= count)
        or np.any(feature[inner] < 0)
        or np.any(feature[inner] >= limit)
        or np.any(np.isnan(nodes["threshold"][inner]))
    )
    if bad:
        raise ValueError(
            f"{where}: a scikit-learn tree is malformed (its nodes must form a tree, each child after its "
            f"parent, reading features in [0, {limit}) at thresholds that are numbers)"
        )
