"""Perft: count leaf nodes of the legal move tree (chessprogramming wiki "Perft").

Perft has its own lean board and legal generator here, because it needs none of the search
state (Zobrist key, mailbox, clocks, last move); it is the engine's perft speed figure
(docs/performance.md, "Perft and move generation"), kept apart from the search's generator on
purpose, and ``perft_engine`` below walks the search's own generator and make-move as the check
that both count the same. A position is one row of a small local uint64
array (see the ``_F_*`` columns): six piece-type bitboards for both colours, one occupancy per
colour, side to move, castling rights and en-passant square. Making a move copies and edits
about a dozen words (no mailbox, no key): the moving piece's type is carried in the move code
(bits 15-17) by the generator, a capture clears the target square from all six type boards
without looking up what stood there, and castling rights are kept by a per-square mask.

The legal generator follows :func:`uci_engine.kernels.movegen._generate` (check ray, pins,
king moves tested with the king lifted, full en-passant test, Chess960 castling) and generates
the same moves; checkers and pinned pieces come from one pass over the enemy sliders on the
king's empty-board lines, and the squares a castling needs empty are fixed per game. At the last
ply moves are only counted by popcount (bulk counting), never written.
The tree walk uses an explicit stack (no recursion: cheaper calls, and clear of numba issue
#6061); nodes one ply above the leaves are expanded in one tight loop of make + count, with the
counting generator inlined. The walk and the move writers are compiled with ``_nrt=False`` (no
reference counting): otherwise every array handed to an inlined or called function is increfed
and decrefed with atomic instructions on each call, which cost about half the speed.
"""
import numpy as np
from numba import njit

from .bitboard import (U0, U1, FULL, NOT_FILE_A, NOT_FILE_H, RANK_3, RANK_6, RANK_1, RANK_8,
                       lsb, popcount, NO_SQ)
from .attacks import (BETWEEN, LINE, KNIGHT_ATTACKS, KING_ATTACKS, PAWN_ATTACKS,
                      rook_attacks, bishop_attacks)
from .movegen import MAX_MOVES, count_legal, generate_legal
from .rays import ROOK_DIRS, BISHOP_DIRS, _py_ray
from .position import make_move
from .position import (OCC, STM, CASTLE, EP, ROOK_SQ, CASTLE_KING_TO, CASTLE_ROOK_TO,
                       FLAG_EP, FLAG_CASTLE, FLAG_PROMO)

# columns of a perft row: 0..5 piece type P N B R Q K (both colours), then
_F_WHITE = 6      # _F_WHITE + colour: occupancy of that colour
_F_STM = 8
_F_CASTLE = 9
_F_EP = 10
_F_LEN = 16
_PT_SHIFT = 15    # move bits 15-17: type of the moving piece (perft-internal encoding)

#: uint64[64]: rook / bishop attacks on an empty board (the lines a slider could check along).
_ROOK_RAYS = np.array([_py_ray(s, ROOK_DIRS) for s in range(64)], dtype=np.uint64)
_BISHOP_RAYS = np.array([_py_ray(s, BISHOP_DIRS) for s in range(64)], dtype=np.uint64)


# The emitters are plain (not numba-inlined) functions, which LLVM inlines anyway: numba-level
# inlining of their many call sites made the cold compile of this module about 5 s longer.
@njit(cache=True, _nrt=False)
def _emit_from(moves, d, n, base, targets, write):
    """Emit ``base | to << 6`` for each target square (``base`` = from | type << 15)."""
    if write:
        while targets:
            moves[d, n] = base | (lsb(targets) << 6)
            n += 1
            targets &= targets - U1
        return n
    return n + popcount(targets)


@njit(cache=True, _nrt=False)
def _emit_pawns(moves, d, n, targets, delta, write):
    if write:
        while targets:
            to = lsb(targets)
            moves[d, n] = (to - delta) | (to << 6)
            n += 1
            targets &= targets - U1
        return n
    return n + popcount(targets)


@njit(cache=True, _nrt=False)
def _emit_promos(moves, d, n, targets, delta, write):
    if write:
        while targets:
            to = lsb(targets)
            base = (to - delta) | (to << 6)
            for f in range(4):
                moves[d, n] = base | ((FLAG_PROMO + f) << 12)
                n += 1
            targets &= targets - U1
        return n
    return n + 4 * popcount(targets)


@njit(cache=True, inline="always")
def _shift(b, delta):
    if delta > 0:
        return b << np.uint64(delta)
    return b >> np.uint64(-delta)


@njit(cache=True, inline="always")
def _gen(S, d, moves, rsq, cpath, write):
    """Number of legal moves of perft row ``d``; with ``write`` they are also written to row
    ``d`` of ``moves`` (int32[:, MAX_MOVES]). ``rsq`` (int64[4]) and ``cpath`` (uint64[4]): rook
    square and must-be-empty squares of each castling right (see :func:`perft`)."""
    us = np.int64(S[d, _F_STM])
    them = 1 - us
    own = S[d, _F_WHITE + us]
    opp = S[d, _F_WHITE + them]
    occ = own | opp
    pawns_all = S[d, 0]
    knights_all = S[d, 1]
    bishops_all = S[d, 2]
    rooks_all = S[d, 3]
    queens_all = S[d, 4]
    kings_all = S[d, 5]
    kbb = kings_all & own
    ksq = lsb(kbb)
    t_rq = (rooks_all | queens_all) & opp
    t_bq = (bishops_all | queens_all) & opp
    t_n = knights_all & opp
    t_p = pawns_all & opp
    t_k = kings_all & opp
    n = 0

    # Checkers and pinned pieces in one pass over the enemy sliders on the king's lines
    # (empty-board rays): nothing between -> checker, exactly one piece of ours -> pinned.
    chk = (PAWN_ATTACKS[us, ksq] & t_p) | (KNIGHT_ATTACKS[ksq] & t_n)
    pinned = U0
    snipers = (_ROOK_RAYS[ksq] & t_rq) | (_BISHOP_RAYS[ksq] & t_bq)
    while snipers:
        s = lsb(snipers)
        snipers &= snipers - U1
        b = BETWEEN[ksq, s] & occ
        if not b:
            chk |= U1 << np.uint64(s)
        elif not (b & (b - U1)) and (b & own):
            pinned |= b

    # King moves: target squares must not be attacked with our king lifted off the board.
    occ_nok = occ ^ kbb
    kt = KING_ATTACKS[ksq] & ~own
    kbase = ksq | (5 << _PT_SHIFT)
    while kt:
        to = lsb(kt)
        kt &= kt - U1
        if ((PAWN_ATTACKS[us, to] & t_p) | (KNIGHT_ATTACKS[to] & t_n) | (KING_ATTACKS[to] & t_k)
                | (rook_attacks(to, occ_nok) & t_rq) | (bishop_attacks(to, occ_nok) & t_bq)):
            continue
        if write:
            moves[d, n] = kbase | (to << 6)
        n += 1

    if chk & (chk - U1):
        return n                                  # double check: king moves only
    if chk:
        target = BETWEEN[ksq, lsb(chk)] | chk
    else:
        target = FULL
    target_nc = target & ~own

    # Knights (a pinned knight never moves).
    b = knights_all & own & ~pinned
    while b:
        frm = lsb(b)
        b &= b - U1
        n = _emit_from(moves, d, n, frm | (1 << _PT_SHIFT), KNIGHT_ATTACKS[frm] & target_nc, write)
    # Diagonal sliders (bishops, queens).
    b = (bishops_all | queens_all) & own
    while b:
        frm = lsb(b)
        bb = U1 << np.uint64(frm)
        b &= b - U1
        t = bishop_attacks(frm, occ) & target_nc
        if pinned & bb:
            t &= LINE[ksq, frm]
        pt = 4 if queens_all & bb else 2
        n = _emit_from(moves, d, n, frm | (pt << _PT_SHIFT), t, write)
    # Orthogonal sliders (rooks, queens).
    b = (rooks_all | queens_all) & own
    while b:
        frm = lsb(b)
        bb = U1 << np.uint64(frm)
        b &= b - U1
        t = rook_attacks(frm, occ) & target_nc
        if pinned & bb:
            t &= LINE[ksq, frm]
        pt = 4 if queens_all & bb else 3
        n = _emit_from(moves, d, n, frm | (pt << _PT_SHIFT), t, write)

    # Pawns: unpinned ones set-wise by shifts, pinned ones one by one.
    pawns = pawns_all & own
    empty = ~occ
    if us == 0:
        up = 8
        left = 7
        right = 9
        rank3 = RANK_3
        last = RANK_8
    else:
        up = -8
        left = -9
        right = -7
        rank3 = RANK_6
        last = RANK_1
    free = pawns & ~pinned
    single = _shift(free, up) & empty
    double = _shift(single & rank3, up) & empty & target
    single &= target
    capl = _shift(free & NOT_FILE_A, left) & opp & target
    capr = _shift(free & NOT_FILE_H, right) & opp & target
    n = _emit_pawns(moves, d, n, single & ~last, up, write)
    n = _emit_pawns(moves, d, n, double, 2 * up, write)
    n = _emit_pawns(moves, d, n, capl & ~last, left, write)
    n = _emit_pawns(moves, d, n, capr & ~last, right, write)
    if (single | capl | capr) & last:
        n = _emit_promos(moves, d, n, single & last, up, write)
        n = _emit_promos(moves, d, n, capl & last, left, write)
        n = _emit_promos(moves, d, n, capr & last, right, write)
    pp = pawns & pinned
    if pp and not chk:
        while pp:
            frm = lsb(pp)
            pp &= pp - U1
            bb = U1 << np.uint64(frm)
            line = LINE[ksq, frm]
            s1 = _shift(bb, up) & empty & line
            d1 = _shift(s1 & rank3, up) & empty
            cp = PAWN_ATTACKS[us, frm] & opp & line
            if (s1 | cp) & last:
                n = _emit_promos(moves, d, n, s1, up, write)
                while cp:
                    to = lsb(cp)
                    cp &= cp - U1
                    if write:
                        for f in range(4):
                            moves[d, n + f] = frm | (to << 6) | ((FLAG_PROMO + f) << 12)
                    n += 4
            else:
                n = _emit_from(moves, d, n, frm, s1 | d1 | cp, write)

    # En passant: full test of the position after the capture.
    ep = np.int64(S[d, _F_EP])
    if ep != NO_SQ:
        capsq = ep - up
        capbb = U1 << np.uint64(capsq)
        epbb = U1 << np.uint64(ep)
        if (target & (capbb | epbb)) or not chk:
            cands = PAWN_ATTACKS[them, ep] & pawns
            while cands:
                frm = lsb(cands)
                cands &= cands - U1
                occ2 = occ ^ (U1 << np.uint64(frm)) ^ capbb ^ epbb
                if ((rook_attacks(ksq, occ2) & t_rq) | (bishop_attacks(ksq, occ2) & t_bq)
                        | (KNIGHT_ATTACKS[ksq] & t_n) | (PAWN_ATTACKS[us, ksq] & t_p & ~capbb)):
                    continue
                if write:
                    moves[d, n] = frm | (ep << 6) | (FLAG_EP << 12)
                n += 1

    # Castling (Chess960 aware): king takes own rook.
    rights = np.int64(S[d, _F_CASTLE]) >> (2 * us) & 3
    if rights and not chk:
        for side in range(2):
            if not (rights >> side & 1):
                continue
            r = 2 * us + side
            if cpath[r] & occ:
                continue
            rs = rsq[r]
            rbb = U1 << np.uint64(rs)
            kto = CASTLE_KING_TO[r]
            rto = CASTLE_ROOK_TO[r]
            ktobb = U1 << np.uint64(kto)
            ok = True
            walk = BETWEEN[ksq, kto]
            while walk:
                s = lsb(walk)
                walk &= walk - U1
                if ((PAWN_ATTACKS[us, s] & t_p) | (KNIGHT_ATTACKS[s] & t_n)
                        | (KING_ATTACKS[s] & t_k)
                        | (rook_attacks(s, occ_nok) & t_rq) | (bishop_attacks(s, occ_nok) & t_bq)):
                    ok = False
                    break
            if not ok:
                continue
            occ3 = (occ ^ kbb ^ rbb) | (U1 << np.uint64(rto)) | ktobb
            if ((PAWN_ATTACKS[us, kto] & t_p) | (KNIGHT_ATTACKS[kto] & t_n)
                    | (KING_ATTACKS[kto] & t_k)
                    | (rook_attacks(kto, occ3) & t_rq) | (bishop_attacks(kto, occ3) & t_bq)):
                continue
            if write:
                moves[d, n] = ksq | (rs << 6) | (FLAG_CASTLE << 12) | (5 << _PT_SHIFT)
            n += 1
    return n


@njit(cache=True, _nrt=False)
def _gen_moves(S, d, moves, rsq, cpath):
    """Write the legal moves of perft row ``d`` into row ``d`` of ``moves``; return the count."""
    return _gen(S, d, moves, rsq, cpath, True)


@njit(cache=True, inline="always")
def _make(S, d, n, m, cmask):
    """Play perft-encoded move ``m`` from perft row ``d`` into row ``n``."""
    us = np.int64(S[d, _F_STM])
    them = 1 - us
    frm = m & 63
    to = (m >> 6) & 63
    flag = (m >> 12) & 7
    pt = m >> _PT_SHIFT
    fb = U1 << np.uint64(frm)
    tb = U1 << np.uint64(to)
    mv = fb | tb
    ntb = ~tb
    rights = S[d, _F_CASTLE] & cmask[frm] & cmask[to]
    S[n, _F_STM] = np.uint64(them)
    S[n, _F_CASTLE] = rights
    if flag == 0:
        # normal move (capture or not): the target square is cleared on every board
        for i in range(6):
            S[n, i] = S[d, i] & ntb
        S[n, pt] ^= mv
        S[n, _F_WHITE + us] = S[d, _F_WHITE + us] ^ mv
        S[n, _F_WHITE + them] = S[d, _F_WHITE + them] & ntb
        ep = NO_SQ
        if pt == 0 and (to - frm == 16 or frm - to == 16):
            ep = (to + frm) >> 1
        S[n, _F_EP] = np.uint64(ep)
        return
    S[n, _F_EP] = np.uint64(NO_SQ)
    for i in range(6):
        S[n, i] = S[d, i] & ntb
    cu = S[d, _F_WHITE + us]
    ct = S[d, _F_WHITE + them] & ntb
    if flag == FLAG_CASTLE:
        r = us * 2 + (0 if to > frm else 1)
        ktb = U1 << np.uint64(CASTLE_KING_TO[r])
        rtb = U1 << np.uint64(CASTLE_ROOK_TO[r])
        S[n, 3] |= rtb                       # the rook on ``to`` was cleared above
        S[n, 5] = (S[n, 5] ^ fb) | ktb
        cu = (cu ^ mv) | ktb | rtb
    elif flag == FLAG_EP:
        capb = (tb >> np.uint64(8)) if us == 0 else (tb << np.uint64(8))
        S[n, 0] ^= mv ^ capb
        cu ^= mv
        ct ^= capb
    else:
        S[n, 0] ^= fb
        S[n, flag - 3] |= tb
        cu ^= mv
    S[n, _F_WHITE + us] = cu
    S[n, _F_WHITE + them] = ct


# ``_nrt=False`` (see the module docstring): these kernels allocate nothing.
@njit(cache=True, _nrt=False)
def _walk(S, moves, count, index, cmask, rsq, cpath, D):
    """Explicit-stack tree walk from perft row 0 to depth ``D`` (>= 2); returns the leaf count."""
    nodes = np.int64(0)
    d = np.int64(0)
    count[0] = _gen_moves(S, d, moves, rsq, cpath)
    index[0] = 0
    while d >= 0:
        if D - d == 2:
            # one ply above the leaves: make each move into row d + 1 and count its moves
            for i in range(count[d]):
                _make(S, d, d + 1, np.int64(moves[d, i]), cmask)
                nodes += _gen(S, d + 1, moves, rsq, cpath, False)
            d -= 1
            continue
        if index[d] >= count[d]:
            d -= 1
            continue
        m = np.int64(moves[d, index[d]])
        index[d] += 1
        _make(S, d, d + 1, m, cmask)
        d += 1
        count[d] = _gen_moves(S, d, moves, rsq, cpath)
        index[d] = 0
    return nodes


@njit(cache=True)
def perft(st, mb, ply, depth):
    """Leaf count (int64) of the legal move tree of row ``ply`` to ``depth`` plies.

    Reads row ``ply`` of ``st`` only (``mb`` is not used; neither array is written)."""
    if depth <= 0:
        return np.int64(1)
    D = np.int64(depth)
    S = np.zeros((D + 1, _F_LEN), dtype=np.uint64)
    for c in range(2):
        for t in range(6):
            S[0, t] |= st[ply, c * 6 + t]
        S[0, _F_WHITE + c] = st[ply, OCC + c]
    S[0, _F_STM] = st[ply, STM]
    S[0, _F_CASTLE] = st[ply, CASTLE]
    S[0, _F_EP] = st[ply, EP]
    rsq = np.empty(4, dtype=np.int64)
    cmask = np.full(64, np.uint64(15), dtype=np.uint64)
    for i in range(4):
        rs = np.int64(st[ply, ROOK_SQ + i])
        rsq[i] = rs
        if 0 <= rs < 64:
            cmask[rs] &= np.uint64(15 & ~(1 << i))
    # A side's rights exist only while its king stands on its start square, so a move from
    # (a king move) or to that square clears them: same result as testing the piece type.
    # For the same reason the squares that must be empty to castle are fixed (``cpath``).
    cpath = np.zeros(4, dtype=np.uint64)
    for c in range(2):
        if (np.int64(st[ply, CASTLE]) >> (2 * c)) & 3:
            ksq = lsb(st[ply, c * 6 + 5])
            cmask[ksq] &= np.uint64(15 & ~(3 << (2 * c)))
            for side in range(2):
                r = 2 * c + side
                rs = rsq[r]
                if 0 <= rs < 64:
                    kto = CASTLE_KING_TO[r]
                    rto = CASTLE_ROOK_TO[r]
                    cpath[r] = ((BETWEEN[ksq, kto] | (U1 << np.uint64(kto)) | BETWEEN[rs, rto]
                                 | (U1 << np.uint64(rto)))
                                & ~((U1 << np.uint64(ksq)) | (U1 << np.uint64(rs))))
    moves = np.empty((D + 1, MAX_MOVES), dtype=np.int32)
    d = np.int64(0)   # a variable, not the literal 0: one compiled _gen_moves for all calls
    if D == 1:
        return np.int64(_gen_moves(S, d, moves, rsq, cpath))
    count = np.zeros(D + 1, dtype=np.int64)
    index = np.zeros(D + 1, dtype=np.int64)
    return _walk(S, moves, count, index, cmask, rsq, cpath, D)


@njit(cache=True)
def perft_engine(st, mb, ply, depth):
    """Leaf count (int64) to ``depth`` plies through the engine's own move generator and
    :func:`make_move` (the code the search runs), with bulk counting at the last ply.

    Slower than :func:`perft`, whose lean board exists for speed; tests run both against the
    published counts, so the search's generator and make-move stay covered by the perft
    suites. ``st``/``mb`` need ``depth`` free rows after ``ply``."""
    moves = np.empty((depth + 1, MAX_MOVES), dtype=np.int32)
    if depth <= 0:
        return np.int64(1)
    if depth == 1:
        return np.int64(count_legal(st, ply, moves[0]))
    count = np.zeros(depth + 1, dtype=np.int64)
    index = np.zeros(depth + 1, dtype=np.int64)
    nodes = np.int64(0)
    count[0] = generate_legal(st, ply, moves[0])
    d = 0
    while d >= 0:
        if index[d] >= count[d]:
            d -= 1
            continue
        m = np.int64(moves[d, index[d]])
        index[d] += 1
        make_move(st, mb, ply + d, m)
        if depth - d - 1 == 1:
            nodes += count_legal(st, ply + d + 1, moves[d + 1])
        else:
            d += 1
            count[d] = generate_legal(st, ply + d, moves[d])
            index[d] = 0
    return nodes
