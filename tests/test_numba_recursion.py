"""uci_engine/numba_recursion.py: a marked recursive kernel infers its return type once per
compile, and computes the same results as an unmarked twin."""
from numba import njit

from uci_engine import numba_recursion as R
from uci_engine.kernels import search as S


def _tree(n, k):
    # three recursive call sites: negamax has several (five)
    if n <= 1:
        return n + k
    a = _tree(n - 1, k)
    b = _tree(n - 2, k) if n % 2 else _tree(n - 2, k + 1)
    return a + b


def _reference(n, k):
    if n <= 1:
        return n + k
    return _reference(n - 1, k) + (_reference(n - 2, k) if n % 2 else _reference(n - 2, k + 1))


def _compile_counting(monkeypatch, fn, mark):
    calls = []
    original = R._original

    def counting(self):
        calls.append(self.func_id.func_name)
        return original(self)

    monkeypatch.setattr(R, "_original", counting)
    disp = njit(fn)          # no cache: each test compiles afresh
    globals()[fn.__name__] = disp      # the recursive calls resolve through the module global
    if mark:
        R.infer_return_once(disp)
    try:
        result = [disp(n, 3) for n in range(12)]
    finally:
        globals()[fn.__name__] = fn
    return result, len(calls)


def test_hook_is_installed_and_negamax_is_marked():
    assert R.INSTALLED
    assert S.negamax.py_func in R._ONCE


def test_marked_kernel_infers_return_once_with_the_same_results(monkeypatch):
    expected = [_reference(n, 3) for n in range(12)]
    marked, marked_calls = _compile_counting(monkeypatch, _tree, mark=True)
    assert marked == expected
    assert marked_calls == 1
    R._ONCE.discard(_tree)
    unmarked, unmarked_calls = _compile_counting(monkeypatch, _tree, mark=False)
    assert unmarked == expected
    assert unmarked_calls > 1          # Numba's own path, untouched for unmarked kernels
