"""Model files from anyone: loading one runs no code of the file, allocates no more
than the file's header declares within a global cap, and checks every value a prediction uses.

1. Crafted skops members (the scikit-learn members of a model file) that would run code -- through
   ``builtins.eval``/``exec``/``open``/``__import__``/``getattr``, ``numpy.save``, ``numpy.load`` of a
   pickle, ``os.system``, ``operator.methodcaller``, ``functools.partial``, a method node, a dict's key
   type, a type skops itself trusts (a ``FunctionTransformer``) -- at the top of a member, nested in a
   legitimate tree's attributes, under ``params["oracle"]`` or under an extra fitted attribute: each is
   a ValueError, and the file the payload would create does not exist. A tree whose nodes point outside
   it is refused before it predicts. The allow-list names classes only.
2. Small files that would allocate gigabytes (an unreferenced member of zeros, a string dtype of huge
   itemsize, a huge header member, a zip bomb in a referenced array or in a member's skops data): a
   ValueError, quickly and with little memory (tracemalloc's peak), the files built member by member
   so that they stay small.
3. Every field of a real header changed to values of other types or out of range: a ValueError, never
   a TypeError, KeyError or IndexError, and never a model that predicts with a NaN, an inf, a sign
   outside {-1, +1} or a feature index out of range.
"""

from __future__ import annotations

import copy
import io
import json
import sys
import time
import tracemalloc
import zipfile
import zlib

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.ensemble import (
    AdaBoostClassifier,
    BaggingClassifier,
    ExtraTreesClassifier,
    GradientBoostingClassifier,
    RandomForestClassifier,
)
from sklearn.linear_model import LogisticRegression, RidgeClassifier, SGDClassifier
from sklearn.naive_bayes import GaussianNB
from sklearn.svm import SVC, LinearSVC
from sklearn.tree import DecisionTreeClassifier, ExtraTreeClassifier

from dualboost.estimators import (
    ERLPBoostClassifier,
    MABoostClassifier,
    ReweightedClassifier,
    SoftBoostClassifier,
    load,
    persistence,
    reweight,
    save,
)

sio = pytest.importorskip("skops.io")
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=120, n_features=5, n_informative=3, flip_y=0.05, random_state=3)
    return X, y


# --- writing crafted files --------------------------------------------------------------------------
def _members(path) -> tuple[dict, dict[str, bytes]]:
    """The header (JSON) and the raw ``.npy`` bytes of every other member of a model file."""
    with zipfile.ZipFile(path) as archive:
        raw = {name[:-4]: archive.read(name) for name in archive.namelist()}
    header = json.loads(np.load(io.BytesIO(raw.pop("header"))).tobytes())
    return header, raw


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def _write(path, header: dict, raw: dict[str, bytes], compress: bool = True) -> None:
    """A model file of ``header`` and the ``.npy`` members ``raw``, written member by member."""
    payload = _npy(np.frombuffer(json.dumps(header).encode(), dtype=np.uint8))
    kind = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(path, "w", compression=kind) as archive:
        archive.writestr("header.npy", payload)
        for name, content in raw.items():
            archive.writestr(f"{name}.npy", content)


def _node(loader: str, module: str, name: str, **rest) -> dict:
    """A skops node of the kind ``loader`` naming ``module.name``."""
    return {"__class__": name, "__module__": module, "__loader__": loader, **rest}


def _json(value) -> dict:
    return _node("JsonNode", "builtins", "str", content=json.dumps(value), is_json=True)


def _tuple(*items) -> dict:
    return _node("TupleNode", "builtins", "tuple", content=list(items))


def _dict(content: dict, key_type: str = "str") -> dict:
    keys = [_node("TypeNode", "builtins", key_type) for _ in content]
    key_types = _node("ListNode", "builtins", "list", content=keys)
    return _node("DictNode", "builtins", "dict", content=content, key_types=key_types)


def _call(module: str, name: str, *args) -> dict:
    """A skops node that rebuilds itself as ``module.name(*args)`` (``ConstructorFromReduceNode``)."""
    return _node("ConstructorFromReduceNode", module, name, content=_tuple(*map(_json, args)))


def _skops(schema: dict, files: dict[str, bytes] | None = None) -> bytes:
    """skops bytes whose ``schema.json`` is ``schema`` (the protocol of the installed skops added)."""
    from skops.io._protocol import PROTOCOL

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("schema.json", json.dumps({**schema, "protocol": PROTOCOL, "_skops_version": "0"}))
        for name, content in (files or {}).items():
            archive.writestr(name, content)
    return buffer.getvalue()


def _nested_in_tree(member: bytes, node: dict) -> bytes:
    """The skops bytes of a real tree ``member`` with ``node`` added to its attributes (``evil``)."""
    with zipfile.ZipFile(io.BytesIO(member)) as archive:
        files = {name: archive.read(name) for name in archive.namelist() if name != "schema.json"}
        schema = json.loads(archive.read("schema.json"))
    attrs = schema["content"]
    attrs["content"]["evil"] = node
    attrs["key_types"]["content"].append(_node("TypeNode", "builtins", "str"))
    return _skops(schema, files)


@pytest.fixture(scope="module")
def tree_model(tmp_path_factory, data):
    """A model file with a decision-tree member (and a tree as ``params["oracle"]``)."""
    X, y = data
    fitted = ERLPBoostClassifier(oracle=DecisionTreeClassifier(max_depth=2), eps=0.1).fit(X, y)
    return save(fitted, tmp_path_factory.mktemp("tree") / "model")


def _member_key(header: dict) -> str:
    return header["attributes"]["hypotheses_"]["hypotheses"][0]["estimator"]["skops"]


# --- 1. no code execution ---------------------------------------------------------------------------
def _payloads(sentinel, tmp_path) -> dict[str, dict]:
    """skops nodes that, rebuilt, would create the file ``sentinel`` (or import a planted module)."""
    target = str(sentinel)
    code = f"__import__('pathlib').Path({target!r}).touch()"
    pickled = tmp_path / "payload.npy"
    with open(pickled, "wb") as handle:  # an object array: numpy.load(..., allow_pickle=True) unpickles it
        np.save(handle, np.array([_Touch(target)], dtype=object), allow_pickle=True)
    return {
        "builtins.eval": _call("builtins", "eval", code),
        "builtins.exec": _call("builtins", "exec", code),
        "builtins.open": _call("builtins", "open", target, "w"),
        "builtins.__import__": _call("builtins", "__import__", "dualboost_probe_module"),
        "builtins.getattr": _call("builtins", "getattr", "x", "upper"),
        "numpy.save": _call("numpy", "save", target, [1, 2, 3]),
        "numpy.load-pickle": _call("numpy", "load", str(pickled), None, True),
        "os.system": _call("os", "system", f"touch {target}"),
        "operator.methodcaller": _node("OperatorFuncNode", "operator", "methodcaller", attrs=_tuple()),
        "functools.partial": _node(
            "PartialNode",
            "functools",
            "partial",
            content={
                "func": _node("FunctionNode", "builtins", "exec"),
                "args": _tuple(_json(code)),
                "kwds": _dict({}),
                "namespace": _json(None),
            },
        ),
        "dict-key-type-eval": _dict({code: _json(1)}, key_type="eval"),
        "method-node": _node(
            "MethodNode",
            *TREE,
            content={"func": "fit", "obj": _node("ObjectNode", *TREE)},
        ),
        "function-transformer": _node(  # a type skops trusts by default, holding a function
            "ObjectNode",
            "sklearn.preprocessing._function_transformer",
            "FunctionTransformer",
            content=_dict({"func": _node("FunctionNode", "builtins", "eval")}),
        ),
        "type-os.system": _node("TypeNode", "os", "system"),
        "object-subprocess.Popen": _node("ObjectNode", "subprocess", "Popen"),
    }


#: the module and class of a decision tree, as skops names them
TREE = ("sklearn.tree._classes", "DecisionTreeClassifier")


class _Touch:
    """Unpickling creates the file ``path``."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self):
        return (eval, (f"__import__('pathlib').Path({self.path!r}).touch()",))


PAYLOADS = [
    "builtins.eval",
    "builtins.exec",
    "builtins.open",
    "builtins.__import__",
    "builtins.getattr",
    "numpy.save",
    "numpy.load-pickle",
    "os.system",
    "operator.methodcaller",
    "functools.partial",
    "dict-key-type-eval",
    "method-node",
    "function-transformer",
    "type-os.system",
    "object-subprocess.Popen",
]


@pytest.fixture()
def planted(tmp_path, monkeypatch):
    """A module ``dualboost_probe_module`` on sys.path whose import creates the sentinel file."""
    sentinel = tmp_path / "pwned.npy"  # numpy.save adds the suffix .npy to a name without it
    code = f"import pathlib\npathlib.Path({str(sentinel)!r}).touch()\n"
    (tmp_path / "dualboost_probe_module.py").write_text(code)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "dualboost_probe_module", raising=False)
    return sentinel


@pytest.mark.parametrize("where", ["member", "nested-in-tree", "oracle-param"])
@pytest.mark.parametrize("payload", PAYLOADS)
def test_crafted_members_run_no_code(tmp_path, tree_model, planted, payload, where):
    node = _payloads(planted, tmp_path)[payload]
    header, raw = _members(tree_model)
    if where == "oracle-param":
        key = header["params"]["oracle"]["estimator"]["skops"]
        raw[key] = _npy(np.frombuffer(_skops(node), dtype=np.uint8))
    elif where == "member":
        raw[_member_key(header)] = _npy(np.frombuffer(_skops(node), dtype=np.uint8))
    else:
        member = np.load(io.BytesIO(raw[_member_key(header)])).tobytes()
        raw[_member_key(header)] = _npy(np.frombuffer(_nested_in_tree(member, node), dtype=np.uint8))
    crafted = tmp_path / "crafted"
    _write(crafted, header, raw)
    with pytest.raises(ValueError, match="crafted"):
        load(crafted)
    assert not planted.exists()
    assert "dualboost_probe_module" not in sys.modules


def test_an_extra_fitted_attribute_is_refused_before_its_member_is_read(tmp_path, tree_model, planted):
    header, raw = _members(tree_model)
    raw["evil"] = _npy(np.frombuffer(_skops(_payloads(planted, tmp_path)["builtins.eval"]), dtype=np.uint8))
    header["attributes"]["evil_"] = {"estimator": {"skops": "evil"}}
    _write(tmp_path / "crafted", header, raw)
    with pytest.raises(ValueError, match="evil_"):
        load(tmp_path / "crafted")
    assert not planted.exists()


LIVE = ["builtins.eval", "builtins.exec", "builtins.open", "numpy.save", "numpy.load-pickle", "os.system"]


@pytest.mark.parametrize("payload", LIVE)
def test_the_payloads_are_live(tmp_path, tree_model, planted, payload):
    """Each crafted member above is the real tree plus one node: trusting every type it names (skops's
    ``trusted=get_untrusted_types(...)``, what the former module-prefix rule let through) runs it."""
    from skops.io._audit import NODE_TYPE_MAPPING
    from skops.io._protocol import PROTOCOL

    if ("ConstructorFromReduceNode", PROTOCOL) not in NODE_TYPE_MAPPING:
        pytest.skip("this skops has no ConstructorFromReduceNode (an older one): the payloads cannot run")
    header, raw = _members(tree_model)
    member = np.load(io.BytesIO(raw[_member_key(header)])).tobytes()
    crafted = _nested_in_tree(member, _payloads(planted, tmp_path)[payload])
    try:
        sio.loads(crafted, trusted=sio.get_untrusted_types(data=crafted))
    except Exception:  # noqa: BLE001 - what the call returns does not matter, only that it ran
        pass
    assert planted.exists()


def test_trusted_types_are_exact_classes():
    """Every name of the allow-list is a class (no function such as builtins.eval, no module), and no
    name is a prefix of another type: the check is by equality."""
    import importlib

    for name in persistence.SKOPS_TRUSTED_TYPES:
        module, _, attribute = name.rpartition(".")
        try:
            obj = getattr(importlib.import_module(module), attribute)
        except (ImportError, AttributeError):
            continue  # a name of another numpy or scikit-learn version (numpy.bool_ / numpy.bool)
        assert isinstance(obj, type), name
    assert "builtins.eval" not in persistence.SKOPS_TRUSTED_TYPES
    assert not {"sklearn", "numpy", "scipy", "builtins"} & set(persistence.SKOPS_TRUSTED_TYPES)


MEMBERS = {
    "tree": lambda: DecisionTreeClassifier(max_depth=2),
    "extra-tree": lambda: ExtraTreeClassifier(max_depth=3, random_state=0),
    "logistic": lambda: LogisticRegression(),
    "linear-svc": lambda: LinearSVC(),
    "ridge": lambda: RidgeClassifier(),
    "sgd": lambda: SGDClassifier(random_state=0),
    "naive-bayes": lambda: GaussianNB(),
    "forest": lambda: RandomForestClassifier(3, max_depth=2, random_state=np.random.RandomState(1)),
    "bagging": lambda: BaggingClassifier(DecisionTreeClassifier(), n_estimators=3, max_features=0.6),
    "adaboost": lambda: AdaBoostClassifier(n_estimators=3, random_state=0),
}


@pytest.mark.parametrize("member", list(MEMBERS))
def test_the_members_users_save_load_without_trusted(tmp_path, data, member):
    X, y = data
    fitted = SoftBoostClassifier(oracle=MEMBERS[member](), eps=0.2, max_iter=4).fit(X, y)
    loaded = load(save(fitted, tmp_path / "m"))
    np.testing.assert_array_equal(loaded.decision_function(X), fitted.decision_function(X))


@pytest.mark.parametrize(
    "ensemble",
    [
        lambda: RandomForestClassifier(n_estimators=4, random_state=0),
        lambda: ExtraTreesClassifier(n_estimators=4, random_state=0),
        lambda: AdaBoostClassifier(n_estimators=4, random_state=0),
        lambda: GradientBoostingClassifier(n_estimators=4, random_state=0),
    ],
)
def test_reweighted_ensembles_load_without_trusted(tmp_path, data, ensemble):
    X, y = data
    fitted = reweight(ensemble().fit(X, y), X, y, nu=0.3)
    loaded = load(save(fitted, tmp_path / "r"))
    np.testing.assert_array_equal(loaded.decision_function(X), fitted.decision_function(X))


def test_types_off_the_list_need_trusted(tmp_path, data):
    """SVC is trusted by skops but not by a model file (libsvm indexes the support vectors by the counts
    in the file); given in ``trusted`` by its exact name, it loads."""
    X, y = data
    fitted = SoftBoostClassifier(oracle=SVC(), eps=0.2, max_iter=3).fit(X, y)
    path = save(fitted, tmp_path / "svc")
    with pytest.raises(ValueError, match=r"sklearn\.svm\._classes\.SVC"):
        load(path)
    with pytest.raises(ValueError, match="trusted"):
        load(path, trusted=["sklearn.svm"])  # a module is no type name
    loaded = load(path, trusted=["sklearn.svm._classes.SVC"])
    np.testing.assert_array_equal(loaded.decision_function(X), fitted.decision_function(X))


def _tampered_tree(tree_model, tmp_path, change) -> object:
    """The tree model with its member's tree nodes changed by ``change(nodes)``."""
    header, raw = _members(tree_model)
    member = np.load(io.BytesIO(raw[_member_key(header)])).tobytes()
    with zipfile.ZipFile(io.BytesIO(member)) as archive:
        files = {name: archive.read(name) for name in archive.namelist()}
    schema = json.loads(files.pop("schema.json"))
    tree = schema["content"]["content"]["tree_"]
    state = tree["content"]["content"]
    name = state["nodes"]["file"]
    nodes = np.load(io.BytesIO(files[name])).copy()
    change(nodes, state)
    files[name] = _npy(nodes)
    raw[_member_key(header)] = _npy(np.frombuffer(_skops(schema, files), dtype=np.uint8))
    _write(tmp_path / "tree", header, raw)
    return tmp_path / "tree"


def _set(field, value):
    def change(nodes, state):
        nodes[field][0] = value

    return change


@pytest.mark.parametrize(
    "change",
    [
        _set("left_child", 10**6),  # a child far outside the nodes
        _set("right_child", 0),  # a cycle: the root is its own child
        _set("feature", 10**6),  # a feature past X's columns
        _set("feature", -5),
        _set("threshold", np.nan),
        lambda nodes, state: state.update(node_count=_json(1)),  # the root's children beyond the count
    ],
)
def test_malformed_trees_are_refused_before_they_predict(tmp_path, tree_model, change):
    with pytest.raises(ValueError, match="tree"):
        load(_tampered_tree(tree_model, tmp_path, change))


# --- 2. bounded memory ------------------------------------------------------------------------------
def _npy_header(n_bytes: int) -> bytes:
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, dict(descr="|u1", fortran_order=False, shape=(n_bytes,)))
    return header.getvalue()


def _zeros_member(n_bytes: int) -> bytes:
    """A deflated ``.npy`` member of ``n_bytes`` zero bytes (a multiple of 1 MiB) in about n_bytes / 1000
    bytes: the deflate stream of one MiB of zeros after a full flush (which resets the dictionary) does
    not depend on what came before, so it is computed once and repeated."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    start = compressor.compress(_npy_header(n_bytes)) + compressor.flush(zlib.Z_FULL_FLUSH)
    block = compressor.compress(bytes(1 << 20)) + compressor.flush(zlib.Z_FULL_FLUSH)
    return start + block * (n_bytes >> 20) + compressor.flush()


def _npy_size(n_bytes: int) -> int:
    return len(_npy_header(n_bytes)) + n_bytes


def _write_raw_member(path, name: str, deflated: bytes, size: int, crc: int) -> None:
    """Append the already deflated member ``name`` of ``size`` bytes to the zip at ``path``."""
    with zipfile.ZipFile(path, "a") as archive:
        info = zipfile.ZipInfo(name)
        info.compress_type = zipfile.ZIP_DEFLATED
        info.file_size, info.compress_size, info.CRC = size, len(deflated), crc
        archive.fp.seek(archive.start_dir)
        info.header_offset = archive.fp.tell()
        archive.fp.write(info.FileHeader(zip64=size > zipfile.ZIP64_LIMIT))
        archive.fp.write(deflated)
        archive.filelist.append(info)
        archive.NameToInfo[name] = info
        archive.start_dir = archive.fp.tell()
        archive._didModify = True


def _bounded(call, limit_bytes: int = 64 << 20, limit_seconds: float = 10.0):
    """Run ``call``; return its exception, having checked it allocated at most ``limit_bytes`` (peak,
    tracemalloc) within ``limit_seconds``."""
    tracemalloc.start()
    start = time.perf_counter()
    try:
        call()
    except Exception as exc:  # noqa: BLE001 - the caller checks the type
        error = exc
    else:
        error = None
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peak < limit_bytes, f"{peak} bytes allocated"
    assert time.perf_counter() - start < limit_seconds
    return error


@pytest.fixture(scope="module")
def stump_model(tmp_path_factory, data):
    X, y = data
    return save(ERLPBoostClassifier(eps=0.1).fit(X, y), tmp_path_factory.mktemp("stumps") / "model")


GIB = 1 << 30


def _bomb_file(path, header: dict, raw: dict[str, bytes], name: str) -> None:
    """The model file of ``header`` and ``raw`` plus the member ``name``: 4 GiB of zeros in 4 MB (its
    CRC is not computed: nothing may read it to its end)."""
    _write(path, header, raw)
    _write_raw_member(path, f"{name}.npy", _zeros_member(4 * GIB), _npy_size(4 * GIB), 0)


def test_an_unreferenced_bomb_is_never_decompressed(tmp_path, stump_model, data):
    header, raw = _members(stump_model)
    _bomb_file(tmp_path / "bomb", header, raw, "unreferenced")
    assert (tmp_path / "bomb").stat().st_size < 8 << 20
    loaded = None

    def call():
        nonlocal loaded
        loaded = load(tmp_path / "bomb")

    assert _bounded(call) is None
    np.testing.assert_array_equal(loaded.predict(data[0]), load(stump_model).predict(data[0]))


def test_a_referenced_bomb_is_refused(tmp_path, stump_model):
    header, raw = _members(stump_model)
    key = header["attributes"]["estimator_weights_"]["array"]
    del raw[key]
    _bomb_file(tmp_path / "bomb", header, raw, key)
    error = _bounded(lambda: load(tmp_path / "bomb"))
    assert isinstance(error, ValueError) and "estimator_weights_" in str(error)


def test_a_huge_string_dtype_is_refused(tmp_path, stump_model):
    """A 2 KB header whose string array declares the dtype ``<U200000000`` (800 MB an entry)."""
    header, raw = _members(stump_model)
    header["attributes"]["classes_"] = {"strings": ["a", "b"], "dtype": "<U200000000"}
    _write(tmp_path / "strings", header, raw)
    error = _bounded(lambda: load(tmp_path / "strings"))
    assert isinstance(error, ValueError) and "dtype" in str(error)
    header, raw = _members(stump_model)
    # the same as an array member: a .npy header declaring <U200000000 over 16 bytes of data
    key = header["attributes"]["classes_"]["array"]
    npy = io.BytesIO()
    np.lib.format.write_array_header_1_0(npy, {"descr": "<U200000000", "fortran_order": False, "shape": (2,)})
    raw[key] = npy.getvalue() + bytes(16)
    _write(tmp_path / "strings2", header, raw)
    error = _bounded(lambda: load(tmp_path / "strings2"))
    assert isinstance(error, ValueError) and "classes_" in str(error)


def test_a_huge_header_is_refused(tmp_path, stump_model, monkeypatch):
    """A header member larger than MAX_HEADER_BYTES (lowered here so that the file stays small) is
    refused from its .npy header, before it is decompressed."""
    monkeypatch.setattr(persistence, "MAX_HEADER_BYTES", 1 << 20)
    header, raw = _members(stump_model)
    header["padding"] = "x" * (2 << 20)
    _write(tmp_path / "big", header, raw)
    error = _bounded(lambda: load(tmp_path / "big"), limit_bytes=1 << 20)
    assert isinstance(error, ValueError) and "header" in str(error)


def test_a_bomb_inside_a_members_skops_data_is_refused(tmp_path, tree_model, monkeypatch):
    """A tree member whose skops data holds an array of 1 GiB of zeros in 1 MB: refused from the
    declared sizes, before skops decompresses it."""
    header, raw = _members(tree_model)
    member = np.load(io.BytesIO(raw[_member_key(header)])).tobytes()
    with zipfile.ZipFile(io.BytesIO(member)) as archive:
        files = {name: archive.read(name) for name in archive.namelist()}
    schema = json.loads(files.pop("schema.json"))
    name = schema["content"]["content"]["tree_"]["content"]["content"]["values"]["file"]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("schema.json", json.dumps(schema))
        for other, content in files.items():
            if other != name:
                archive.writestr(other, content)
    crafted = tmp_path / "skops-bomb.zip"
    crafted.write_bytes(buffer.getvalue())
    _write_raw_member(crafted, name, _zeros_member(GIB), _npy_size(GIB), 0)
    raw[_member_key(header)] = _npy(np.frombuffer(crafted.read_bytes(), dtype=np.uint8))
    _write(tmp_path / "model", header, raw)
    error = _bounded(lambda: load(tmp_path / "model"))
    assert isinstance(error, ValueError)


# --- 3. values ------------------------------------------------------------------------------------
def _set_path(header: dict, path: tuple, value) -> None:
    target = header
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value


def _fields(stump_header: dict, kernel_header: dict, forest_header: dict) -> list[tuple[str, tuple]]:
    h = ("attributes", "hypotheses_", "hypotheses", 0)
    stump = [("stumps", h + ("fields", f)) for f in ("n_features", "feature", "threshold", "sign")]
    kernel = [("kernel", h + ("fields", f)) for f in ("index", "scale", "sign", "support")]
    kernel += [("kernel", h + ("fields", "support", key)) for key in ("indices", "data")]
    member = [("forest", h + ("fields", f)) for f in ("n_features", "index", "kind", "column", "scale")]
    a = ("attributes",)
    common = [
        a + ("n_features_in_", "json"),
        a + ("classes_",),
        a + ("hypotheses_",),
        a + ("hypotheses_", "hypotheses"),
        h,
        h + ("class",),
        h + ("fields",),
        a + ("estimator_weights_",),
        a + ("estimator_weights_", "array"),
        a + ("link_slope_", "json"),
        a + ("n_iter_", "json"),
        a + ("nu_", "json"),
        a + ("converged_", "json"),
        a + ("history_",),
        a + ("history_", "criterion"),
        a + ("history_", "threshold"),
        a + ("history_", "history"),
        a + ("stages_",),
        a + ("stages_", "stages", "indptr"),
        a + ("stages_", "stages", "scale"),
        a,
        ("params",),
        ("params", "eps"),
        ("params", "eps", "json"),
        ("class",),
        ("skipped",),
    ]
    return stump + [("stumps", path) for path in common] + kernel + member + [
        ("forest", ("attributes", "support_", "array")), ("forest", ("attributes", "n_members_", "json")),
        ("forest", ("attributes", "solution_")), ("forest", ("attributes", "solution_", "solution", "gap")),
    ]


BAD_VALUES = [None, "x", 1.5, -1, 0, 10**30, float("nan"), float("inf"), True, [], [1, 2], {}, {"json": 1}]


@pytest.fixture(scope="module")
def headers(tmp_path_factory, data):
    X, y = data
    where = tmp_path_factory.mktemp("fuzz")
    models = {
        "stumps": ERLPBoostClassifier(eps=0.1).fit(X, y),
        "kernel": SoftBoostClassifier(oracle="svm", eps=0.2, max_iter=3).fit(X, y),
        "forest": reweight(RandomForestClassifier(3, max_depth=2, random_state=0).fit(X, y), X, y),
    }
    return {name: _members(save(model, where / name)) for name, model in models.items()}


def _predicts_sanely(model, X) -> None:
    """A loaded model predicts finite values in [-1, 1] and one of its two classes for every row."""
    f = model.decision_function(X)
    assert np.all(np.isfinite(f)) and np.all(np.abs(f) <= 1 + 1e-12)
    assert set(model.predict(X)) <= set(model.classes_.tolist())


def test_malformed_headers_raise_value_error_only(tmp_path, headers, data):
    """Every listed field of three real headers (stumps, kernel columns, a re-weighted forest) set to each
    of BAD_VALUES, or removed: the load raises ValueError, or (where the value is a legal one, e.g. a
    sign of -1) gives a model that predicts sanely."""
    X, _ = data
    paths = _fields(*(headers[k][0] for k in ("stumps", "kernel", "forest")))
    tried, refused, escaped = 0, 0, []
    for model, path in paths:
        for value in [*BAD_VALUES, "__remove__"]:
            header, raw = copy.deepcopy(headers[model][0]), headers[model][1]
            try:
                if value == "__remove__":
                    target = header
                    for key in path[:-1]:
                        target = target[key]
                    del target[path[-1]]
                else:
                    _set_path(header, path, value)
            except (KeyError, IndexError, TypeError):
                continue
            _write(tmp_path / "fuzzed", header, raw)
            tried += 1
            try:
                loaded = load(tmp_path / "fuzzed")
            except ValueError:
                refused += 1
                continue
            except Exception as exc:  # noqa: BLE001 - collected, to show every case at once
                escaped.append(f"{model} {path} = {value!r}: {type(exc).__name__}: {exc}")
                continue
            _predicts_sanely(loaded, X)
    assert not escaped, "\n".join(escaped)
    assert tried > 500 and refused > 0.8 * tried, (tried, refused)


@pytest.mark.parametrize(
    "path, value, match",
    [
        (("attributes", "hypotheses_", "hypotheses", 0, "fields", "threshold"), float("nan"), "threshold"),
        (("attributes", "hypotheses_", "hypotheses", 0, "fields", "threshold"), float("inf"), "threshold"),
        (("attributes", "hypotheses_", "hypotheses", 0, "fields", "sign"), 2, "sign"),
        (("attributes", "hypotheses_", "hypotheses", 0, "fields", "sign"), float("nan"), "sign"),
        (("attributes", "hypotheses_", "hypotheses", 0, "fields", "feature"), "2", "feature"),
        (("attributes", "hypotheses_", "hypotheses", 0, "fields", "feature"), 5, "feature"),
        (("attributes", "hypotheses_", "hypotheses", 0, "fields", "feature"), -1, "feature"),
        (("attributes", "hypotheses_", "hypotheses", 0, "fields", "n_features"), 9, "features"),
        (("attributes", "n_features_in_", "json"), 0, "n_features_in_"),
        (("attributes", "n_features_in_", "json"), "5", "n_features_in_"),
        (("attributes", "link_slope_", "json"), float("nan"), "link_slope_"),
        (("attributes", "classes_"), {"strings": ["a", "a"], "dtype": "<U1"}, "two or more distinct labels"),
        (("attributes", "__dict__"), {"json": {}}, "__dict__"),
        (("attributes", "predict"), {"json": 1}, "predict"),
        (("attributes", "fit_"), {"json": 1}, "fit_"),
        (("attributes", "hypotheses_"), {"hypotheses": {"class": "Stump"}}, "list"),
        (("attributes", "stop_reason_", "json"), "anything", "stop_reason_"),
        (("attributes", "class_prior_"), {"json": [0.5, 0.5]}, "class_prior_"),
    ],
)
def test_values_a_prediction_uses_are_checked(tmp_path, headers, path, value, match):
    header, raw = copy.deepcopy(headers["stumps"][0]), headers["stumps"][1]
    _set_path(header, path, value)
    _write(tmp_path / "changed", header, raw)
    with pytest.raises(ValueError, match=match):
        load(tmp_path / "changed")


@pytest.mark.parametrize("value", [np.nan, np.inf, -0.5])
def test_weights_must_be_finite_and_in_the_simplex(tmp_path, headers, value):
    header, raw = copy.deepcopy(headers["stumps"][0]), dict(headers["stumps"][1])
    key = header["attributes"]["estimator_weights_"]["array"]
    weights = np.load(io.BytesIO(raw[key])).copy()
    weights[0] = value
    raw[key] = _npy(weights)
    _write(tmp_path / "weights", header, raw)
    with pytest.raises(ValueError, match="estimator_weights_"):
        load(tmp_path / "weights")


def test_other_estimators_attributes_are_not_written(tmp_path, data):
    """An attribute that is not a known fitted attribute of the class is listed in ``skipped``, not
    written (so that every file a save writes loads)."""
    X, y = data
    fitted = MABoostClassifier(max_iter=3).fit(X, y)
    fitted.my_note_ = 3
    header, _ = _members(save(fitted, tmp_path / "m"))
    assert "my_note_" not in header["attributes"] and "my_note_" in header["skipped"]
    assert isinstance(load(tmp_path / "m"), MABoostClassifier)
    assert ReweightedClassifier  # (the re-weighted attributes: the forest fixture of the fuzz)


# --- checkpoints: the same reader ---------------------------------------------------------------------
@pytest.fixture()
def checkpoint(tmp_path, data):
    """A checkpoint of a finished stump run (4 iterations), and how to resume from it."""
    from dualboost.boosting import boost
    from dualboost.oracles import DecisionStumps

    X, y = data
    path = tmp_path / "run.ckpt"
    boost("erlpboost", DecisionStumps().fit(X, y), nu=10.0, eps=0.05, max_iter=4, checkpoint=path,
          checkpoint_every=2)  # fmt: skip

    def resume():
        return boost("erlpboost", DecisionStumps().fit(X, y), nu=10.0, eps=0.05, max_iter=4, checkpoint=path,
                     checkpoint_every=2, resume=True)  # fmt: skip

    return path, resume


def test_a_checkpoint_bomb_is_refused(checkpoint):
    """A checkpoint with a member of 4 GiB of zeros in 4 MB (np.savez stores its members: nothing of a
    checkpoint decompresses beyond 16 times the file's size)."""
    path, resume = checkpoint
    _write_raw_member(path, "state.extra.npy", _zeros_member(4 * GIB), _npy_size(4 * GIB), 0)
    error = _bounded(resume)
    assert isinstance(error, ValueError) and "state.extra" in str(error), error


def test_a_checkpoint_string_dtype_is_refused(checkpoint):
    path, resume = checkpoint
    npy = io.BytesIO()
    np.lib.format.write_array_header_1_0(npy, {"descr": "<U200000000", "fortran_order": False, "shape": (2,)})
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("state.names.npy", npy.getvalue() + bytes(16))
    error = _bounded(resume)
    assert isinstance(error, ValueError) and "state.names" in str(error), error


@pytest.mark.parametrize(
    "field, value",
    [("threshold", float("nan")), ("sign", 3), ("feature", "1"), ("feature", 99), ("n_features", [])],
)
def test_a_checkpoints_hypotheses_are_checked(checkpoint, field, value):
    path, resume = checkpoint
    with np.load(path) as archive:
        arrays = {name: archive[name] for name in archive.files}
    header = json.loads(arrays["header"].tobytes())
    stump = next(h for h in header["hypotheses"] if h["class"] == "Stump")
    stump["fields"][field] = value
    arrays["header"] = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)
    with open(path, "wb") as handle:
        np.savez(handle, **arrays)
    with pytest.raises(ValueError, match=field):
        resume()


@pytest.mark.parametrize("payload", ["builtins.eval", "numpy.save", "numpy.load-pickle"])
def test_dualboost_predict_runs_no_code(tmp_path, tree_model, planted, data, capsys, payload):
    """``dualboost predict MODEL DATA`` on a crafted model: exit status 1 and the reason, nothing run."""
    from sklearn.datasets import dump_svmlight_file

    from dualboost.cli import main

    header, raw = _members(tree_model)
    member = np.load(io.BytesIO(raw[_member_key(header)])).tobytes()
    crafted = _nested_in_tree(member, _payloads(planted, tmp_path)[payload])
    raw[_member_key(header)] = _npy(np.frombuffer(crafted, dtype=np.uint8))
    _write(tmp_path / "crafted.model", header, raw)
    X, y = data
    dump_svmlight_file(X, np.where(y == 1, 1, -1), str(tmp_path / "data.libsvm"), zero_based=False)
    assert main(["predict", str(tmp_path / "crafted.model"), str(tmp_path / "data.libsvm")]) == 1
    assert "does not trust" in capsys.readouterr().err
    assert not planted.exists()


def test_wide_strings_are_charged_before_they_are_built(tmp_path, stump_model):
    """200,000 feature names of one character and one of 400 (a header of 1 MB) would be a unicode array
    of 320 MB (each name at the widest's width): refused from the count, before it is built."""
    header, raw = _members(stump_model)
    n = 200_000
    header["attributes"]["n_features_in_"] = {"json": n}
    for h in header["attributes"]["hypotheses_"]["hypotheses"]:
        h["fields"]["n_features"] = n
    names = ["x"] * (n - 1) + ["y" * 400]
    header["attributes"]["feature_names_in_"] = {"strings": names, "dtype": "<U400"}
    _write(tmp_path / "wide", header, raw)
    error = _bounded(lambda: load(tmp_path / "wide"))
    assert isinstance(error, ValueError) and "feature_names_in_" in str(error), error


def test_the_tie_rule_and_stop_reason_round_trip(tmp_path, data):
    X, y = data
    fitted = ERLPBoostClassifier(eps=0.1).fit(X, y)
    loaded = load(save(fitted, tmp_path / "m"))
    np.testing.assert_array_equal(loaded.class_prior_, fitted.class_prior_)
    assert loaded.stop_reason_ == fitted.stop_reason_


# --- a model larger than the default budget ------------------------------------------------------------
def test_max_bytes_reads_a_larger_model_and_model_bytes_says_how_much(tmp_path, stump_model, data):
    """``model_bytes`` is the sum of the members' decompressed sizes (checked by decompressing each);
    ``load(max_bytes=)`` reads the model within that many bytes and refuses it within half of them (what
    ``load`` charges is the arrays' data, less than their ``.npy`` members by a header each)."""
    with zipfile.ZipFile(stump_model) as archive:
        decompressed = sum(len(archive.read(name)) for name in archive.namelist())
    needed = persistence.model_bytes(stump_model)
    assert needed == decompressed
    X, _ = data
    np.testing.assert_array_equal(
        load(stump_model, max_bytes=needed).decision_function(X), load(stump_model).decision_function(X)
    )
    with pytest.raises(ValueError, match="bytes"):
        load(stump_model, max_bytes=needed // 2)
    for bad in (0, -1, 1.5, True, "1e9"):
        with pytest.raises(ValueError, match="max_bytes"):
            load(stump_model, max_bytes=bad)


def test_saving_a_model_above_the_default_budget_warns_with_what_it_needs(tmp_path, data, monkeypatch):
    """The default budget lowered so that a small model exceeds it: save warns, naming the max_bytes that
    loads it, and that value does load it."""
    X, y = data
    model = ERLPBoostClassifier(eps=0.1, nu=0.2).fit(X, y)
    monkeypatch.setattr(persistence, "MAX_MODEL_BYTES", 1000)
    with pytest.warns(UserWarning, match=r"max_bytes=(\d+)") as record:
        path = save(model, tmp_path / "model")
    message = next(str(w.message) for w in record if "max_bytes" in str(w.message))
    needed = int(message.split("max_bytes=")[1].split(")")[0])
    assert needed == persistence.model_bytes(path) > 1000
    assert load(path, max_bytes=needed).n_features_in_ == X.shape[1]


def test_cli_predict_max_bytes(tmp_path, stump_model, data):
    """``dualboost predict --max-bytes N`` refuses the model below what it needs (exit 1, no output) and
    predicts with it."""
    from sklearn.datasets import dump_svmlight_file

    from dualboost import cli

    X, y = data
    data_file = tmp_path / "data.libsvm"
    dump_svmlight_file(X, np.where(y == 1, 1, -1), str(data_file))
    needed = persistence.model_bytes(stump_model)
    out = tmp_path / "pred.txt"
    args = ["predict", str(stump_model), str(data_file), "--out", str(out)]
    assert cli.main([*args, "--max-bytes", str(needed // 2)]) == 1
    assert not out.exists()
    assert cli.main([*args, "--max-bytes", str(needed)]) == 0
    assert len(out.read_text().split()) == y.size


def test_a_multiclass_model_file_is_checked(tmp_path):
    """The class count ties classes_, the prior and the hypotheses together: a vote model's file with
    a class index beyond classes_, or a class-valued stump in a two-class model is refused before it
    predicts."""
    from sklearn.datasets import load_iris

    from dualboost.estimators import ERLPBoostClassifier, load

    X, y = load_iris(return_X_y=True)
    y = np.array(["a", "b", "c"])[y]  # string labels: classes_ in the header's JSON
    model = ERLPBoostClassifier(nu=0.1).fit(X, y)
    path = tmp_path / "iris.dbm"
    model.save(path)
    assert np.array_equal(load(path).predict(X), model.predict(X))

    def tampered(edit, name):
        header, raw = _members(path)
        edit(header)
        out = tmp_path / name
        _write(out, header, raw)
        return out

    def stump(header):
        hypotheses = header["attributes"]["hypotheses_"]["hypotheses"]
        return next(h for h in hypotheses if h["class"] == "ClassStump")

    def beyond(header):
        stump(header)["fields"]["above"] = 3

    def two_classes(header):  # n_classes kept at 3: the stump votes for three classes, the model has two
        header["attributes"]["classes_"]["strings"] = ["a", "b"]
        header["attributes"].pop("class_prior_")

    with pytest.raises(ValueError, match="above must be a class index in \\[0, 3\\)"):
        load(tampered(beyond, "beyond.dbm"))
    with pytest.raises(ValueError, match="predicts 3 classes, the model has 2"):
        load(tampered(two_classes, "two.dbm"))
