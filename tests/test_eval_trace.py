"""Tests for the evaluation's trace, its linear form over the weight vector
(uci_engine.kernels.evaluate.evaluate_traced / trace_batch, uci_engine.tuning): the coefficient
identity with ``evaluate`` on thousands of positions (test suites, self-play sample, random
playouts), per term against ``eval_terms``, with random weights against the independent
python-chess reference of test_evaluate, and the weight vector <-> module round trip."""
import os
import types

import chess
import numpy as np
import pytest

from uci_engine.fen import STARTPOS
from uci_engine.kernels import eval_weights as W
from uci_engine.kernels import evaluate as E
from uci_engine.kernels import position as P
from uci_engine.kernels.movegen import generate_legal
from uci_engine import tuning

import test_evaluate as TE   # its python-chess reference reads the weights from TE.W

DATA = os.path.join(os.path.dirname(__file__), "data")


def _epd_fens(name, step=1):
    """First four FEN fields (+ clocks) of every ``step``-th line of an EPD/perft file."""
    out = []
    with open(os.path.join(DATA, name)) as fh:
        for i, line in enumerate(fh):
            fields = line.split(";")[0].split()
            if len(fields) >= 4 and i % step == 0:
                out.append(" ".join(fields[:4]) + " 0 1")
    return out


# unusual material: 7+ attackers and 63+ attack units on the king zone (found by a seeded
# random search with python-chess), many queens (mobility up to 27), pawns on the 7th rank
EXTREME = [
    "8/8/N5Q1/2NkR2P/1Q5R/2Q5/6N1/7K b - - 0 1",
    "8/2Q5/P3k3/P1Q3N1/8/8/7Q/7K b - - 0 1",
    "8/2b2Q2/B2N4/3k4/R7/2Q5/p1B1B3/7K b - - 0 1",
    "7k/8/8/3Q4/8/8/8/K7 w - - 0 1",
    "k7/8/8/8/8/8/1QQQQQ2/7K w - - 0 1",
    "4k3/PPP3PP/8/8/8/8/ppp3pp/4K3 w - - 0 1",
    "4k3/8/8/8/8/8/8/4K3 b - - 0 1",
    "k7/8/8/2NNN3/2NBN3/2NNN3/8/K6R w - - 0 1",
]


def _selfplay_fens():
    """FENs of tests/data/selfplay_sample.txt (datagen lines ``FEN | score | result``)."""
    with open(os.path.join(DATA, "selfplay_sample.txt")) as fh:
        return [line.split("|")[0].strip() for line in fh if "|" in line]


def suite_fens():
    return (_epd_fens("perft.epd") + _epd_fens("perft960.epd") + _epd_fens("wac_odd.epd")
            + _epd_fens(os.path.join("openings", "noob_2moves.epd"), step=7) + EXTREME
            + _selfplay_fens())


def playout_rows(fens, seed, plies=60):
    """Rows reached by seeded random legal playouts (the engine's own movegen and make_move)
    from each of ``fens``: uint64[n, STATE_LEN]."""
    rng = np.random.default_rng(seed)
    st, mb = P.new_stack(plies + 2)
    moves = np.zeros(256, dtype=np.int32)
    rows = []
    from uci_engine.fen import parse_fen
    for fen in fens:
        parse_fen(fen, st, mb, 0)
        for ply in range(plies):
            n = int(generate_legal(st, ply, moves))
            if n == 0:
                break
            P.make_move(st, mb, ply, moves[rng.integers(n)])
            rows.append(st[ply + 1].copy())
    return np.array(rows, dtype=np.uint64)


@pytest.fixture(scope="module")
def positions():
    st_suite, ok = tuning.fens_to_rows(suite_fens())
    assert ok.all()
    starts = suite_fens()[::25] + [STARTPOS]
    st_play = playout_rows(starts, seed=20261123)
    st = np.concatenate([st_suite, st_play])
    assert len(st) > 5000
    return st


def _evaluate_rows(st):
    return np.array([int(E.evaluate(st, r)) for r in range(len(st))], dtype=np.int64)


def test_identity_with_evaluate(positions):
    c, phase, stm = tuning.coefficient_matrix(positions)
    w = tuning.weights_vector()
    mg, eg = tuning.mg_eg(c, w)
    got = tuning.taper(mg, eg, phase, stm)
    want = _evaluate_rows(positions)
    bad = np.nonzero(got != want)[0]
    assert bad.size == 0, f"{bad.size} mismatches, rows {bad[:5]}: {got[bad[:5]]} {want[bad[:5]]}"
    assert np.unique(want).size > 1000     # a varied sample, not a constant


def test_traced_score_and_accumulation(positions):
    """The traced specialisation scores as the engine's evaluate, and adds to the trace it is
    given (the caller zeroes it): tracing a row twice doubles its coefficients."""
    w = tuning.weights_vector()
    for r in range(0, len(positions), 7):
        trace = np.zeros(E.N_WEIGHTS, dtype=np.int64)
        score = int(E.evaluate_traced(positions, r, trace))
        assert score == int(E.evaluate(positions, r)) == int(E.evaluate_traced(positions, r, None))
        once = trace.copy()
        E.evaluate_traced(positions, r, trace)
        np.testing.assert_array_equal(trace, 2 * once)
        mg, eg = int(once @ np.where(E.IS_EG, 0, w)), int(once @ np.where(E.IS_EG, w, 0))
        phase = int(E.game_phase(positions, r))
        assert tuning.taper(mg, eg, phase, int(positions[r, P.STM])) == score


def test_identity_per_term(positions):
    """Each term's weights reproduce exactly that row of eval_terms (no compensating errors)."""
    c, phase, _ = tuning.coefficient_matrix(positions)
    w = tuning.weights_vector()
    out = np.zeros((E.N_TERMS, 2), dtype=np.int64)
    per_term = np.zeros((len(positions), E.N_TERMS, 2), dtype=np.int64)
    for name, shape, ph in E.WEIGHT_SPEC:
        part = slice(E.OFFSETS[name], E.OFFSETS[name] + int(np.prod(shape, dtype=np.int64)))
        wt = np.zeros_like(w)
        wt[part] = w[part]
        per_term[:, tuning.TERM_OF_WEIGHT[name], ph] += c @ wt
    for r in range(0, len(positions), 3):
        ph = int(E.eval_terms(positions, r, out))
        assert ph == phase[r]
        np.testing.assert_array_equal(per_term[r], out, err_msg=f"row {r}")


def test_random_weights_against_reference(monkeypatch, positions):
    """With random integer weights in place of the module's, the coefficients still give the
    independent python-chess reference's terms (tests/test_evaluate.py ref_terms)."""
    from uci_engine.fen import format_fen
    rng = np.random.default_rng(7)
    w = rng.integers(-300, 300, size=E.N_WEIGHTS)
    fake = types.SimpleNamespace(**tuning.weights_dict(w))
    for k, v in list(vars(fake).items()):
        setattr(fake, k, v.tolist() if v.ndim else int(v))
    monkeypatch.setattr(TE, "W", fake)
    sample = np.concatenate([positions[:89], positions[::40]])   # perft suite + a spread
    c, phase, stm = tuning.coefficient_matrix(sample)
    mg, eg = tuning.mg_eg(c, w)
    mb = np.zeros((len(sample), 64), dtype=np.int8)
    for r in range(len(sample)):      # rebuild the mailbox from bitboards for format_fen
        mb[r] = 12
        for p in range(12):
            b = int(sample[r, p])
            while b:
                sq = (b & -b).bit_length() - 1
                mb[r, sq] = p
                b &= b - 1
    for r in range(len(sample)):
        board = chess.Board(format_fen(sample, mb, r), chess960=bool(sample[r, P.CHESS960]))
        ref, ref_phase = TE.ref_terms(board)
        assert ref_phase == phase[r]
        assert mg[r] == ref[:, 0].sum(), board.fen()
        assert eg[r] == ref[:, 1].sum(), board.fen()


def test_coefficients_are_sparse_and_deduplicated(positions):
    c, _, _ = tuning.coefficient_matrix(positions[:500])
    for r in range(500):
        cols = c.indices[c.indptr[r]:c.indptr[r + 1]]
        assert len(np.unique(cols)) == len(cols)
        assert np.all(c.data[c.indptr[r]:c.indptr[r + 1]] != 0)
    # the start position: white and black material/PST cancel, the tempo stays
    st, _ = tuning.fens_to_rows([STARTPOS])
    c0, phase0, _ = tuning.coefficient_matrix(st)
    cols = set(c0.indices.tolist())
    assert E.OFFSETS["TEMPO_MG"] in cols and phase0[0] == 24
    assert not any(E.OFFSETS["MATERIAL_MG"] <= k < E.OFFSETS["MATERIAL_MG"] + 6 for k in cols)


def test_perturbed_weight_moves_eval_by_coefficient(positions):
    """Raising one weight by delta changes the white-view mg or eg total of every row by exactly
    coefficient * delta, and the position's evaluation the way the taper says."""
    c, phase, stm = tuning.coefficient_matrix(positions[:2000])
    w = tuning.weights_vector()
    base = tuning.taper(*tuning.mg_eg(c, w), phase, stm)
    for name, idx in (("ROOK_OPEN_MG", 0), ("PASSED_EG", 6), ("MOBILITY_MG", 29 + 7),
                      ("KING_DANGER_MG", 2 * 64 + 10)):
        k = E.OFFSETS[name] + idx
        coef = c[:, k].toarray().ravel()
        assert np.count_nonzero(coef) > 0, name
        w2 = w.copy()
        w2[k] += 24
        mg2, eg2 = tuning.mg_eg(c, w2)
        mg, eg = tuning.mg_eg(c, w)
        if E.IS_EG[k]:
            np.testing.assert_array_equal(eg2 - eg, 24 * coef)
            np.testing.assert_array_equal(mg2, mg)
            share = 24 - phase
        else:
            np.testing.assert_array_equal(mg2 - mg, 24 * coef)
            share = phase
        moved = tuning.taper(mg2, eg2, phase, stm) - base
        np.testing.assert_array_equal(moved, (1 - 2 * stm) * coef * share)


def test_weights_module_round_trip(tmp_path):
    w = tuning.weights_vector()
    assert w.shape == (E.N_WEIGHTS,)
    path = tuning.write_weights_module(w + 1, "Data: test.\nCommand: none", str(tmp_path / "w.py"))
    w2, doc = tuning.load_weights_file(path)
    np.testing.assert_array_equal(w2, w + 1)
    assert "Data: test." in doc
    # the committed module is in canonical form: rendering it back gives the same text
    with open(tuning.WEIGHTS_PATH) as fh:
        text = fh.read()
    assert tuning.render_weights_module(w, W.__doc__.split("\n", 2)[2]) == text
    with pytest.raises(ValueError):
        tuning.weights_dict(w[:-1])
