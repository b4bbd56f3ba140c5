"""``dualboost._threads.single_blas_thread``: BLAS on one thread inside, as it was outside.

The thread counts are read by threadpoolctl's own scan (``threadpool_info``), independently of the
controllers the context keeps.
"""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from dualboost._threads import single_blas_thread


def _blas_threads() -> list[int]:
    return [info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"]


@pytest.mark.parametrize("outside", [1, 2])
def test_one_thread_inside_and_the_count_restored_on_exit(outside):
    with threadpool_limits(limits=outside, user_api="blas"):
        before = _blas_threads()
        assert before  # numpy's BLAS at least
        with single_blas_thread():
            assert _blas_threads() == [1] * len(before)
            with single_blas_thread():  # nested: still one, and the outer one's count kept
                assert _blas_threads() == [1] * len(before)
            assert _blas_threads() == [1] * len(before)
            A = np.random.default_rng(0).normal(size=(300, 300))
            np.testing.assert_allclose(A @ np.eye(300), A)
        assert _blas_threads() == before


def test_the_count_is_restored_after_an_error():
    with threadpool_limits(limits=2, user_api="blas"):
        before = _blas_threads()
        with pytest.raises(RuntimeError, match="inside"):
            with single_blas_thread():
                raise RuntimeError("inside")
        assert _blas_threads() == before


def test_the_last_context_to_close_restores_the_count():
    """Contexts closed out of order (two threads' solves): the count is set back only when the
    last open one closes, not while another still runs on one thread."""
    with threadpool_limits(limits=2, user_api="blas"):
        before = _blas_threads()
        first, second = single_blas_thread(), single_blas_thread()
        first.__enter__()
        second.__enter__()
        first.__exit__(None, None, None)
        assert _blas_threads() == [1] * len(before)
        second.__exit__(None, None, None)
        assert _blas_threads() == before


def test_an_inner_context_does_not_read_the_libraries(monkeypatch):
    """Inside an open context another one only counts itself (a boosting run's solves)."""
    import dualboost._threads as threads

    with single_blas_thread():
        monkeypatch.setattr(threads, "_blas_libraries", lambda: pytest.fail("an inner context read BLAS"))
        with single_blas_thread():
            pass
        monkeypatch.undo()


def test_a_boosting_run_holds_one_thread_and_sets_the_count_back():
    """A totally corrective run holds BLAS at one thread around its whole loop, its oracle calls
    included (its solves' own contexts are then inner ones), and sets the count back on return."""
    from dualboost.boosting import erlpboost
    from dualboost.oracles import DecisionStumps

    seen = []

    class Recording(DecisionStumps):
        def best(self, d, *args, **kwargs):
            seen.append(_blas_threads())
            return super().best(d, *args, **kwargs)

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 3)), np.where(rng.normal(size=60) > 0, 1, -1)
    with threadpool_limits(limits=2, user_api="blas"):
        before = _blas_threads()
        erlpboost(Recording().fit(X, y), nu=2.0, eps=0.1)
        assert _blas_threads() == before
    assert seen and all(counts == [1] * len(before) for counts in seen)
