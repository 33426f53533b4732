"""Load or compile every kernel the engine calls, so the first real command is fast."""
import numpy as np

from .timeman import Limits


def warm_up(engine):
    """Run each kernel once on small inputs (perft, search, eval, hashfull) through ``engine``
    (an :class:`uci_engine.engine.Engine`), then clear its TT and heuristics."""
    engine.perft(2)
    engine.perft_divide(2)
    engine.static_eval()
    engine.search(Limits(depth=3))
    engine.hashfull()
    engine.clear()
    return np.True_
