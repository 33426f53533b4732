"""Faster first compile of self-recursive kernels: their return type is inferred once.

Numba types a self-recursive call (``numba/core/typeinfer.py``, ``TypeInferer.resolve_call``)
by cloning the caller's whole type inferer and propagating it again without the recursive
calls (``return_types_from_partial``), to learn the return type from the non-recursive
``return`` statements. It does so each time the call's constraint is resolved: once per
recursive call site in every propagation round of the caller. ``negamax`` (three call sites,
three rounds) was typed 9 more times in full, 15 with a staged move picker (five rounds): more
than everything else in its compile.

:func:`infer_return_once` marks a kernel whose return type the non-recursive returns fix on
the first try (every return of ``negamax`` is an int64): its first partial inference is kept
on the inferer and reused by the later resolutions of the same compile. Nothing else changes:
the same constraints, the same types, the same machine code (``uci-engine bench`` signature
and nps unchanged); cached kernels never reach type inference at all. Measured on the 2-core
development machine (CPU seconds to compile the search path after its leaf kernels): 7.05 ->
5.07 s, and 15.4 -> 7.5 s with the staged move picker and singular extensions.

If a Numba release drops or renames the method, the hook is not installed and compiles are as
slow as before, nothing worse (:data:`INSTALLED` says which).
"""
from numba.core import typeinfer

_ONCE = set()                 # Python functions whose recursive return type is inferred once
_ATTR = "_uci_engine_partial_return"
_original = getattr(typeinfer.TypeInferer, "return_types_from_partial", None)
_original = getattr(_original, "__wrapped__", _original)    # a reloaded module: Numba's own


def _return_types_from_partial(self):
    """``TypeInferer.return_types_from_partial``, memoised on the inferer for marked kernels."""
    if self.func_id.func not in _ONCE:
        return _original(self)
    found = getattr(self, _ATTR, None)
    if found is None:
        found = _original(self)
        if found is not None:              # not known yet: try again on the next resolution
            setattr(self, _ATTR, found)
    return found


INSTALLED = _original is not None
if INSTALLED:
    _return_types_from_partial.__wrapped__ = _original
    typeinfer.TypeInferer.return_types_from_partial = _return_types_from_partial


def infer_return_once(dispatcher):
    """Mark the ``@njit`` ``dispatcher`` (returned unchanged) so that its recursive calls infer
    its return type once per compile. Only for kernels whose non-recursive returns all have
    one type."""
    _ONCE.add(dispatcher.py_func)
    return dispatcher
