"""Legal move generation (not make-and-test) into a caller-owned buffer, and bulk counting.

Technique (chessprogramming wiki "Move Generation", "Checks and Pinned Pieces (Bitboards)";
seed 004 part 7): the checkers of our king restrict non-king moves to the check ray (and none in
double check); pinned pieces move only along the line through king and pinner; king moves are
tested against attacks computed with the king removed from the occupancy; en passant gets a full
discovered-check test (the horizontal case included); castling is not allowed out of, through or
into check, with Chess960 rook squares.
"""
import numpy as np
from numba import njit

from .bitboard import (U0, U1, FULL, NOT_FILE_A, NOT_FILE_H, RANK_3, RANK_6, RANK_1, RANK_8,
                       lsb, popcount, NO_SQ, PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING)
from .attacks import (BETWEEN, LINE, KNIGHT_ATTACKS, KING_ATTACKS, PAWN_ATTACKS,
                      rook_attacks, bishop_attacks)
from .position import (OCC, OCC_ALL, STM, CASTLE, EP, ROOK_SQ, CASTLE_KING_TO, CASTLE_ROOK_TO,
                       FLAG_EP, FLAG_CASTLE, FLAG_PROMO, piece_of)

MAX_MOVES = 256
# ``noisy`` is passed as a runtime int64 (module constants are typed int64, not literals), so
# generate_legal and generate_noisy share one compiled _generate: a cold start types it once.
ALL_MOVES = np.int64(0)
NOISY_MOVES = np.int64(1)
QUIET_MOVES = np.int64(2)     # the complement of NOISY_MOVES outside check (staged picker)


@njit(cache=True)
def _emit_from(moves, n, frm, targets, write):
    if write:
        while targets:
            moves[n] = frm | (lsb(targets) << 6)
            n += 1
            targets &= targets - U1
        return n
    return n + popcount(targets)


@njit(cache=True)
def _emit_pawns(moves, n, targets, delta, write):
    """Emit pawn moves to each square of ``targets`` from ``to - delta`` (no promotions)."""
    if write:
        while targets:
            to = lsb(targets)
            moves[n] = (to - delta) | (to << 6)
            n += 1
            targets &= targets - U1
        return n
    return n + popcount(targets)


@njit(cache=True)
def _emit_promos(moves, n, targets, delta, write):
    if write:
        while targets:
            to = lsb(targets)
            base = (to - delta) | (to << 6)
            for f in range(4):
                moves[n] = base | ((FLAG_PROMO + f) << 12)
                n += 1
            targets &= targets - U1
        return n
    return n + 4 * popcount(targets)


@njit(cache=True)
def _shift(b, delta):
    if delta > 0:
        return b << np.uint64(delta)
    return b >> np.uint64(-delta)


@njit(cache=True)
def _generate(st, ply, moves, write, noisy):
    us = np.int64(st[ply, STM])
    them = 1 - us
    occ = st[ply, OCC_ALL]
    own = st[ply, OCC + us]
    opp = st[ply, OCC + them]
    kbb = st[ply, piece_of(us, KING)]
    ksq = lsb(kbb)
    t_rq = st[ply, piece_of(them, ROOK)] | st[ply, piece_of(them, QUEEN)]
    t_bq = st[ply, piece_of(them, BISHOP)] | st[ply, piece_of(them, QUEEN)]
    t_n = st[ply, piece_of(them, KNIGHT)]
    t_p = st[ply, piece_of(them, PAWN)]
    t_k = st[ply, piece_of(them, KING)]
    n = 0

    chk = ((PAWN_ATTACKS[us, ksq] & t_p) | (KNIGHT_ATTACKS[ksq] & t_n)
           | (rook_attacks(ksq, occ) & t_rq) | (bishop_attacks(ksq, occ) & t_bq))

    # King moves: target squares must not be attacked with our king lifted off the board.
    occ_nok = occ ^ kbb
    # noisy (quiescence) mode outside check: captures and promotions only; quiet mode (never
    # in check): the rest, non-capturing non-promotions and castling
    quiet = noisy == QUIET_MOVES
    noisy_only = noisy == NOISY_MOVES and not chk
    noisy_mask = opp if noisy_only else (~opp if quiet else FULL)
    kt = KING_ATTACKS[ksq] & ~own & noisy_mask
    while kt:
        to = lsb(kt)
        kt &= kt - U1
        if ((PAWN_ATTACKS[us, to] & t_p) | (KNIGHT_ATTACKS[to] & t_n) | (KING_ATTACKS[to] & t_k)
                | (rook_attacks(to, occ_nok) & t_rq) | (bishop_attacks(to, occ_nok) & t_bq)):
            continue
        if write:
            moves[n] = ksq | (to << 6)
        n += 1

    if chk & (chk - U1):
        return n                                  # double check: king moves only
    if chk:
        target = BETWEEN[ksq, lsb(chk)] | chk
    else:
        target = FULL
    target_nc = target & ~own & noisy_mask

    # Pinned pieces: our single blockers between the king and an enemy slider.
    pinned = U0
    snipers = (rook_attacks(ksq, opp) & t_rq) | (bishop_attacks(ksq, opp) & t_bq)
    while snipers:
        s = lsb(snipers)
        snipers &= snipers - U1
        b = BETWEEN[ksq, s] & occ
        if b and not (b & (b - U1)) and (b & own):
            pinned |= b

    # Knights (a pinned knight never moves).
    b = st[ply, piece_of(us, KNIGHT)] & ~pinned
    while b:
        frm = lsb(b)
        b &= b - U1
        n = _emit_from(moves, n, frm, KNIGHT_ATTACKS[frm] & target_nc, write)
    # Diagonal sliders.
    b = st[ply, piece_of(us, BISHOP)] | st[ply, piece_of(us, QUEEN)]
    while b:
        frm = lsb(b)
        bb = U1 << np.uint64(frm)
        b &= b - U1
        t = bishop_attacks(frm, occ) & target_nc
        if pinned & bb:
            t &= LINE[ksq, frm]
        n = _emit_from(moves, n, frm, t, write)
    # Orthogonal sliders.
    b = st[ply, piece_of(us, ROOK)] | st[ply, piece_of(us, QUEEN)]
    while b:
        frm = lsb(b)
        bb = U1 << np.uint64(frm)
        b &= b - U1
        t = rook_attacks(frm, occ) & target_nc
        if pinned & bb:
            t &= LINE[ksq, frm]
        n = _emit_from(moves, n, frm, t, write)

    # Pawns: unpinned ones set-wise by shifts, pinned ones one by one.
    pawns = st[ply, piece_of(us, PAWN)]
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
    if noisy_only:
        single &= last
        double = U0
    capl = _shift(free & NOT_FILE_A, left) & opp & target
    capr = _shift(free & NOT_FILE_H, right) & opp & target
    if quiet:
        single &= ~last
        capl = U0
        capr = U0
    n = _emit_pawns(moves, n, single & ~last, up, write)
    n = _emit_pawns(moves, n, double, 2 * up, write)
    n = _emit_pawns(moves, n, capl & ~last, left, write)
    n = _emit_pawns(moves, n, capr & ~last, right, write)
    if (single | capl | capr) & last:
        n = _emit_promos(moves, n, single & last, up, write)
        n = _emit_promos(moves, n, capl & last, left, write)
        n = _emit_promos(moves, n, capr & last, right, write)
    if not chk:
        pp = pawns & pinned
        while pp:
            frm = lsb(pp)
            pp &= pp - U1
            bb = U1 << np.uint64(frm)
            line = LINE[ksq, frm]
            s1 = _shift(bb, up) & empty & line
            if noisy_only:
                s1 &= last
            d1 = _shift(s1 & rank3, up) & empty
            cp = PAWN_ATTACKS[us, frm] & opp & line
            if quiet:
                s1 &= ~last
                cp = U0
            if (s1 | cp) & last:
                n = _emit_promos(moves, n, s1, up, write)
                while cp:
                    to = lsb(cp)
                    cp &= cp - U1
                    if write:
                        for f in range(4):
                            moves[n + f] = frm | (to << 6) | ((FLAG_PROMO + f) << 12)
                    n += 4
            else:
                n = _emit_from(moves, n, frm, s1 | d1 | cp, write)

    # En passant: full test of the position after the capture.
    ep = np.int64(st[ply, EP])
    if ep != NO_SQ and not quiet:
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
                    moves[n] = frm | (ep << 6) | (FLAG_EP << 12)
                n += 1

    # Castling (Chess960 aware): king takes own rook.
    rights = np.int64(st[ply, CASTLE]) >> (2 * us) & 3
    if rights and not chk and not noisy_only:
        for side in range(2):
            if not (rights >> side & 1):
                continue
            r = 2 * us + side
            rsq = np.int64(st[ply, ROOK_SQ + r])
            rbb = U1 << np.uint64(rsq)
            kto = CASTLE_KING_TO[r]
            rto = CASTLE_ROOK_TO[r]
            ktobb = U1 << np.uint64(kto)
            path = (BETWEEN[ksq, kto] | ktobb | BETWEEN[rsq, rto] | (U1 << np.uint64(rto))) & ~(kbb | rbb)
            if path & occ:
                continue
            ok = True
            walk = BETWEEN[ksq, kto]
            while walk:
                s = lsb(walk)
                walk &= walk - U1
                if ((PAWN_ATTACKS[us, s] & t_p) | (KNIGHT_ATTACKS[s] & t_n) | (KING_ATTACKS[s] & t_k)
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
                moves[n] = ksq | (rsq << 6) | (FLAG_CASTLE << 12)
            n += 1
    return n


@njit(cache=True)
def generate_legal(st, ply, moves):
    """Write the legal moves of row ``ply`` into ``moves`` (int32[>=256]); return the count."""
    return _generate(st, ply, moves, True, ALL_MOVES)


@njit(cache=True)
def count_legal(st, ply, moves):
    """Number of legal moves of row ``ply`` by popcount of target sets (perft bulk counting).

    ``moves`` (int32[:]) is any move buffer: it is not written, it only fixes the signature."""
    return _generate(st, ply, moves, False, ALL_MOVES)


@njit(cache=True)
def generate_noisy(st, ply, moves):
    """Legal captures, en passant and promotions of row ``ply`` (all evasions when in check)
    into ``moves`` (int32[>=256]); returns the count. For quiescence search."""
    return _generate(st, ply, moves, True, NOISY_MOVES)


@njit(cache=True)
def generate_quiet(st, ply, moves):
    """Legal quiet moves of row ``ply``, which must not be in check: non-capturing
    non-promotions and castling, into ``moves`` (int32[>=256]); returns the count. With
    :func:`generate_noisy` it partitions :func:`generate_legal` (the staged move picker)."""
    return _generate(st, ply, moves, True, QUIET_MOVES)
