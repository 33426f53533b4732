"""One self-play game for ``uci-engine datagen`` (plain Python over the compiled search): a book
opening plus random plies vetted by a short search, then node-limited searches (the limit
checked at every node, as ``go nodes``) from a cleared TT until the rules, a tablebase or an
adjudication end the game; its kept positions come out as text lines
(:mod:`uci_engine.dataformat`) or the game as a compact record (:mod:`uci_engine.gamerecord`).
:mod:`uci_engine.datagen` runs many of them into a file.
"""
import os

import numpy as np

from .dataformat import format_line
from .gamerecord import SCORE_NONE, encode_game

#: plies of the game after which an equal position can be adjudicated a draw
DRAW_ADJ_PLY = 80
#: |score| (centipawns) at or below which a ply counts towards the draw adjudication
DRAW_ADJ_SCORE = 10
#: consecutive plies within DRAW_ADJ_SCORE that end the game as a draw
DRAW_ADJ_PLIES = 10
#: |score| (centipawns) at or above which a ply counts towards the win adjudication
WIN_ADJ_SCORE = 2000
#: consecutive plies at or beyond WIN_ADJ_SCORE (same side winning) that end the game
WIN_ADJ_PLIES = 4
#: random legal plies played after the book position (inclusive range)
RANDOM_PLIES = (4, 8)
#: an opening whose short search scores beyond this (centipawns) is dropped
OPENING_MAX_SCORE = 400
#: nodes of the short search that vets an opening
OPENING_NODES = 1000
#: openings tried for one game before giving up (RuntimeError)
MAX_OPENING_TRIES = 1000
#: a game still running at this ply is ended as a draw (never reached in practice)
MAX_GAME_PLIES = 800
#: transposition table per worker (MiB); enough for 20,000-node searches
DATAGEN_HASH_MIB = 16
#: output formats: one text line per kept position, or binary game records
FORMATS = ("text", "records")


def game_seed(seed, game):
    """The 64-bit seed (int) of game number ``game`` (int) of a run seeded with ``seed``."""
    return int(np.random.SeedSequence([int(seed), int(game)]).generate_state(1, np.uint64)[0])


def read_book(path):
    """FENs (list of str) of an EPD or FEN file, one position per line; blank lines and lines
    starting with ``#`` are skipped. Raises ``OSError`` or ``ValueError`` (empty file)."""
    fens = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            fields = line.split()
            if not fields or fields[0].startswith("#"):
                continue
            if len(fields) >= 6 and fields[4].isdigit() and fields[5].isdigit():
                fens.append(" ".join(fields[:6]))
            else:
                fens.append(" ".join(fields[:4]) + " 0 1")
    if not fens:
        raise ValueError(f"no positions in {path}")
    return fens


class Settings:
    """What a run plays: node limit per move (``nodes``, checked inside the search), master
    ``seed``, book FENs (``book``; empty = the start position), ``syzygy`` directory or None,
    ``keep_noisy``, and the largest |score| (centipawns) of an accepted opening
    (``opening_max_score``) and the inclusive range of random plies after the book position
    (``random_plies``); ``eval_file`` an NNUE net file to evaluate with (None: the
    hand-crafted evaluation); ``fmt`` one of FORMATS; ``book_name`` (str) names the book in
    the sidecar. Raises OSError or ValueError for a net file that cannot be loaded or an
    unknown format."""

    def __init__(self, nodes=5000, seed=0, book=(), syzygy=None, keep_noisy=False,
                 opening_max_score=OPENING_MAX_SCORE, random_plies=RANDOM_PLIES, eval_file=None,
                 fmt="text", book_name=None):
        if fmt not in FORMATS:
            raise ValueError(f"format {fmt!r} is not one of {', '.join(FORMATS)}")
        self.fmt = fmt
        self.book_name = book_name
        self.eval_file = None
        self.net_digest = None
        self.net_sha256 = "hand-crafted"
        if eval_file is not None:
            import hashlib
            from .nnue_file import find_net, load_net
            self.eval_file = os.path.abspath(find_net(eval_file))
            load_net(self.eval_file)                  # fail here, not in every worker
            with open(self.eval_file, "rb") as fh:
                data = fh.read()
            self.net_digest = hashlib.blake2b(data, digest_size=8).hexdigest()
            self.net_sha256 = hashlib.sha256(data).hexdigest()
        self.opening_max_score = int(opening_max_score)
        self.random_plies = tuple(int(x) for x in random_plies)
        self.nodes = int(nodes)
        self.seed = int(seed)
        self.book = list(book)
        self.syzygy = syzygy
        self.keep_noisy = bool(keep_noisy)


class GamePlayer:
    """Plays self-play games in one process. Import after backend selection."""

    def __init__(self, settings):
        from . import backend
        from .fen import STARTPOS
        from .kernels import position as P
        from .kernels import draw
        from .kernels import state as S
        from .kernels.bitboard import NO_PIECE
        from .uci import configured_engine
        self.P, self.S, self.NO_PIECE, self.draw = P, S, NO_PIECE, draw
        self.startpos = STARTPOS
        self.s = settings
        # through the UCI option table, as setoption would: without --eval-file the
        # hand-crafted evaluation plays, whatever the engine's default
        evaluation = ([f"EvalFile={settings.eval_file}", "Use NNUE=true"]
                      if settings.eval_file is not None else ["Use NNUE=false"])
        self.engine = configured_engine([f"Hash={DATAGEN_HASH_MIB}"] + evaluation,
                                        backend.selected())
        self.tb = None
        if settings.syzygy:
            from .syzygy import Tablebases
            self.tb = Tablebases()            # the engine's compiled WDL prober
            self.tb.load(settings.syzygy)     # TablebaseError (a ValueError): no tables
            self.tb_pieces = self.tb.max_pieces

    # --- one game --------------------------------------------------------------------------
    def _search(self, nodes):
        """Search the current position to ``nodes`` nodes (``go nodes``: the limit is checked
        at every node, and an iteration cut short keeps what its finished root moves proved);
        returns ``(move, score)``, the score in centipawns from the side to move's view."""
        from .timeman import Limits
        eng = self.engine
        eng.search(Limits(nodes=nodes))
        return eng.last_move, eng.last_score

    def _opening(self, rng):
        """Set up a vetted opening on the engine; returns the number of plies played from the
        book position (the random plies) or None if this attempt failed."""
        eng = self.engine
        fen = self.s.book[rng.integers(len(self.s.book))] if self.s.book else self.startpos
        eng.set_position(fen, [])
        # plies: (move, White's-view score or SCORE_NONE) of every ply, for the game record
        self.game = {"fen": fen, "moves": [], "plies": []}
        lo, hi = self.s.random_plies
        for _ in range(int(rng.integers(lo, hi + 1))):
            moves = eng.legal_moves()
            if not moves:
                return None
            self._push(moves[int(rng.integers(len(moves)))])
        if not eng.legal_moves():
            return None
        eng.clear()
        _, score = self._search(OPENING_NODES)
        if score is None or abs(score) > self.s.opening_max_score:
            return None
        return True

    def _push(self, m, score=SCORE_NONE):
        self.game["moves"].append(self.engine.move_to_uci(m))
        self.game["plies"].append((int(m), score))
        self.engine.push(m)

    def _rules_result(self):
        """``(result, reason)`` if the game is over by the rules at the current position, else
        None; result from White's view (1.0, 0.5, 0.0)."""
        eng, P = self.engine, self.P
        st, row = eng.st, eng.root
        stm = int(st[row, P.STM])
        if not eng.legal_moves():
            if eng.checkers():
                return (0.0 if stm == 0 else 1.0), "checkmate"   # side to move is mated
            return 0.5, "stalemate"
        half = int(st[row, P.HALFMOVE])
        if half >= 100:
            return 0.5, "fifty moves"
        key = st[row, P.KEY]
        reps = 0
        i = row - 2
        while i >= max(0, row - half):
            if st[i, P.KEY] == key:
                reps += 1
                if reps >= 2:
                    return 0.5, "threefold repetition"
            i -= 2
        if self.draw.is_draw(st, np.int64(row), np.int64(row)):
            # neither fifty moves nor threefold (tested above): insufficient material
            return 0.5, "insufficient material"
        return None

    def _tb_result(self):
        """``(result, "tablebase")`` (White's view) for the current position, or None when it
        has too many pieces or castling rights, or no table covers it."""
        eng, P = self.engine, self.P
        row = eng.root
        if int(eng.st[row, P.OCC_ALL]).bit_count() > self.tb_pieces or int(eng.st[row, P.CASTLE]):
            return None
        import chess
        try:
            wdl = self.tb.probe_wdl(chess.Board(eng.fen()))
        except KeyError:
            return None
        stm = int(eng.st[row, P.STM])
        if wdl == 2:
            return (1.0 if stm == 0 else 0.0), "tablebase"
        if wdl == -2:
            return (0.0 if stm == 0 else 1.0), "tablebase"
        return 0.5, "tablebase"              # draw, or cursed / blessed by the 50-move rule

    def _noisy(self, m):
        P = self.P
        flag = P.move_flag(m)
        if flag == P.FLAG_EP or flag >= P.FLAG_PROMO:
            return True
        to = P.move_to(m)
        return flag != P.FLAG_CASTLE and int(self.engine.mb[self.engine.root, to]) != self.NO_PIECE

    def play(self, game):
        """Play game number ``game`` (int); returns its output lines (list of str, no newline)
        and the result (float, White's view). ``self.game`` then holds the book FEN, every
        move played from it (UCI, random plies included), the result and the reason, and
        ``searched`` and ``nodes``: the searches of the game after its opening and their
        nodes."""
        rng = np.random.default_rng(game_seed(self.s.seed, game))
        for _ in range(MAX_OPENING_TRIES):
            if self._opening(rng) is not None:
                break
        else:
            raise RuntimeError(f"no playable opening in {MAX_OPENING_TRIES} tries: every "
                               f"one was over or scored beyond {self.s.opening_max_score} cp")
        eng, P, S = self.engine, self.P, self.S
        eng.clear()
        kept = []                                          # (fen, white-view score)
        scores = self.game["scores"] = []                  # every searched ply, White's view
        searched = nodes = 0
        win_run = draw_run = 0
        win_sign = 0
        result = None
        reason = "ply limit"
        for _ in range(MAX_GAME_PLIES):
            over = self._rules_result()
            if over is None and self.tb is not None:
                over = self._tb_result()
            if over is not None:
                result, reason = over
                break
            row = eng.root
            stm = int(eng.st[row, P.STM])
            move, score = self._search(self.s.nodes)
            searched += 1
            nodes += eng.last_nodes
            white = score if stm == 0 else -score
            scores.append(white)
            mate = abs(score) >= S.MATE_BOUND
            in_check = eng.checkers() != 0
            if not in_check and not mate and (self.s.keep_noisy or not self._noisy(move)):
                kept.append((eng.fen(), white))
            # adjudication (chessprogramming wiki "Adjudication"; cutechess's resign/draw rules)
            sign = 1 if white > 0 else -1
            if mate or abs(white) >= WIN_ADJ_SCORE:
                win_run = win_run + 1 if sign == win_sign else 1
                win_sign = sign
            else:
                win_run = 0
            draw_run = draw_run + 1 if abs(white) <= DRAW_ADJ_SCORE else 0
            ply = 2 * (int(eng.st[row, P.FULLMOVE]) - 1) + stm
            if win_run >= WIN_ADJ_PLIES:
                result, reason = (1.0 if win_sign > 0 else 0.0), "win adjudication"
            elif ply >= DRAW_ADJ_PLY and draw_run >= DRAW_ADJ_PLIES:
                result, reason = 0.5, "draw adjudication"
            if result is not None:
                # the record keeps the searched position and its best move, not played
                self.game["plies"].append((int(move), white))
                break
            self._push(move, white)
        if result is None:
            result = 0.5
        self.game.update(result=result, reason=reason, searched=searched, nodes=nodes)
        return [format_line(fen, score, result) for fen, score in kept], result

    def play_output(self, game):
        """Play game number ``game``; returns ``(output, positions, result, searched,
        nodes)``: the text to append (str, lines with newlines) or the game record (bytes,
        :mod:`uci_engine.gamerecord`) as ``Settings.fmt`` says, the number of kept positions,
        the result (White's view), and the game's searches after its opening and their nodes
        (the node budget's use)."""
        lines, result = self.play(game)
        stats = (len(lines), result, self.game["searched"], self.game["nodes"])
        if self.s.fmt == "records":
            return (encode_game(self.game["fen"], self.game["plies"], result), *stats)
        return ("".join(line + "\n" for line in lines), *stats)


# --- workers -----------------------------------------------------------------------------------
