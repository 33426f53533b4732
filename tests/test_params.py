"""uci_engine/params.py: the search parameters reach the kernels through ``--tune``'s UCI
options, out-of-range values are refused, and the defaults are the engine's own values."""
import io
import re
import time

import numpy as np
import pytest

from uci_engine import params as SP
from uci_engine import timeman
from uci_engine.uci import UCI

#: a middlegame position (uci_engine/bench.py's seventh) and a depth at which every parameter
#: changes the node count; about 0.1 s a search once the kernels are loaded
FEN = "r3r1k1/2p2ppp/p1p1bn2/8/1q2P3/2NPQN2/PPP3PP/R4RK1 b - - 2 15"
DEPTH = 10
#: parameters whose effect needs another one moved first: at the default history pruning
#: margin no quiet's history falls low enough for the depth limit to matter in this search;
#: with generation 5 the margin matters only once quiets are pruned up to depth 6 (at the
#: default depth limit of 3 no margin from 500 to 8,000 changes the count); the window's growth
#: matters only once a window fails, which with some nets (generation 4) no iteration of this
#: search does at the default first half-window
CONTEXT = {"HISTORY_PRUNE_MAX_DEPTH": {"HISTORY_PRUNE_MARGIN": 500},
           "HISTORY_PRUNE_MARGIN": {"HISTORY_PRUNE_MAX_DEPTH": 6},
           "ASPIRATION_GROWTH_CP": {"ASPIRATION_DELTA": 5}}


class Session:
    """An in-process UCI session with its output kept in a string."""

    def __init__(self, tune):
        self.out = io.StringIO()
        self.uci = UCI(out=self.out, tune=tune)
        self.seen = 0

    def send(self, line):
        self.uci.handle(line)

    def new_output(self):
        text = self.out.getvalue()
        new, self.seen = text[self.seen:], len(text)
        return new

    def wait_for(self, word, timeout=300):
        deadline = time.monotonic() + timeout
        text = ""
        while word not in text:
            assert time.monotonic() < deadline, text
            time.sleep(0.005)
            text += self.new_output()
        return text

    def nodes(self):
        """Node count of a fixed-depth search of FEN from a new game."""
        self.send("ucinewgame")
        self.send(f"position fen {FEN}")
        self.send(f"go depth {DEPTH}")
        text = self.wait_for("bestmove")
        return int(re.findall(r" nodes (\d+)", text)[-1])


@pytest.fixture(scope="module")
def tuned():
    s = Session(tune=True)
    s.send("isready")
    s.wait_for("readyok")
    return s


def test_options_are_listed_only_with_tune(tuned):
    plain = Session(tune=False)
    plain.send("uci")
    assert not any(SP.is_param(o.name) for o in plain.uci.options)
    assert not any(p.name in line for line in plain.wait_for("uciok").splitlines()
                   for p in SP.TABLE)
    tuned.new_output()
    tuned.send("uci")
    text = tuned.wait_for("uciok")
    for p in SP.TABLE:
        assert f"option name {p.name} type spin default {p.default} min {p.min} max {p.max}" \
            in text


@pytest.mark.parametrize("name", [p.name for p in SP.TABLE if p.name not in SP.TIME_PARAMS])
def test_each_parameter_changes_the_node_count(tuned, name):
    p = SP.TABLE[SP.BY_NAME[name]]
    context = CONTEXT.get(name, {})
    for other, value in context.items():
        tuned.send(f"setoption name {other} value {value}")
    try:
        base = tuned.nodes()
        far, near = (p.min, p.max) if p.default - p.min > p.max - p.default else (p.max, p.min)
        changed = []
        for value in (far, near):
            tuned.send(f"setoption name {name} value {value}")
            assert tuned.uci.engine.params[SP.BY_NAME[name]] == value
            changed.append(tuned.nodes())
            if changed[-1] != base:
                break
        assert changed[-1] != base, (name, base, changed)
    finally:
        for other in [name, *context]:
            tuned.send(f"setoption name {other} value {SP.TABLE[SP.BY_NAME[other]].default}")
    assert "error" not in tuned.new_output()
    assert np.array_equal(tuned.uci.engine.params, SP.pack())


def _scaled_soft(params):
    """The soft limit after an iteration (stability 2, a 50 cp drop, half the nodes on the
    best move) with the time factors of ``params``."""
    return timeman.scale_soft(1000.0, 1e9, 2, 50, 0.5, **SP.time_factors(params))


@pytest.mark.parametrize("name", SP.TIME_PARAMS)
def test_each_time_parameter_changes_the_soft_limit(tuned, name):
    """The time-management rows act on clock searches only (no fixed-depth node count):
    set through the UCI option, each changes the scaled soft limit the engine computes."""
    p = SP.TABLE[SP.BY_NAME[name]]
    base = _scaled_soft(tuned.uci.engine.params)
    tuned.send(f"setoption name {name} value {p.max}")
    try:
        assert _scaled_soft(tuned.uci.engine.params) != base
    finally:
        tuned.send(f"setoption name {name} value {p.default}")
    assert _scaled_soft(tuned.uci.engine.params) == base


def test_out_of_range_value_is_refused(tuned):
    p = SP.TABLE[SP.BY_NAME["RFP_MARGIN"]]
    tuned.new_output()
    for bad in (p.max + 1, p.min - 1, "abc"):
        tuned.send(f"setoption name RFP_MARGIN value {bad}")
        assert tuned.new_output().startswith("info string error:")
    assert tuned.uci.options["rfp_margin"].value == p.default
    assert tuned.uci.engine.params[SP.RFP_MARGIN] == p.default
    with pytest.raises(ValueError):
        SP.apply(tuned.uci.engine.params, {"RFP_MARGIN": p.max + 1})
    with pytest.raises(ValueError):
        SP.apply(tuned.uci.engine.params, {"NO_SUCH_PARAMETER": 1})
    assert np.array_equal(tuned.uci.engine.params, SP.pack())


def test_defaults_are_the_search_constants():
    """The table's defaults fill the array; the derived late move reduction table is
    round-down(base + ln(depth) ln(moves) / divisor) with the LMR rows' defaults (0.74 and
    2.27 since SPSA; 0.75 and 2.25, the kernels' formula before the table)."""
    packed = SP.pack()
    assert packed.dtype == np.int64 and packed.shape == (SP.PARAMS_LEN,)
    assert [int(v) for v in packed[:len(SP.TABLE)]] == [p.default for p in SP.TABLE]
    lmr = packed[SP.LMR_TABLE:].reshape(SP.LMR_SIZE, SP.LMR_SIZE)
    assert (lmr[0] == 0).all() and (lmr[:, 0] == 0).all()
    assert lmr[1, 1] == 0 and lmr[63, 63] == int(0.74 + np.log(63) ** 2 / 2.27)
    for p in SP.TABLE:
        assert p.min <= p.default <= p.max and p.step > 0, p
    # the time rows' defaults are timeman's constants: same soft limits
    assert SP.time_factors(packed) == {"soft_scale": timeman.SOFT_SCALE,
                                       "score_drop_cp": timeman.SCORE_DROP_CP,
                                       "node_factor_slope": timeman.NODE_FACTOR_SLOPE,
                                       "node_factor_base": timeman.NODE_FACTOR_BASE}


def test_spsa_inputs_are_openbench_lines():
    lines = SP.spsa_inputs()
    assert len(lines) == len(SP.TABLE)
    name, kind, default, lo, hi, step, r_end = lines[0].split(", ")
    p = SP.TABLE[0]
    assert (name, kind, int(default), int(lo), int(hi), int(step)) == \
        (p.name, "int", p.default, p.min, p.max, p.step)
    assert float(r_end) == 0.002


def test_defaults_set_through_tune_reproduce_the_untuned_search():
    """Every parameter set explicitly to its default through ``--tune``'s options searches the
    same tree as the engine without ``--tune`` (the bench signature's identity, on a search
    that every parameter changes: test_each_parameter_changes_the_node_count)."""
    plain = Session(tune=False)
    tuned = Session(tune=True)
    for s in (plain, tuned):
        s.send("isready")
        s.wait_for("readyok")
    for p in SP.TABLE:
        tuned.send(f"setoption name {p.name} value {p.default}")
    assert "error" not in tuned.new_output()
    assert tuned.nodes() == plain.nodes()
