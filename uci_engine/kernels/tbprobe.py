"""Syzygy WDL probing compiled for the search: index computation, pairs (Huffman) decompression
and the capture resolution of ``.rtbw`` tables, reading the memory-mapped files directly.

The tables come from :mod:`uci_engine.tbfiles`, which memory-maps every ``.rtbw`` file
(``numpy.memmap``; only the header and the symbol tables are read at load time) and packs
what its header says into one int64 array ``tb`` (layout in :mod:`.tbformat`). The kernels read table bytes
through the file's mapped address (``T_ADDR``) with a bounds check against its size
(``T_SIZE``) on every read, so a corrupt file can make a probe fail but never read outside its
mapping.

The technique is the Syzygy format as python-chess's ``chess/syzygy.py`` (``WdlTable``,
``Table.encode_piece``, ``encode_pawn``, ``decompress_pairs``, ``Tablebase.probe_ab`` and
``probe_wdl``) and Stockfish's ``src/syzygy/tbprobe.cpp`` (``do_probe_table``,
``decompress_pairs``, ``search``/``probe_wdl``) read it:

* a position is looked up by its material (:func:`material_key`) and, when the table stores
  the other colour as its first side, colour-mirrored (pieces swap colours, ranks flip);
* the squares of the table's pieces, in the table's order, are reduced by the board's
  symmetries (file mirror, rank mirror and diagonal flip for pawnless tables, file mirror
  and the leading pawn's file for pawn tables) and combined into an index (``_encode_piece``,
  ``_encode_pawn``);
* the index selects a block and a position inside it; the block is decoded with a canonical
  Huffman code over "pairs" symbols, each symbol standing for a run of values
  (``_decompress``);
* the stored value is the WDL after the best capture only where no capture does better, so
  every probe first searches the captures (``_probe_ab``) and en passant (:func:`probe_wdl`).

Results are WDL values -2 (loss) .. 2 (win) for the side to move, 1 / -1 for a win / loss the
fifty-move rule spoils (cursed win, blessed loss), or :data:`TB_FAIL` when a table is missing
or a read fails (out of bounds, a symbol or value out of range); a table whose probe failed
for corruption gets ``T_ENABLED = 0`` and ``H_ERRORS`` counts it, so the caller can report it.

The DTZ prober (:mod:`.tbdtz`) reads ``.rtbz`` tables with the same functions: :func:`_locate`
finds a table and indexes a position for both kinds, :func:`_decompress` decodes both.
"""
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from .bitboard import U0, U1, lsb, popcount, NO_SQ, PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING
from .movegen import generate_noisy, generate_legal
from .position import OCC, OCC_ALL, STM, EP, FLAG_EP, move_to, move_flag, make_move

from .tbformat import (TB_FAIL, H_CARD, H_DEPTH, H_RULE50, H_NKEYS, H_KEYS, H_ERRORS, H_TABLES,  # noqa: F401
                       T_ADDR, T_SIZE, T_NUM, T_HAS_PAWNS, T_PAWNS0, T_PAWNS1, T_ENC,
                       T_SYMMETRIC, T_KEY, T_ENTRY, T_ENABLED, T_LEAD, TREC_LEN, E_PIECES,
                       E_NORM, E_FACTOR, E_TBSIZE, E_CONST, E_IDXBITS, E_BLOCKSIZE, E_MINLEN,
                       E_MAXLEN, E_INDEX, E_NINDEX, E_SIZES, E_NBLOCKS, E_REALBLOCKS, E_DATA,
                       E_OFFSET, E_SYMPAT, E_NSYMS, E_BASE, E_SYMLEN, EREC_LEN, TRIANGLE, LOWER,
                       DIAG, FLAP, PTWIST, FILE_TO_FILE, KK_IDX, BINOM, PAWNIDX)

# --- raw reads from a mapped file ------------------------------------------------------------
@intrinsic
def _peek_u8(typingctx, addr):
    """Load the byte at address ``addr`` (int64); the caller checks the bounds."""
    sig = types.uint8(types.int64)

    def codegen(context, builder, signature, args):
        ptr = builder.inttoptr(args[0], ir.IntType(8).as_pointer())
        return builder.load(ptr)

    return sig, codegen


@njit(cache=True, nogil=True)
def _u8(addr, size, off):
    """Byte at file offset ``off`` (int64 0..255), -1 when outside the file."""
    if off < 0 or off >= size:
        return np.int64(-1)
    return np.int64(_peek_u8(addr + off))


@njit(cache=True, nogil=True)
def _u16(addr, size, off):
    """Little-endian uint16 at ``off`` (int64), -1 when outside the file."""
    if off < 0 or off + 2 > size:
        return np.int64(-1)
    return np.int64(_peek_u8(addr + off)) | (np.int64(_peek_u8(addr + off + 1)) << 8)


@njit(cache=True, nogil=True)
def _u32(addr, size, off):
    """Little-endian uint32 at ``off`` (int64), -1 when outside the file."""
    if off < 0 or off + 4 > size:
        return np.int64(-1)
    v = np.int64(0)
    for i in range(4):
        v |= np.int64(_peek_u8(addr + off + i)) << (8 * i)
    return v


@njit(cache=True, nogil=True)
def _u32be(addr, size, off):
    """Big-endian uint32 at ``off`` (int64), -1 when outside the file."""
    if off < 0 or off + 4 > size:
        return np.int64(-1)
    v = np.int64(0)
    for i in range(4):
        v = (v << 8) | np.int64(_peek_u8(addr + off + i))
    return v


# --- index computation ----------------------------------------------------------------------
@njit(cache=True, nogil=True)
def _offdiag(sq):
    return (sq >> 3) - (sq & 7)


@njit(cache=True, nogil=True)
def _flipdiag(sq):
    return ((sq >> 3) | (sq << 3)) & 63


@njit(cache=True, nogil=True)
def _sort_up(pos, lo, hi):
    for j in range(lo, hi):
        for k in range(j + 1, hi):
            if pos[j] > pos[k]:
                t = pos[j]
                pos[j] = pos[k]
                pos[k] = t


@njit(cache=True, nogil=True)
def _groups(tb, e, pos, i, n, idx, below):
    """Add the index of the piece groups from ``i`` to ``n`` (each group: identical pieces,
    placed as a combination of the squares the earlier pieces leave free); ``below`` is 8 for
    the second colour's pawns (ranks 2-7), else 0."""
    while i < n:
        t = tb[e + E_NORM + i]
        if t <= 0 or i + t > n:
            return np.int64(-1)
        _sort_up(pos, i, i + t)
        s = np.int64(0)
        for m in range(i, i + t):
            p = pos[m]
            j = 0
            for k in range(i):
                j += pos[k] < p
            x = p - j - below
            if x >= 0:
                s += BINOM[x, m - i + 1]
        idx += s * tb[e + E_FACTOR + i]
        i += t
    return idx


@njit(cache=True, nogil=True)
def _encode_piece(tb, e, enc, pos, n):
    """Index of the pawnless placement ``pos[:n]`` (squares in the entry's piece order;
    python-chess encode_piece for enc 0 and 2). -1 for an impossible placement."""
    if pos[0] & 4:
        for i in range(n):
            pos[i] ^= 7
    if pos[0] & 0x20:
        for i in range(n):
            pos[i] ^= 0x38
    lim = 3 if enc == 0 else 2
    for i in range(n):
        od = _offdiag(pos[i])
        if od != 0:
            if i < lim and od > 0:
                for k in range(n):
                    pos[k] = _flipdiag(pos[k])
            break
    if enc == 0:
        i = np.int64(pos[1] > pos[0])
        j = np.int64(pos[2] > pos[0]) + np.int64(pos[2] > pos[1])
        if _offdiag(pos[0]):
            idx = TRIANGLE[pos[0]] * 63 * 62 + (pos[1] - i) * 62 + (pos[2] - j)
        elif _offdiag(pos[1]):
            idx = 6 * 63 * 62 + DIAG[pos[0]] * 28 * 62 + LOWER[pos[1]] * 62 + pos[2] - j
        elif _offdiag(pos[2]):
            idx = (6 * 63 * 62 + 4 * 28 * 62 + DIAG[pos[0]] * 7 * 28
                   + (DIAG[pos[1]] - i) * 28 + LOWER[pos[2]])
        else:
            idx = (6 * 63 * 62 + 4 * 28 * 62 + 4 * 7 * 28 + DIAG[pos[0]] * 7 * 6
                   + (DIAG[pos[1]] - i) * 6 + (DIAG[pos[2]] - j))
        start = 3
    else:
        idx = KK_IDX[TRIANGLE[pos[0]], pos[1]]
        if idx < 0:
            return np.int64(-1)
        start = 2
    return _groups(tb, e, pos, start, n, idx * tb[e + E_FACTOR], 0)


@njit(cache=True, nogil=True)
def _encode_pawn(tb, e, pos, n, pawns0, pawns1):
    """Index of the placement ``pos[:n]`` of a pawn table (leading pawns first; python-chess
    encode_pawn)."""
    if pos[0] & 4:
        for i in range(n):
            pos[i] ^= 7
    for i in range(1, pawns0):
        for j in range(i + 1, pawns0):
            if PTWIST[pos[i]] < PTWIST[pos[j]]:
                t = pos[i]
                pos[i] = pos[j]
                pos[j] = t
    t = pawns0 - 1
    idx = PAWNIDX[t, FLAP[pos[0]]]
    for i in range(t, 0, -1):
        idx += BINOM[PTWIST[pos[i]], t - i + 1]
    idx *= tb[e + E_FACTOR]
    i = pawns0
    if pawns1 > 0:
        # the other colour's pawns: one group, on the 48 squares of ranks 2-7
        end = i + pawns1
        _sort_up(pos, i, end)
        s = np.int64(0)
        for m in range(i, end):
            p = pos[m]
            j = 0
            for k in range(i):
                j += pos[k] < p
            x = p - j - 8
            if x < 0:
                return np.int64(-1)
            s += BINOM[x, m - i + 1]
        idx += s * tb[e + E_FACTOR + i]
        i = end
    return _groups(tb, e, pos, i, n, idx, 0)


# --- decompression ----------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def _decompress(tb, addr, size, e, idx):
    """The stored value (int64) of position ``idx`` of entry ``e`` (pairs decompression:
    python-chess decompress_pairs, tbprobe.cpp decompress_pairs), -1 when a read leaves the
    file or a symbol is out of range."""
    if tb[e + E_CONST]:
        return tb[e + E_MINLEN]
    if idx < 0 or idx >= tb[e + E_TBSIZE]:
        return np.int64(-1)
    idxbits = tb[e + E_IDXBITS]
    mainidx = idx >> idxbits
    if mainidx >= tb[e + E_NINDEX]:
        return np.int64(-1)
    litidx = (idx & ((np.int64(1) << idxbits) - 1)) - (np.int64(1) << (idxbits - 1))
    ie = tb[e + E_INDEX] + 6 * mainidx
    block = _u32(addr, size, ie)
    off = _u16(addr, size, ie + 4)
    if block < 0 or off < 0:
        return np.int64(-1)
    litidx += off
    nblocks = tb[e + E_NBLOCKS]
    sizes = tb[e + E_SIZES]
    if block >= nblocks:
        return np.int64(-1)
    if litidx < 0:
        while litidx < 0:
            block -= 1
            if block < 0:
                return np.int64(-1)
            litidx += _u16(addr, size, sizes + 2 * block) + 1
    else:
        while True:
            bs = _u16(addr, size, sizes + 2 * block)
            if bs < 0:
                return np.int64(-1)
            if litidx <= bs:
                break
            litidx -= bs + 1
            block += 1
            if block >= nblocks:
                return np.int64(-1)
    if block >= tb[e + E_REALBLOCKS]:
        return np.int64(-1)
    ptr = tb[e + E_DATA] + (block << tb[e + E_BLOCKSIZE])
    hi = _u32be(addr, size, ptr)
    lo = _u32be(addr, size, ptr + 4)
    if hi < 0 or lo < 0:
        return np.int64(-1)
    code = (np.uint64(hi) << np.uint64(32)) | np.uint64(lo)
    ptr += 8
    bitcnt = 0
    min_len = tb[e + E_MINLEN]
    max_len = tb[e + E_MAXLEN]
    base = tb[e + E_BASE]
    symlen = tb[e + E_SYMLEN]
    nsyms = tb[e + E_NSYMS]
    offset = tb[e + E_OFFSET]
    while True:
        ln = min_len
        while code < np.uint64(tb[base + ln - min_len]):
            ln += 1
            if ln > max_len:
                return np.int64(-1)
        first = _u16(addr, size, offset + 2 * (ln - min_len))
        if first < 0:
            return np.int64(-1)
        sym = first + np.int64((code - np.uint64(tb[base + ln - min_len])) >> np.uint64(64 - ln))
        if sym >= nsyms:
            return np.int64(-1)
        run = tb[symlen + sym] + 1
        if litidx < run:
            break
        litidx -= run
        code <<= np.uint64(ln)
        bitcnt += ln
        if bitcnt >= 32:
            bitcnt -= 32
            nxt = _u32be(addr, size, ptr)
            if nxt < 0:
                return np.int64(-1)
            code |= np.uint64(nxt) << np.uint64(bitcnt)
            ptr += 4
    # walk down the pair tree to the value at position litidx of the symbol's run
    sympat = tb[e + E_SYMPAT]
    while tb[symlen + sym] != 0:
        w = sympat + 3 * sym
        b0 = _u8(addr, size, w)
        b1 = _u8(addr, size, w + 1)
        b2 = _u8(addr, size, w + 2)
        if b0 < 0 or b1 < 0 or b2 < 0:
            return np.int64(-1)
        s1 = ((b1 & 0xF) << 8) | b0
        if s1 >= nsyms:
            return np.int64(-1)
        if litidx < tb[symlen + s1] + 1:
            sym = s1
        else:
            litidx -= tb[symlen + s1] + 1
            sym = (b2 << 4) | (b1 >> 4)
            if sym >= nsyms:
                return np.int64(-1)
    return _u8(addr, size, sympat + 3 * sym)


# --- probing ---------------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def material_key(st, row):
    """Material signature (int64) of row ``row``: per colour the counts of Q, R, B, N, P as
    octal digits, white's above black's (kings implied; 3 bits a count covers 7 pieces)."""
    k = np.int64(0)
    for c in range(2):
        m = np.int64(0)
        for t in (QUEEN, ROOK, BISHOP, KNIGHT, PAWN):
            m = m * 8 + popcount(st[row, c * 6 + t])
        k = k * 32768 + m
    return k


@njit(cache=True, nogil=True)
def _find_table(tb, key):
    """Table number of material ``key`` (binary search of the sorted keys), -1 if none."""
    lo = np.int64(0)
    hi = tb[H_NKEYS]
    keys = tb[H_KEYS]
    while lo < hi:
        mid = (lo + hi) >> 1
        if tb[keys + mid] < key:
            lo = mid + 1
        else:
            hi = mid
    if lo < tb[H_NKEYS] and tb[keys + lo] == key:
        return tb[keys + tb[H_NKEYS] + lo]
    return np.int64(-1)


@njit(cache=True, nogil=True)
def _fill(tb, st, row, code, cmirror, mirror, pos, i, n):
    """Append the squares (xor ``mirror``) of the pieces of python-chess piece ``code``
    (colour swapped by ``cmirror``) to ``pos`` from ``i``; returns the new count, -1 when the
    position does not match the table."""
    ptype = (code & 7) - 1
    colour = ((code ^ cmirror) >> 3) & 1
    if ptype < PAWN or ptype > KING:
        return np.int64(-1)
    bb = st[row, colour * 6 + ptype]
    if bb == U0:
        return np.int64(-1)
    while bb:
        if i >= n:
            return np.int64(-1)
        pos[i] = lsb(bb) ^ mirror
        i += 1
        bb &= bb - U1
    return i


@njit(cache=True, nogil=True)
def _locate(tb, st, row, pos, dtz):
    """Find the table of row ``row`` in ``tb`` and compute the position's index in it
    (python-chess ``_probe_wdl_table`` / ``_probe_dtz_table`` up to ``decompress_pairs``).

    Returns int64 ``(r, e, bside, idx)``: ``r`` the table record (-1: no table, or switched
    off); ``e`` the entry record used (for a DTZ array, ``dtz`` True, the file's one entry,
    side 0); ``bside`` 1 when the side to move is the table's second side; ``idx`` the index,
    -1 when the position does not fit the table's pieces (corrupt). ``pos``: int64 scratch of
    at least 8."""
    key = material_key(st, row)
    t = _find_table(tb, key)
    if t < 0:
        return np.int64(-1), np.int64(0), np.int64(0), np.int64(0)
    r = tb[H_TABLES] + t * TREC_LEN
    if tb[r + T_ENABLED] == 0:
        return np.int64(-1), np.int64(0), np.int64(0), np.int64(0)
    white = st[row, STM] == U0
    if tb[r + T_SYMMETRIC]:
        cmirror = 0 if white else 8
        mirror = 0 if white else 0x38
        bside = np.int64(0)
    elif key != tb[r + T_KEY]:
        cmirror = 8
        mirror = 0x38
        bside = np.int64(1 if white else 0)
    else:
        cmirror = 0
        mirror = 0
        bside = np.int64(0 if white else 1)
    eside = 0 if dtz else bside
    n = tb[r + T_NUM]
    ent = tb[r + T_ENTRY]
    if tb[r + T_HAS_PAWNS] == 0:
        e = ent + eside * EREC_LEN
        i = np.int64(0)
        while i < n:
            i = _fill(tb, st, row, tb[e + E_PIECES + i], cmirror, 0, pos, i, n)
            if i < 0:
                return r, e, bside, np.int64(-1)
        return r, e, bside, _encode_piece(tb, e, tb[r + T_ENC], pos, n)
    p0 = tb[r + T_PAWNS0]
    i = _fill(tb, st, row, tb[r + T_LEAD], cmirror, mirror, pos, 0, n)
    if i != p0:
        return r, ent, bside, np.int64(-1)
    for k in range(1, p0):                  # the leading pawn: least FLAP
        if FLAP[pos[0]] > FLAP[pos[k]]:
            x = pos[0]
            pos[0] = pos[k]
            pos[k] = x
    f = FILE_TO_FILE[pos[0] & 7]
    e = ent + (f * 2 + eside) * EREC_LEN
    while i < n:
        i = _fill(tb, st, row, tb[e + E_PIECES + i], cmirror, mirror, pos, i, n)
        if i < 0:
            return r, e, bside, np.int64(-1)
    return r, e, bside, _encode_pawn(tb, e, pos, n, p0, tb[r + T_PAWNS1])


@njit(cache=True, nogil=True)
def probe_table(tb, st, row, pos):
    """WDL (-2..2, int64) stored for row ``row`` in its table, without resolving captures
    (python-chess WdlTable._probe_wdl_table; valid only where no capture does better).
    ``pos``: int64 scratch of at least 8. TB_FAIL: missing or disabled table, corrupt data."""
    if st[row, OCC_ALL] == (st[row, KING] | st[row, 6 + KING]):
        return np.int64(0)                      # KvK
    r, e, bside, idx = _locate(tb, st, row, pos, False)
    if r < 0:
        return TB_FAIL
    if idx < 0:
        return _corrupt(tb, r)
    v = _decompress(tb, tb[r + T_ADDR], tb[r + T_SIZE], e, idx)
    if v < 0 or v > 4:
        return _corrupt(tb, r)
    return v - 2


@njit(cache=True, nogil=True)
def _corrupt(tb, r):
    """Switch table record ``r`` off and count the error; returns TB_FAIL."""
    if tb[r + T_ENABLED]:
        tb[r + T_ENABLED] = 0
        tb[H_ERRORS] += 1
    return TB_FAIL


@njit(cache=True, nogil=True)
def _probe_ab(tb, st, mb, row, mv, ply, pos, alpha, beta):
    """WDL of row ``row`` with the captures resolved: an alpha-beta search over captures
    (not en passant) that ends in the stored value (python-chess Tablebase.probe_ab,
    tbprobe.cpp search). Uses rows above ``row`` of ``st``/``mb`` and move buffers
    ``mv[ply:]``."""
    moves = mv[ply, 0]
    n = generate_noisy(st, row, moves)
    them = st[row, OCC + 1 - np.int64(st[row, STM])]
    for i in range(n):
        m = np.int64(moves[i])
        if move_flag(m) == FLAG_EP or (them >> np.uint64(move_to(m))) & U1 == U0:
            continue
        make_move(st, mb, row, m)
        v = _probe_ab(tb, st, mb, row + 1, mv, ply + 1, pos, -beta, -alpha)
        if v == TB_FAIL:
            return TB_FAIL
        v = -v
        if v > alpha:
            if v >= beta:
                return v
            alpha = v
    v = probe_table(tb, st, row, pos)
    if v == TB_FAIL:
        return TB_FAIL
    return alpha if alpha >= v else v


@njit(cache=True, nogil=True)
def probe_wdl(tb, st, mb, row, mv, ply, pos):
    """WDL (int64 -2..2, side to move) of row ``row`` as if reached by a zeroing move, or
    TB_FAIL (python-chess Tablebase.probe_wdl, tbprobe.cpp probe_wdl): the capture search,
    then en passant, which the tables do not store. The position must have no castling rights
    and at most the largest table's pieces. Scratch: rows above ``row`` of ``st``/``mb``
    (up to the number of pieces), ``mv[ply:ply + 8]`` (int32[rows, planes, 256]) and ``pos``
    (int64[>= 8])."""
    v = _probe_ab(tb, st, mb, row, mv, ply, pos, np.int64(-2), np.int64(2))
    if v == TB_FAIL or np.int64(st[row, EP]) == NO_SQ:
        return v
    v1 = ep_wdl(tb, st, mb, row, mv, ply, pos)
    if v1 == TB_FAIL:
        return TB_FAIL
    if v1 > -3:
        if v1 >= v:
            v = v1
        elif v == 0 and only_ep_legal(st, row, mv[ply, 0]):
            v = v1                  # en passant the only legal move(s): it must be played
    return v


@njit(cache=True, nogil=True)
def ep_wdl(tb, st, mb, row, mv, ply, pos):
    """Best WDL (int64 -2..2) the side to move of row ``row`` gets by an en-passant capture,
    -3 when it has none, TB_FAIL when a table is missing (python-chess probe_wdl/probe_dtz's
    en-passant step; the tables do not store en passant). Scratch as :func:`probe_wdl`."""
    moves = mv[ply, 0]
    n = generate_noisy(st, row, moves)
    v1 = np.int64(-3)
    for i in range(n):
        m = np.int64(moves[i])
        if move_flag(m) != FLAG_EP:
            continue
        make_move(st, mb, row, m)
        v0 = _probe_ab(tb, st, mb, row + 1, mv, ply + 1, pos, np.int64(-2), np.int64(2))
        if v0 == TB_FAIL:
            return TB_FAIL
        if -v0 > v1:
            v1 = -v0
    return v1


@njit(cache=True, nogil=True)
def only_ep_legal(st, row, moves):
    """True when every legal move of row ``row`` is an en-passant capture (``moves``:
    int32[>= 256] scratch)."""
    n = generate_legal(st, row, moves)
    for i in range(n):
        if move_flag(np.int64(moves[i])) != FLAG_EP:
            return False
    return True


@njit(cache=True, nogil=True)
def probe_many(tb, st, mb, rows, mv, pos, out):
    """probe_wdl of each row in ``rows`` (int64[n]) of ``st``/``mb`` into ``out`` (int64[n]);
    the rows need 8 free rows after the last (tests and the speed script)."""
    scratch = st.shape[0] - 8
    for k in range(rows.shape[0]):
        r = rows[k]
        for i in range(st.shape[1]):
            st[scratch, i] = st[r, i]
        for i in range(64):
            mb[scratch, i] = mb[r, i]
        out[k] = probe_wdl(tb, st, mb, scratch, mv, np.int64(0), pos)
