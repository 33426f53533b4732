"""Board state as rows of a numpy stack, Zobrist keys, and copy-make move application.

A position lives in row ``ply`` of two arrays the caller owns:

* ``st``: uint64[N, STATE_LEN], one row per ply. Fields (column indices below): twelve piece
  bitboards (piece = colour * 6 + type, type P N B R Q K = 0..5), occupancy per colour and in all,
  the Zobrist key, side to move (0 white, 1 black), castling rights (bit i = right i:
  0 white h-side, 1 white a-side, 2 black h-side, 3 black a-side), en-passant square (64 = none;
  set only when a pawn of the side to move attacks it, as in Stockfish, so it is in the key exactly
  when it is set), halfmove clock (plies), fullmove number, the rook square of each castling right
  (Chess960 aware), a Chess960 flag, the move and captured piece that led to this row, and
  whether the side to move is in check (filled in by the search when it already knows;
  ``make_move`` leaves it unknown).
* ``mb``: int8[N, 64] mailbox, piece index per square or NO_PIECE (12).

Moves are integers: bits 0-5 from-square, bits 6-11 to-square, bits 12-14 flag (0 normal,
1 en passant, 2 castling encoded king-takes-own-rook, 4..7 promotion to N, B, R, Q).
Making a move copies row ``ply`` to ``ply + 1`` and edits it (copy-make), keeping the Zobrist
key incrementally (chessprogramming wiki "Zobrist Hashing", "Copy-Make").
"""
import numpy as np
from numba import njit

from .bitboard import U0, U1, lsb, NO_PIECE, NO_SQ, WHITE, BLACK, PAWN, KNIGHT, ROOK, KING
from .attacks import PAWN_ATTACKS, KNIGHT_ATTACKS, KING_ATTACKS, rook_attacks, bishop_attacks

# --- state row layout -------------------------------------------------------------------------
OCC = 12          # OCC + colour: occupancy of that colour; OCC + 2: all pieces
OCC_ALL = 14
KEY = 15
STM = 16
CASTLE = 17
EP = 18
HALFMOVE = 19
FULLMOVE = 20
ROOK_SQ = 21      # ROOK_SQ + i: rook square of castling right i (64 when none)
CHESS960 = 25
LAST_MOVE = 26    # move that led to this row (0 at the root, NULL_MOVE after a null move)
CAPTURED = 27     # piece captured by that move, NO_PIECE if none
CHECKED = 28      # side to move in check: 0 no, 1 yes, CHECK_UNKNOWN not yet computed
STATE_LEN = 32

MAX_PLY = 256     # rows a search stack needs beyond the game history
NULL_MOVE = 0xFFF  # from == to == h8: never a real move
CHECK_UNKNOWN = np.uint64(2)

FLAG_NORMAL, FLAG_EP, FLAG_CASTLE = 0, 1, 2
FLAG_PROMO = 4    # flag 4..7 = promotion to type flag - 3 (KNIGHT..QUEEN)

# Piece indices (bitboard columns and mailbox values): colour * 6 + type.
PIECE_TYPES = 6
WHITE_PAWN, WHITE_KNIGHT, WHITE_BISHOP, WHITE_ROOK, WHITE_QUEEN, WHITE_KING = range(6)
BLACK_PAWN, BLACK_KNIGHT, BLACK_BISHOP, BLACK_ROOK, BLACK_QUEEN, BLACK_KING = range(6, 12)


@njit(cache=True)
def piece_of(colour, ptype):
    """Piece index (int64, 0..11) of ``ptype`` (PAWN..KING) of ``colour`` (WHITE, BLACK):
    also its bitboard column in ``st``."""
    return colour * PIECE_TYPES + ptype


@njit(cache=True)
def piece_type(p):
    """Type (PAWN..KING) of piece index ``p`` (int64 0..11; NO_PIECE gives PAWN: test first)."""
    return p % PIECE_TYPES


@njit(cache=True)
def piece_colour(p):
    """Colour (WHITE, BLACK) of piece index ``p`` (int64 0..11)."""
    return p // PIECE_TYPES


@njit(cache=True)
def move_from(m):
    """From-square (0..63) of move ``m`` (bits 0-5)."""
    return m & 63


@njit(cache=True)
def move_to(m):
    """To-square (0..63) of move ``m`` (bits 6-11); the rook's square for castling."""
    return (m >> 6) & 63


@njit(cache=True)
def move_flag(m):
    """Flag (0..7) of move ``m`` (bits 12-14): FLAG_NORMAL, FLAG_EP, FLAG_CASTLE or
    FLAG_PROMO + promoted type - KNIGHT."""
    return (m >> 12) & 7


@njit(cache=True)
def promo_type(flag):
    """Piece type (KNIGHT..QUEEN) a promotion flag (FLAG_PROMO..FLAG_PROMO + 3) promotes to."""
    return flag - FLAG_PROMO + KNIGHT


# king and rook destinations per castling right (h-side -> g/f file, a-side -> c/d file)
CASTLE_KING_TO = np.array([6, 2, 62, 58], dtype=np.int64)
CASTLE_ROOK_TO = np.array([5, 3, 61, 59], dtype=np.int64)

# --- Zobrist keys (fixed seed: the same keys in every process) -------------------------------
_rng = np.random.default_rng(0x5EED_C0FFEE)
ZOBRIST_PIECE = _rng.integers(0, 2**64 - 1, size=(12, 64), dtype=np.uint64, endpoint=True)
ZOBRIST_CASTLE = _rng.integers(0, 2**64 - 1, size=16, dtype=np.uint64, endpoint=True)
ZOBRIST_EP = _rng.integers(0, 2**64 - 1, size=8, dtype=np.uint64, endpoint=True)
ZOBRIST_SIDE = np.uint64(_rng.integers(0, 2**64 - 1, dtype=np.uint64, endpoint=True))
ZOBRIST_CASTLE[0] = 0
del _rng


@njit(cache=True)
def attackers_to(st, ply, sq, occ):
    """Bitboard (uint64) of pieces of both colours attacking ``sq`` with occupancy ``occ``."""
    rq = st[ply, WHITE_ROOK] | st[ply, WHITE_QUEEN] | st[ply, BLACK_ROOK] | st[ply, BLACK_QUEEN]
    bq = (st[ply, WHITE_BISHOP] | st[ply, WHITE_QUEEN] | st[ply, BLACK_BISHOP]
          | st[ply, BLACK_QUEEN])
    return ((PAWN_ATTACKS[BLACK, sq] & st[ply, WHITE_PAWN])
            | (PAWN_ATTACKS[WHITE, sq] & st[ply, BLACK_PAWN])
            | (KNIGHT_ATTACKS[sq] & (st[ply, WHITE_KNIGHT] | st[ply, BLACK_KNIGHT]))
            | (KING_ATTACKS[sq] & (st[ply, WHITE_KING] | st[ply, BLACK_KING]))
            | (rook_attacks(sq, occ) & rq) | (bishop_attacks(sq, occ) & bq))


@njit(cache=True)
def checkers(st, ply):
    """Bitboard (uint64) of enemy pieces giving check to the side to move."""
    us = np.int64(st[ply, STM])
    ksq = lsb(st[ply, piece_of(us, KING)])
    return attackers_to(st, ply, ksq, st[ply, OCC_ALL]) & st[ply, OCC + 1 - us]


@njit(cache=True)
def in_check(st, ply):
    """True when the side to move is in check."""
    return checkers(st, ply) != U0


@njit(cache=True)
def _ep_keyed(st, ply, ep, us):
    """True when ``ep`` (square) can be captured by a pawn of ``us`` (the side to move)."""
    return (PAWN_ATTACKS[1 - us, ep] & st[ply, piece_of(us, PAWN)]) != U0


@njit(cache=True)
def compute_key(st, ply):
    """Zobrist key (uint64) of row ``ply`` computed from scratch (the oracle for make_move)."""
    k = U0
    for p in range(12):
        b = st[ply, p]
        while b:
            k ^= ZOBRIST_PIECE[p, lsb(b)]
            b &= b - U1
    k ^= ZOBRIST_CASTLE[np.int64(st[ply, CASTLE])]
    ep = np.int64(st[ply, EP])
    if ep != NO_SQ:
        k ^= ZOBRIST_EP[ep & 7]
    if st[ply, STM]:
        k ^= ZOBRIST_SIDE
    return k


@njit(cache=True)
def _put(st, mb, ply, p, sq):
    b = U1 << np.uint64(sq)
    st[ply, p] |= b
    st[ply, OCC + piece_colour(p)] |= b
    mb[ply, sq] = p


@njit(cache=True)
def _remove(st, mb, ply, p, sq):
    b = ~(U1 << np.uint64(sq))
    st[ply, p] &= b
    st[ply, OCC + piece_colour(p)] &= b
    mb[ply, sq] = NO_PIECE


@njit(cache=True)
def make_move(st, mb, ply, m):
    """Play move ``m`` (int, must be legal) from row ``ply``, writing the result to row ply + 1."""
    n = ply + 1
    for i in range(STATE_LEN):
        st[n, i] = st[ply, i]
    for i in range(64):
        mb[n, i] = mb[ply, i]
    us = np.int64(st[ply, STM])
    them = 1 - us
    frm = move_from(m)
    to = move_to(m)
    flag = move_flag(m)
    p = np.int64(mb[ply, frm])
    key = st[ply, KEY] ^ ZOBRIST_SIDE
    ep = np.int64(st[ply, EP])
    if ep != NO_SQ:
        key ^= ZOBRIST_EP[ep & 7]
        st[n, EP] = NO_SQ
    captured = NO_PIECE
    halfmove = st[ply, HALFMOVE] + U1
    rights = np.int64(st[ply, CASTLE])
    if flag == FLAG_CASTLE:
        # king on frm takes own rook on to; right index from side and direction
        r = us * 2 + (0 if to > frm else 1)
        kp = piece_of(us, KING)
        rp = piece_of(us, ROOK)
        _remove(st, mb, n, kp, frm)
        _remove(st, mb, n, rp, to)
        kto = CASTLE_KING_TO[r]
        rto = CASTLE_ROOK_TO[r]
        _put(st, mb, n, kp, kto)
        _put(st, mb, n, rp, rto)
        key ^= (ZOBRIST_PIECE[kp, frm] ^ ZOBRIST_PIECE[kp, kto]
                ^ ZOBRIST_PIECE[rp, to] ^ ZOBRIST_PIECE[rp, rto])
        rights &= ~(3 << (us * 2))
    else:
        if flag == FLAG_EP:
            capsq = to - 8 if us == 0 else to + 8
            captured = piece_of(them, PAWN)
            _remove(st, mb, n, captured, capsq)
            key ^= ZOBRIST_PIECE[captured, capsq]
        else:
            c = np.int64(mb[ply, to])
            if c != NO_PIECE:
                captured = c
                _remove(st, mb, n, c, to)
                key ^= ZOBRIST_PIECE[c, to]
        _remove(st, mb, n, p, frm)
        key ^= ZOBRIST_PIECE[p, frm]
        if flag >= FLAG_PROMO:
            np_ = piece_of(us, promo_type(flag))
            _put(st, mb, n, np_, to)
            key ^= ZOBRIST_PIECE[np_, to]
        else:
            _put(st, mb, n, p, to)
            key ^= ZOBRIST_PIECE[p, to]
        if p == piece_of(us, PAWN):
            halfmove = U0
            if to - frm == 16 or frm - to == 16:
                eps = (to + frm) // 2
                if PAWN_ATTACKS[us, eps] & st[ply, piece_of(them, PAWN)]:
                    st[n, EP] = eps
                    key ^= ZOBRIST_EP[eps & 7]
        elif p == piece_of(us, KING):
            rights &= ~(3 << (us * 2))
        if rights:
            for i in range(4):
                rs = np.int64(st[ply, ROOK_SQ + i])
                if rs == frm or rs == to:
                    rights &= ~(1 << i)
    if captured != NO_PIECE:
        halfmove = U0
    old_rights = np.int64(st[ply, CASTLE])
    if rights != old_rights:
        key ^= ZOBRIST_CASTLE[old_rights] ^ ZOBRIST_CASTLE[rights]
        st[n, CASTLE] = rights
    st[n, OCC_ALL] = st[n, OCC] | st[n, OCC + 1]
    st[n, STM] = them
    st[n, HALFMOVE] = halfmove
    if us == 1:
        st[n, FULLMOVE] = st[ply, FULLMOVE] + U1
    st[n, KEY] = key
    st[n, LAST_MOVE] = m
    st[n, CAPTURED] = captured
    st[n, CHECKED] = CHECK_UNKNOWN


@njit(cache=True)
def make_null_move(st, mb, ply):
    """Pass the move (null move) from row ``ply`` into row ply + 1. Not legal in check."""
    n = ply + 1
    for i in range(STATE_LEN):
        st[n, i] = st[ply, i]
    for i in range(64):
        mb[n, i] = mb[ply, i]
    key = st[ply, KEY] ^ ZOBRIST_SIDE
    ep = np.int64(st[ply, EP])
    if ep != NO_SQ:
        key ^= ZOBRIST_EP[ep & 7]
        st[n, EP] = NO_SQ
    st[n, STM] = U1 - st[ply, STM]
    st[n, HALFMOVE] = st[ply, HALFMOVE] + U1
    st[n, KEY] = key
    st[n, LAST_MOVE] = NULL_MOVE
    st[n, CAPTURED] = NO_PIECE
    st[n, CHECKED] = CHECK_UNKNOWN


def new_stack(rows=MAX_PLY + 1024):
    """A fresh (st, mb) pair: uint64[rows, STATE_LEN] and int8[rows, 64]."""
    return (np.zeros((rows, STATE_LEN), dtype=np.uint64),
            np.full((rows, 64), NO_PIECE, dtype=np.int8))
