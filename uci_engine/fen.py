"""FEN and Shredder-FEN/X-FEN parsing and formatting into the kernels' state rows (plain Python).

Format: six space-separated fields (placement, side, castling, en passant, halfmove clock,
fullmove number); the last two may be omitted (defaults 0 and 1). Castling accepts ``KQkq``
(X-FEN: the outermost rook on that side of the king) and Shredder file letters ``A-H``/``a-h``
(Chess960; chessprogramming wiki "Forsyth-Edwards Notation", "Chess960").
"""
import numpy as np

from .kernels.bitboard import NO_PIECE, NO_SQ
from .kernels.attacks import PAWN_ATTACKS
from .kernels import position as P

STARTPOS = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
PIECE_CHARS = "PNBRQKpnbrqk"   # piece index (colour * 6 + type) -> FEN letter


def square_name(sq):
    """Algebraic name (str) of square ``sq`` (a1 = 0 ... h8 = 63)."""
    return "abcdefgh"[sq & 7] + str(sq // 8 + 1)


def _bad(field, msg):
    return ValueError(f"bad FEN {field}: {msg}")


def parse_fen(fen, st, mb, ply=0, chess960=False):
    """Parse ``fen`` (str) into row ``ply`` of ``st`` (uint64[N, STATE_LEN]) and ``mb``
    (int8[N, 64]). ``chess960`` forces Shredder-style castling output; file letters in the
    castling field switch it on too.

    Raises ``ValueError`` naming the bad field; on error the rows are left untouched."""
    if not isinstance(fen, str):
        raise _bad("string", "not a string")
    parts = fen.split()
    if len(parts) < 4 or len(parts) > 6:
        raise _bad("fields", f"expected 4 to 6 fields, got {len(parts)}")
    placement, side, castling, ep = parts[:4]
    row = np.zeros(P.STATE_LEN, dtype=np.uint64)
    box = np.full(64, NO_PIECE, dtype=np.int8)
    ranks = placement.split("/")
    if len(ranks) != 8:
        raise _bad("placement", f"expected 8 ranks, got {len(ranks)}")
    for i, rank in enumerate(ranks):
        r = 7 - i
        f = 0
        for ch in rank:
            if ch.isdigit():
                if ch in "09":
                    raise _bad("placement", f"bad digit {ch!r}")
                f += int(ch)
            elif ch in PIECE_CHARS:
                if f > 7:
                    raise _bad("placement", f"rank {r + 1} has more than 8 squares")
                p = PIECE_CHARS.index(ch)
                sq = r * 8 + f
                box[sq] = p
                row[p] |= np.uint64(1 << sq)
                f += 1
            else:
                raise _bad("placement", f"bad character {ch!r}")
        if f != 8:
            raise _bad("placement", f"rank {r + 1} has {f} squares")
    for c, name in ((0, "white"), (1, "black")):
        nk = bin(int(row[c * 6 + 5])).count("1")
        if nk != 1:
            raise _bad("placement", f"{name} has {nk} kings")
    if int(row[0] | row[6]) & 0xFF000000000000FF:
        raise _bad("placement", "pawn on the first or last rank")
    row[P.OCC] = np.bitwise_or.reduce(row[0:6])
    row[P.OCC + 1] = np.bitwise_or.reduce(row[6:12])
    row[P.OCC_ALL] = row[P.OCC] | row[P.OCC + 1]
    if side not in ("w", "b"):
        raise _bad("side to move", repr(side))
    us = 0 if side == "w" else 1
    row[P.STM] = us

    # castling
    rights = 0
    rook_sq = [NO_SQ] * 4
    shredder = False
    if castling != "-":
        if len(set(castling)) != len(castling):
            raise _bad("castling", f"repeated letter in {castling!r}")
        for ch in castling:
            color = 0 if ch.isupper() else 1
            back = 0 if color == 0 else 56
            kbb = int(row[color * 6 + 5])
            ksq = kbb.bit_length() - 1
            if ksq // 8 != (0 if color == 0 else 7):
                raise _bad("castling", f"{ch!r} but the king is not on its back rank")
            rooks = [sq for sq in range(back, back + 8) if int(row[color * 6 + 3]) >> sq & 1]
            u = ch.upper()
            if u == "K":
                cands = [s for s in rooks if s > ksq]
                rsq = max(cands) if cands else None
            elif u == "Q":
                cands = [s for s in rooks if s < ksq]
                rsq = min(cands) if cands else None
            elif "A" <= u <= "H":
                shredder = True
                rsq = back + ord(u) - ord("A")
                if rsq not in rooks:
                    rsq = None
            else:
                raise _bad("castling", f"bad character {ch!r}")
            if rsq is None:
                raise _bad("castling", f"{ch!r} has no rook to castle with")
            right = color * 2 + (0 if rsq > ksq else 1)
            if rights >> right & 1:
                raise _bad("castling", f"two rooks for one side in {castling!r}")
            rights |= 1 << right
            rook_sq[right] = rsq
    row[P.CASTLE] = rights
    for i in range(4):
        row[P.ROOK_SQ + i] = rook_sq[i]
    # standard chess unless the rooks/king are off their usual squares or letters were used
    standard = all(rook_sq[i] in (NO_SQ, (7, 0, 63, 56)[i]) for i in range(4)) and all(
        not (rights >> (2 * c) & 3) or int(row[c * 6 + 5]) == 1 << (4 + 56 * c) for c in (0, 1))
    row[P.CHESS960] = 1 if (chess960 or shredder or not standard) else 0

    # en passant: kept only when a pawn of the side to move attacks it (see position.py)
    epsq = NO_SQ
    if ep != "-":
        if len(ep) != 2 or ep[0] not in "abcdefgh" or ep[1] not in ("6" if us == 0 else "3"):
            raise _bad("en passant", repr(ep))
        sq = (ord(ep[0]) - 97) + (int(ep[1]) - 1) * 8
        pawn_sq = sq - 8 if us == 0 else sq + 8
        if box[pawn_sq] != (1 - us) * 6 or box[sq] != NO_PIECE:
            raise _bad("en passant", f"{ep} has no pawn that just moved two squares")
        if int(PAWN_ATTACKS[1 - us, sq]) & int(row[us * 6]):
            epsq = sq
    row[P.EP] = epsq

    try:
        half = int(parts[4]) if len(parts) > 4 else 0
        full = int(parts[5]) if len(parts) > 5 else 1
    except ValueError:
        raise _bad("move counters", repr(" ".join(parts[4:]))) from None
    if half < 0 or half > 10000:
        raise _bad("halfmove clock", str(half))
    if full < 0 or full > 100000:
        raise _bad("fullmove number", str(full))
    full = max(full, 1)  # some GUIs send 0
    row[P.HALFMOVE] = half
    row[P.FULLMOVE] = full
    row[P.LAST_MOVE] = 0
    row[P.CAPTURED] = NO_PIECE

    # the side not to move must not be in check
    from .kernels.position import checkers
    tmp = np.zeros((1, P.STATE_LEN), dtype=np.uint64)
    tmp[0] = row
    tmp[0, P.STM] = 1 - us
    if checkers(tmp, 0):
        raise _bad("placement", "the side not to move is in check")
    tmp[0, P.STM] = us
    if bin(int(checkers(tmp, 0))).count("1") > 2:
        raise _bad("placement", "more than two checkers")

    st[ply] = row
    mb[ply] = box
    st[ply, P.KEY] = P.compute_key(st, ply)


def format_fen(st, mb, ply=0):
    """FEN (str) of row ``ply``; castling as ``KQkq`` in standard chess, file letters in
    Chess960. The en-passant field shows a square only when a pawn can capture there (X-FEN)."""
    rows = []
    for r in range(7, -1, -1):
        s, empty = "", 0
        for f in range(8):
            p = int(mb[ply, r * 8 + f])
            if p == NO_PIECE:
                empty += 1
                continue
            if empty:
                s += str(empty)
                empty = 0
            s += PIECE_CHARS[p]
        rows.append(s + (str(empty) if empty else ""))
    row = st[ply]
    rights = int(row[P.CASTLE])
    cs = ""
    for i, std in enumerate("KQkq"):
        if rights >> i & 1:
            if int(row[P.CHESS960]):
                ch = "ABCDEFGH"[int(row[P.ROOK_SQ + i]) & 7]
                cs += ch if i < 2 else ch.lower()
            else:
                cs += std
    ep = int(row[P.EP])
    eps = "-" if ep == NO_SQ else square_name(ep)
    return (f"{'/'.join(rows)} {'wb'[int(row[P.STM])]} {cs or '-'} {eps} "
            f"{int(row[P.HALFMOVE])} {int(row[P.FULLMOVE])}")
