"""The game the engine plays (plain Python over the kernels): the position history as state rows,
moves in and out of UCI text, repetitions, the board for ``d``, and perft. Part of
:class:`uci_engine.engine.Engine`."""
import numpy as np

from ..fen import PIECE_CHARS, format_fen, parse_fen, square_name
from ..kernels import position as P
from ..kernels import state as SS
from ..kernels.bitboard import NO_PIECE
from ..kernels.movegen import generate_legal
from ..kernels.perft import perft

HISTORY_ROWS = 1024           # game plies kept below the search rows


def _legal(st, row):
    """The legal moves (list of int) of row ``row`` of ``st``."""
    buf = np.empty(256, dtype=np.int32)
    return [int(m) for m in buf[:generate_legal(st, row, buf)]]


class GameState:
    """The engine's position: ``st``/``mb`` rows (game history below ``root``, search rows
    above), ``chess960`` for castling notation, and the last ``position`` for incremental
    updates (a mixin of :class:`uci_engine.engine.Engine`)."""

    def set_position(self, fen, moves):
        """Set the position from ``fen`` (str) and a list of UCI move strings.

        Raises ``ValueError`` (bad FEN or illegal move); the old position is then kept.

        A GUI resends the whole game every move; when ``fen`` and the first moves are those of
        the current position, only the new moves are parsed and played (a 160-ply game took
        7 ms to replay, most of a 1+0.01 increment)."""
        key = (fen, self.chess960)
        last = self._game
        if last is not None and last[0] == key and len(moves) >= len(last[1]) \
                and moves[:len(last[1])] == last[1] \
                and self.root + len(moves) - len(last[1]) < self.st.shape[0] - SS.MAX_PLY - 8:
            # the rows above the root are search scratch: play the new moves there and move
            # the root only when every one of them is legal
            row = self.root
            for i, text in enumerate(moves[len(last[1]):], start=len(last[1])):
                m = self._parse_move(self.st, row, text)
                if m is None:
                    raise ValueError(f"illegal move {text!r} at index {i} in position command")
                P.make_move(self.st, self.mb, np.int64(row), np.int64(m))
                row += 1
            self.root = row
            self._game = (key, list(moves))
            return
        st, mb = P.new_stack(min(len(moves), HISTORY_ROWS - 1) + SS.MAX_PLY + 16)
        parse_fen(fen, st, mb, 0, chess960=self.chess960)
        row = 0
        for i, text in enumerate(moves):
            m = self._parse_move(st, row, text)
            if m is None:
                raise ValueError(f"illegal move {text!r} at index {i} in position command")
            if row + 1 >= st.shape[0] - SS.MAX_PLY - 8:
                keep = 128                      # enough rows for any repetition window
                st[:keep] = st[row - keep + 1:row + 1]
                mb[:keep] = mb[row - keep + 1:row + 1]
                row = keep - 1
            P.make_move(st, mb, row, np.int64(m))
            row += 1
        n = row + 1
        self.st[:n] = st[:n]
        self.mb[:n] = mb[:n]
        self.root = row
        self._game = (key, list(moves))

    def push(self, m):
        """Play move ``m`` (int, legal in the current position) on top of the current position,
        keeping the game history for repetition detection (self-play without re-parsing)."""
        if self.root + 1 >= self.st.shape[0] - SS.MAX_PLY - 8:
            keep = 128                          # enough rows for any repetition window
            self.st[:keep] = self.st[self.root - keep + 1:self.root + 1]
            self.mb[:keep] = self.mb[self.root - keep + 1:self.root + 1]
            self.root = keep - 1
        P.make_move(self.st, self.mb, np.int64(self.root), np.int64(m))
        self.root += 1
        self._game = None

    def fen(self):
        return format_fen(self.st, self.mb, self.root)

    def legal_moves(self, row=None):
        """The legal moves (list of int) at ``row`` (default: the current position)."""
        return _legal(self.st, self.root if row is None else row)

    def move_to_uci(self, m):
        """UCI text of move ``m`` (int): castling as king to g/c file, or king-takes-rook when
        UCI_Chess960 is on."""
        frm, to, flag = int(P.move_from(m)), int(P.move_to(m)), int(P.move_flag(m))
        if flag == P.FLAG_CASTLE and not self.chess960:
            to = (to & ~7) | (6 if to > frm else 2)
        s = square_name(frm) + square_name(to)
        if flag >= P.FLAG_PROMO:
            s += "nbrq"[flag - P.FLAG_PROMO]
        return s

    def _parse_move(self, st, row, text):
        """The legal move (int) of row ``row`` named by UCI ``text``, or None. Castling is
        accepted in both notations (king to g/c file, king takes rook); an alias never
        shadows the name of another legal move."""
        moves = _legal(st, row)
        names = {self.move_to_uci(m): m for m in moves}
        for m in moves:
            if P.move_flag(m) == P.FLAG_CASTLE:
                frm, to = int(P.move_from(m)), int(P.move_to(m))
                kto = (to & ~7) | (6 if to > frm else 2)
                names.setdefault(square_name(frm) + square_name(to), m)
                names.setdefault(square_name(frm) + square_name(kto), m)
        return names.get(text.strip())

    def parse_move(self, text):
        """The move (int) for UCI text in the current position, or None if illegal."""
        return self._parse_move(self.st, self.root, text)

    def checkers(self):
        return int(P.checkers(self.st, self.root))

    def material(self):
        """Material on the board (int, pawn units, both colours: P 1, N/B 3, R 5, Q 9), the
        input of the UCI_ShowWDL model (:mod:`uci_engine.wdl`)."""
        from ..wdl import material_of_counts
        row = self.st[self.root]
        return material_of_counts([int(row[t]).bit_count() + int(row[6 + t]).bit_count()
                                   for t in range(6)])

    def key(self):
        return int(self.st[self.root, P.KEY])

    def board_text(self):
        lines = []
        for r in range(7, -1, -1):
            cells = []
            for f in range(8):
                p = int(self.mb[self.root, r * 8 + f])
                cells.append(" " if p == NO_PIECE else PIECE_CHARS[p])
            lines.append(" +---+---+---+---+---+---+---+---+")
            lines.append(" | " + " | ".join(cells) + f" | {r + 1}")
        lines.append(" +---+---+---+---+---+---+---+---+")
        lines.append("   a   b   c   d   e   f   g   h")
        return lines

    def perft_divide(self, depth):
        """List of (uci_move, leaf_count) for each root move at ``depth`` plies (>= 1)."""
        st = self.st.copy()
        mb = self.mb.copy()
        row = np.int64(self.root)
        out = []
        for m in self.legal_moves():
            P.make_move(st, mb, row, np.int64(m))
            out.append((self.move_to_uci(m), int(perft(st, mb, row + 1, np.int64(depth - 1)))))
        return out

    def perft(self, depth):
        st = self.st.copy()
        mb = self.mb.copy()
        return int(perft(st, mb, np.int64(self.root), np.int64(depth)))

    def _repetitions(self, moves):
        """(repeated, threefold) for the root: ``repeated`` True if a position since the last
        zeroing move occurred before (Stockfish's ``has_repeated``), ``threefold`` the set of
        moves (int) of ``moves`` whose child position occurred twice before (Zobrist keys of the
        game rows, same side to move, back to the last zeroing move)."""
        st, root = self.st, self.root
        lo = root - min(int(st[root, P.HALFMOVE]), root)
        keys = [int(st[r, P.KEY]) for r in range(lo, root + 1)]
        repeated = any(keys[i] == keys[j] for i in range(len(keys))
                       for j in range(i - 2, -1, -2))
        threefold = set()
        for m in moves:
            P.make_move(st, self.mb, np.int64(root), np.int64(m))
            if int(st[root + 1, P.HALFMOVE]) != 0:
                key = int(st[root + 1, P.KEY])
                # rows with the child's side to move: root - 1, root - 3, ...
                if sum(1 for j in range(len(keys) - 2, -1, -2) if keys[j] == key) >= 2:
                    threefold.add(m)
        return repeated, threefold
