"""Property-based checks of move generation, copy-make and Zobrist keys against python-chess.

Hypothesis draws a start position (the 89 perft.epd positions and a spread of perft960.epd
ones), a seed and a playout length. Along a random playout (biased towards castling, en passant
and promotions so these show up often) each position must agree with a python-chess board:

* the legal move set, in king-takes-rook notation (all python-chess boards are built with
  ``chess960=True``, which prints castling that way for standard positions too), and for standard
  positions also :meth:`Engine.move_to_uci`'s e1g1 notation against a ``chess960=False`` board;
* ``count_legal`` == ``generate_legal`` count;
* ``generate_noisy`` == captures (en passant included) and promotions, or every evasion in check;
* checkers bitboard == ``board.checkers_mask()``;
* ``format_fen`` == ``board.fen(en_passant="xfen")`` (``shredder=True`` for Chess960 rows);
* the incremental Zobrist key == ``compute_key`` from scratch, and the key is a function of the
  first four FEN fields within the playout;
* make_move leaves rows 0..ply bit-identical (copy-make) and keeps mailbox, bitboards and
  occupancy consistent, with LAST_MOVE and CAPTURED set.
"""
import os
import random

import chess
import numpy as np
from hypothesis import HealthCheck, event, given, settings, strategies as hst

from uci_engine.engine import Engine
from uci_engine.fen import format_fen, parse_fen
from uci_engine.kernels import position as P
from uci_engine.kernels.bitboard import NO_PIECE, NO_SQ
from uci_engine.kernels.movegen import count_legal, generate_legal, generate_noisy, generate_quiet

DATA = os.path.join(os.path.dirname(__file__), "data")
MAX_PLIES = 100


def _fens(name):
    with open(os.path.join(DATA, name)) as fh:
        return [ln.split(";")[0].strip() for ln in fh if ln.strip()]


STANDARD = _fens("perft.epd")
FISCHER = _fens("perft960.epd")[::20]          # 48 Chess960 start positions
STARTS = STANDARD + FISCHER
SETTINGS = settings(deadline=None, max_examples=250, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])

_CONV = Engine(1)        # move_to_uci converter in standard notation (chess960 False)
_CONV.chess960 = False


def sq_name(sq):
    return "abcdefgh"[sq & 7] + str(sq // 8 + 1)


def native_uci(m):
    """UCI text of our move in king-takes-rook notation for castling."""
    s = sq_name(m & 63) + sq_name((m >> 6) & 63)
    flag = (m >> 12) & 7
    return s + ("nbrq"[flag - P.FLAG_PROMO] if flag >= P.FLAG_PROMO else "")


def moves_of(fn, st, ply):
    buf = np.zeros(256, dtype=np.int32)
    n = int(fn(st, ply, buf))
    return [int(m) for m in buf[:n]]


def check_row(st, mb, ply):
    """Mailbox, piece bitboards and occupancies describe the same board."""
    occ = [0, 0]
    for p in range(12):
        bb = int(st[ply, p])
        occ[p // 6] |= bb
        for sq in range(64):
            if bb >> sq & 1:
                assert mb[ply, sq] == p
    for sq in range(64):
        p = int(mb[ply, sq])
        assert p == NO_PIECE or int(st[ply, p]) >> sq & 1
    assert int(st[ply, P.OCC]) == occ[0] and int(st[ply, P.OCC + 1]) == occ[1]
    assert int(st[ply, P.OCC_ALL]) == occ[0] | occ[1] and not occ[0] & occ[1]


def check_position(st, mb, ply, board, fischer, keys):
    where = board.fen()
    # FEN and Zobrist key
    want_fen = board.fen(shredder=fischer, en_passant="xfen")
    got_fen = format_fen(st, mb, ply)
    assert got_fen == want_fen, where
    key = int(st[ply, P.KEY])
    assert key == int(P.compute_key(st, ply)), where
    ident = " ".join(got_fen.split()[:4])
    assert keys.setdefault(ident, key) == key, where
    # check detection
    assert int(P.checkers(st, ply)) == board.checkers_mask(), where
    assert bool(P.in_check(st, ply)) == board.is_check(), where
    # legal moves
    ours = moves_of(generate_legal, st, ply)
    assert len(set(ours)) == len(ours), where
    assert sorted(native_uci(m) for m in ours) == sorted(m.uci() for m in board.legal_moves), where
    assert int(count_legal(st, ply, np.zeros(256, dtype=np.int32))) == len(ours), where
    if not fischer:
        std = chess.Board(board.fen(), chess960=False)
        assert (sorted(_CONV.move_to_uci(m) for m in ours)
                == sorted(m.uci() for m in std.legal_moves)), where
    # noisy moves: captures + promotions, every evasion in check
    noisy = moves_of(generate_noisy, st, ply)
    assert len(set(noisy)) == len(noisy), where
    if board.is_check():
        want = {m.uci() for m in board.legal_moves}
    else:
        want = {m.uci() for m in board.legal_moves if board.is_capture(m) or m.promotion}
    assert {native_uci(m) for m in noisy} == want, where
    return ours


def pick(rng, board, moves):
    """A random legal move, special moves (castling, en passant, promotion) half the time."""
    special = [m for m in moves if board.is_castling(m) or board.is_en_passant(m) or m.promotion]
    if special and rng.random() < 0.5:
        return rng.choice(special)
    return rng.choice(moves)


def playout(start, seed, length, events=True):
    fen = STARTS[start]
    fischer = start >= len(STANDARD) or any(c not in "KQkq-" for c in fen.split()[2])
    st, mb = P.new_stack(MAX_PLIES + 2)
    parse_fen(fen, st, mb, 0, chess960=fischer)
    assert bool(st[0, P.CHESS960]) == fischer or not fischer
    fischer = bool(st[0, P.CHESS960])
    board = chess.Board(fen, chess960=True)
    rng = random.Random(seed)
    keys = {}
    check_row(st, mb, 0)
    for ply in range(length):
        ours = check_position(st, mb, ply, board, fischer, keys)
        if not ours:
            assert board.is_checkmate() or board.is_stalemate()
            return
        by_uci = {native_uci(m): m for m in ours}
        mv = pick(rng, board, sorted(board.legal_moves, key=lambda m: m.uci()))
        m = by_uci[mv.uci()]
        if board.is_en_passant(mv):
            captured = (1 - int(st[ply, P.STM])) * 6
        elif board.is_castling(mv) or board.piece_at(mv.to_square) is None:
            captured = NO_PIECE
        else:
            captured = int(mb[ply, mv.to_square])
        before_st, before_mb = st[: ply + 1].copy(), mb[: ply + 1].copy()
        P.make_move(st, mb, ply, m)
        assert np.array_equal(st[: ply + 1], before_st), "make_move wrote below ply + 1"
        assert np.array_equal(mb[: ply + 1], before_mb), "make_move wrote below ply + 1"
        assert int(st[ply + 1, P.LAST_MOVE]) == m
        assert int(st[ply + 1, P.CAPTURED]) == captured
        assert int(st[ply + 1, P.CHESS960]) == int(st[ply, P.CHESS960])
        for kind, hit in (("castling", board.is_castling(mv)), ("promotion", bool(mv.promotion)),
                          ("en passant", board.is_en_passant(mv)),
                          ("check", board.gives_check(mv))):
            if hit and events:
                event(kind)
        board.push(mv)
        check_row(st, mb, ply + 1)
    check_position(st, mb, length, board, fischer, keys)


@SETTINGS
@given(start=hst.integers(0, len(STARTS) - 1), seed=hst.integers(0, 2**32 - 1),
       length=hst.integers(0, MAX_PLIES))
def test_random_playouts(start, seed, length):
    playout(start, seed, length)


@SETTINGS
@given(start=hst.integers(len(STANDARD), len(STARTS) - 1), seed=hst.integers(0, 2**32 - 1),
       length=hst.integers(1, MAX_PLIES))
def test_random_playouts_960(start, seed, length):
    playout(start, seed, length)


def test_every_start_position():
    """Each start position once, a short playout each, so none is left out by Hypothesis."""
    for i in range(len(STARTS)):
        playout(i, i, 6, events=False)


def test_ep_square_kept_only_when_capturable():
    st, mb = P.new_stack(4)
    parse_fen("4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1", st, mb, 0)
    P.make_move(st, mb, 0, 12 | (28 << 6))              # e2e4: d4 pawn attacks e3
    assert int(st[1, P.EP]) == 20
    parse_fen("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", st, mb, 0)
    P.make_move(st, mb, 0, 12 | (28 << 6))              # e2e4: no pawn to take
    assert int(st[1, P.EP]) == NO_SQ
    assert int(st[1, P.KEY]) == int(P.compute_key(st, 1))


def _quiet_noisy_partition(fen, chess960):
    st, mb = P.new_stack(4)
    parse_fen(fen, st, mb, 0, chess960=chess960)
    buf = np.zeros(256, dtype=np.int32)
    legal = sorted(buf[:generate_legal(st, 0, buf)].tolist())
    if P.in_check(st, 0):
        return None
    noisy = buf[:generate_noisy(st, 0, buf)].tolist()
    quiet = buf[:generate_quiet(st, 0, buf)].tolist()
    return legal, noisy, quiet


def test_quiet_and_noisy_partition_the_legal_moves():
    """Outside check, generate_quiet and generate_noisy split generate_legal with no overlap
    (the staged picker relies on it), on every perft-suite position not in check, Chess960
    included; quiet moves are the non-capturing non-promotions and castling."""
    checked = 0
    for name in ("perft.epd", "perft960.epd"):
        for line in open(os.path.join(DATA, name)):
            fen = line.split(";")[0].strip()
            if not fen:
                continue
            got = _quiet_noisy_partition(fen, name == "perft960.epd")
            if got is None:
                continue
            legal, noisy, quiet = got
            assert sorted(noisy + quiet) == legal, fen
            assert not set(noisy) & set(quiet), fen
            checked += 1
    assert checked > 50
