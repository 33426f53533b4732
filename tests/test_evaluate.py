"""Tests for uci_engine.kernels.evaluate: colour symmetry, sanity, evaluate/eval_terms agreement
and an independent python-chess reference of every term."""
import os
import random

from uci_engine import backend

try:
    backend.select(os.environ.get("UCI_ENGINE_SLIDERS_TEST", "rayscan"))
except RuntimeError:  # another test module fixed a different backend first: use that one
    pass

import chess  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from hypothesis import given, settings, strategies as hst  # noqa: E402

from uci_engine.fen import STARTPOS, parse_fen  # noqa: E402
from uci_engine.kernels import eval_weights as W  # noqa: E402
from uci_engine.kernels import evaluate as E  # noqa: E402
from uci_engine.kernels import position as P  # noqa: E402

DATA = os.path.join(os.path.dirname(__file__), "data")


def _perft_fens():
    with open(os.path.join(DATA, "perft.epd")) as f:
        lines = f.read().splitlines()[:89]
    return [ln.split(";")[0].strip() for ln in lines if ln.strip()]


PERFT_FENS = _perft_fens()
_ST, _MB = P.new_stack(2)


def ev(fen):
    parse_fen(fen, _ST, _MB, 0)
    return int(E.evaluate(_ST, 0))


def terms(fen, dtype=np.int64):
    parse_fen(fen, _ST, _MB, 0)
    out = np.zeros((E.N_TERMS, 2), dtype=dtype)
    phase = int(E.eval_terms(_ST, 0, out))
    return out, phase


def playout_fens(seed, n_games=3, max_plies=120):
    """Positions along seeded random playouts from the start and the perft positions."""
    rng = random.Random(seed)
    fens = []
    for _ in range(n_games):
        board = chess.Board(rng.choice([STARTPOS] + PERFT_FENS))
        for _ in range(rng.randrange(1, max_plies)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
            fens.append(board.fen())
    return fens


# --- independent reference (python-chess) ---------------------------------------------------

def _pc(b):
    return bin(b).count("1")


def ref_terms(board):
    """White-view (mg, eg) per term and the phase, computed square by square with python-chess.

    An independent oracle, not a second implementation of the engine's: it follows the
    definitions (python-chess attacks, files, ranks) instead of evaluate.py's bitboard masks, so a
    wrong mask, mirror or trace index shows as a mismatch. It reads the weights from ``W``, which
    tests/test_eval_trace.py replaces by random ones to check every trace index."""
    out = np.zeros((E.N_TERMS, 2), dtype=np.int64)
    for sq, pc in board.piece_map().items():
        t = pc.piece_type - 1
        if pc.color == chess.WHITE:   # wiki tables list a8 first: a1 (0) is wiki index 56
            out[E.T_PST] += (W.MATERIAL_MG[t] + W.PST_MG[t][sq ^ 56],
                             W.MATERIAL_EG[t] + W.PST_EG[t][sq ^ 56])
        else:
            out[E.T_PST] -= (W.MATERIAL_MG[t] + W.PST_MG[t][sq],
                             W.MATERIAL_EG[t] + W.PST_EG[t][sq])
    phase = sum(len(board.pieces(pt, c)) * w for c in chess.COLORS
                for pt, w in ((chess.KNIGHT, 1), (chess.BISHOP, 1), (chess.ROOK, 2),
                              (chess.QUEEN, 4)))
    phase = min(phase, 24)
    for color in chess.COLORS:
        sign = 1 if color == chess.WHITE else -1
        own = int(board.occupied_co[color])
        own_p = int(board.pieces(chess.PAWN, color))
        enemy_p = int(board.pieces(chess.PAWN, not color))
        epatt = 0
        for s in board.pieces(chess.PAWN, not color):
            epatt |= int(board.attacks_mask(s))
        area = ~(own | epatt) & chess.BB_ALL
        eksq = board.king(not color)
        ezone = chess.BB_KING_ATTACKS[eksq] | chess.BB_SQUARES[eksq]
        n_att = units = 0
        for pt in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN):
            t = pt - 1
            for s in board.pieces(pt, color):
                a = int(board.attacks_mask(s))
                n = _pc(a & area)
                out[E.T_MOBILITY] += (sign * W.MOBILITY_MG[t - 1][n],
                                      sign * W.MOBILITY_EG[t - 1][n])
                if a & ezone:
                    n_att += 1
                    units += E.KS_UNIT[t] * _pc(a & ezone)
                if pt == chess.ROOK:
                    fm = chess.BB_FILES[chess.square_file(s)]
                    if not (own_p | enemy_p) & fm:
                        out[E.T_ROOKS] += (sign * W.ROOK_OPEN_MG, sign * W.ROOK_OPEN_EG)
                    elif not own_p & fm:
                        out[E.T_ROOKS] += (sign * W.ROOK_SEMIOPEN_MG,
                                           sign * W.ROOK_SEMIOPEN_EG)
        units = min(units, E.KS_TABLE_LEN - 1)
        danger = W.KING_DANGER_MG[min(n_att, 7)][units]
        ksq = board.king(color)
        kf, kr = chess.square_file(ksq), chess.square_rank(ksq)
        step = 1 if color == chess.WHITE else -1
        shield = 0
        for dist, w in ((1, W.SHIELD1_MG), (2, W.SHIELD2_MG)):
            r = kr + step * dist
            if 0 <= r < 8:
                for f in range(max(0, kf - 1), min(7, kf + 1) + 1):
                    if own_p >> chess.square(f, r) & 1:
                        shield += w
        out[E.T_KING, 0] += sign * (danger + shield)
        for s in board.pieces(chess.PAWN, color):
            f, r = chess.square_file(s), chess.square_rank(s)
            ahead = [rr for rr in range(8) if (rr > r if color == chess.WHITE else rr < r)]
            if any(own_p >> chess.square(f, rr) & 1 for rr in ahead):
                out[E.T_PAWNS] += (sign * W.DOUBLED_MG[f], sign * W.DOUBLED_EG[f])
            elif not any(enemy_p >> chess.square(ff, rr) & 1 for rr in ahead
                         for ff in (f - 1, f, f + 1) if 0 <= ff < 8):
                rel = r if color == chess.WHITE else 7 - r
                out[E.T_PAWNS] += (sign * W.PASSED_MG[rel], sign * W.PASSED_EG[rel])
            if not any(own_p & chess.BB_FILES[ff] for ff in (f - 1, f + 1) if 0 <= ff < 8):
                out[E.T_PAWNS] += (sign * W.ISOLATED_MG[f], sign * W.ISOLATED_EG[f])
        bish = int(board.pieces(chess.BISHOP, color))
        if bish & chess.BB_LIGHT_SQUARES and bish & chess.BB_DARK_SQUARES:
            out[E.T_BISHOP_PAIR] += (sign * W.BISHOP_PAIR_MG, sign * W.BISHOP_PAIR_EG)
    out[E.T_TEMPO, 0] = W.TEMPO_MG if board.turn == chess.WHITE else -W.TEMPO_MG
    return out, phase


def check_position(fen):
    """All invariants for one FEN: reference terms, evaluate == eval_terms total, mirror."""
    board = chess.Board(fen)
    out, phase = terms(fen)
    ref, ref_phase = ref_terms(board)
    assert phase == ref_phase, fen
    np.testing.assert_array_equal(out, ref, err_msg=fen)
    score = ev(fen)
    assert score == E.eval_total(out, phase, 0 if board.turn == chess.WHITE else 1), fen
    mirrored = board.mirror().fen()
    assert ev(mirrored) == score, (fen, mirrored)
    mout, mphase = terms(mirrored)
    assert mphase == phase
    np.testing.assert_array_equal(mout, -out, err_msg=fen)


# --- tests ------------------------------------------------------------------------------------

def _wiki(square):
    """Index of ``square`` in the wiki table layout (a8 first, row by row down to h1)."""
    return (7 - chess.square_rank(square)) * 8 + chess.square_file(square)


def test_pst_orientation():
    # eval_weights keeps the wiki layout (a8 first): white pieces read their square's row from
    # the top, black pieces the mirrored square; spot checks on known squares
    for pt, sq in ((chess.KNIGHT, chess.G1), (chess.PAWN, chess.E4), (chess.KING, chess.G1),
                   (chess.QUEEN, chess.H8), (chess.ROOK, chess.A2)):
        t = pt - 1
        assert E.PST_MG[t, sq] == W.MATERIAL_MG[t] + W.PST_MG[t][_wiki(sq)]
        assert E.PST_EG[t, sq] == W.MATERIAL_EG[t] + W.PST_EG[t][_wiki(sq)]
        black_sq = chess.square_mirror(sq)   # same relative square for black
        assert E.PST_MG[6 + t, black_sq] == -E.PST_MG[t, sq]
    for p in range(6):   # black tables are the vertical mirror of white's, negated
        for sq in range(64):
            assert E.PST_MG[6 + p, sq ^ 56] == -E.PST_MG[p, sq]
            assert E.PST_EG[6 + p, sq ^ 56] == -E.PST_EG[p, sq]


def test_handset_start_values():
    """The committed weights hold the hand-set values until a tuned module replaces them;
    a tuned module names its data instead (then this check does not apply)."""
    if not W.__doc__.split("\n", 3)[2].startswith("Data: none"):
        pytest.skip("eval_weights.py holds tuned weights")
    assert W.PST_MG[chess.KNIGHT - 1][_wiki(chess.G1)] == -19      # PeSTO (wiki) spot values
    assert W.PST_EG[chess.PAWN - 1][_wiki(chess.A7)] == 178
    assert W.PST_MG[chess.KING - 1][_wiki(chess.G1)] == 24
    assert W.MATERIAL_MG == (82, 337, 365, 477, 1025, 0)
    assert W.KING_DANGER_MG[2][10] == (min(500, 10 * 10 // 4 + 10) * 64) >> 7


def test_masks():
    assert E.LIGHT_SQUARES == np.uint64(chess.BB_LIGHT_SQUARES)
    assert E.PASSED_MASKS[0, chess.E4] == np.uint64(
        (chess.BB_FILE_D | chess.BB_FILE_E | chess.BB_FILE_F)
        & (chess.BB_RANK_5 | chess.BB_RANK_6 | chess.BB_RANK_7 | chess.BB_RANK_8))
    assert E.PASSED_MASKS[1, chess.A5] == np.uint64(
        (chess.BB_FILE_A | chess.BB_FILE_B) & (chess.BB_RANK_1 | chess.BB_RANK_2 | chess.BB_RANK_3
                                               | chess.BB_RANK_4))
    assert E.ADJ_FILE_MASKS[0] == np.uint64(chess.BB_FILE_B)
    assert E.ADJ_FILE_MASKS[4] == np.uint64(chess.BB_FILE_D | chess.BB_FILE_F)
    assert E.SHIELD1_MASKS[0, chess.G1] == np.uint64(chess.BB_F2 | chess.BB_G2 | chess.BB_H2)
    assert E.SHIELD2_MASKS[1, chess.B8] == np.uint64(chess.BB_A6 | chess.BB_B6 | chess.BB_C6)


def test_startpos_near_zero():
    assert abs(ev(STARTPOS)) <= 50
    assert ev(STARTPOS) == W.TEMPO_MG   # symmetric: only the tempo remains


def test_extra_queen():
    no_black_queen = "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    assert ev(no_black_queen) > 700
    assert ev(no_black_queen.replace(" w ", " b ")) < -700
    assert ev("4k3/8/8/8/8/8/8/3QK3 w - - 0 1") > 700
    assert ev("4k3/8/8/8/8/8/8/3QK3 b - - 0 1") < -700


@pytest.mark.parametrize("fen", PERFT_FENS)
def test_perft_positions(fen):
    check_position(fen)


def test_seeded_playouts():
    fens = playout_fens(12345, n_games=8)
    assert len(fens) > 100
    for fen in fens:
        check_position(fen)


@settings(max_examples=30, deadline=None)
@given(hst.integers(min_value=0, max_value=2**32 - 1))
def test_random_playouts(seed):
    for fen in playout_fens(seed, n_games=1, max_plies=80)[::3]:
        check_position(fen)


def _flip_side(fen):
    board = chess.Board(fen)
    board.turn = not board.turn
    board.ep_square = None
    return board.fen() if board.is_valid() else None


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_side_to_move_flip_negates(seed):
    checked = 0
    for fen in PERFT_FENS[:20] + playout_fens(seed, n_games=4):
        other = _flip_side(fen)
        if other is None or chess.Board(fen).ep_square is not None:
            continue
        _, phase = terms(fen)
        expected = 2 * W.TEMPO_MG * phase / E.PHASE_MAX   # the tempo counts once for each side
        total = ev(fen) + ev(other)
        assert expected - 2 < total <= expected, (fen, total, expected)
        checked += 1
    assert checked > 20


def test_term_examples():
    # white: isolated c-pawns (c2 doubled behind c3, c3 passed), isolated passed a6;
    # black: h7 isolated and passed
    fen = "4k3/7p/P7/8/8/2P5/2P5/4K3 w - - 0 1"
    out, _ = terms(fen)
    mg_w = (2 * W.ISOLATED_MG[2] + W.ISOLATED_MG[0] + W.DOUBLED_MG[2] + W.PASSED_MG[5]
            + W.PASSED_MG[2])
    mg_b = W.ISOLATED_MG[7] + W.PASSED_MG[1]   # h7 is passed too (no white pawn on g/h files)
    assert out[E.T_PAWNS, 0] == mg_w - mg_b
    # bishop pair only with bishops on both colours
    assert terms("4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1")[0][E.T_BISHOP_PAIR, 1] == W.BISHOP_PAIR_EG
    assert terms("4k3/8/8/8/8/8/8/1B2KB2 w - - 0 1")[0][E.T_BISHOP_PAIR, 1] == 0
    # rook on an open file vs a semi-open one (black pawn only)
    assert terms("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")[0][E.T_ROOKS, 0] == W.ROOK_OPEN_MG
    assert terms("4k3/p7/8/8/8/8/8/R3K3 w - - 0 1")[0][E.T_ROOKS, 0] == W.ROOK_SEMIOPEN_MG
    # a queen and rook hitting the black king zone cost black king safety
    quiet = terms("6k1/5ppp/8/8/8/8/8/1N1Q2K1 w - - 0 1")[0][E.T_KING, 0]
    attack = terms("6k1/5ppp/8/6N1/7Q/8/8/6K1 w - - 0 1")[0][E.T_KING, 0]
    units = E.KS_UNIT[4] * 1 + E.KS_UNIT[1] * 2   # Qh4 hits h7; Ng5 hits f7 and h7
    assert attack - quiet == W.KING_DANGER_MG[2][units]
    assert attack > quiet


def test_float_output_and_format():
    fen = PERFT_FENS[1]
    iout, phase = terms(fen)
    fout, fphase = terms(fen, np.float64)
    assert fphase == phase
    np.testing.assert_array_equal(fout, iout.astype(np.float64))
    parse_fen(fen, _ST, _MB, 0)
    text = E.format_eval(_ST, 0)
    for name in E.TERM_NAMES + ("Total", "Final evaluation"):
        assert name in text
    assert f"{ev(fen):+d} cp" in text
