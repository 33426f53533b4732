"""One game between two engines, with the runner enforcing clocks and faults as cutechess does.

Faults and how they are scored (cutechess result strings / PGN ``Termination`` tags):

=====================================  ==========================================  ====================
fault                                   result comment                              Termination
=====================================  ==========================================  ====================
flag falls (time left + timemargin)     ``Black loses on time``                     ``time forfeit``
illegal or unparsable move              ``White makes an illegal move: e2e5``       ``illegal move``
process exits / pipe closes             ``Black disconnects``                       ``abandoned``
no answer to ``isready`` (stall timeout) ``White's connection stalls``              ``stalled connection``
=====================================  ==========================================  ====================

Before each ``go`` the runner pings the engine (``isready`` / xboard ``ping``) as cutechess
does, off the clock, and before a UCI engine's first move of a game it sends ``ucinewgame``
ahead of that ping; an engine that does not answer within the stall timeout is killed and
forfeits. An engine that overruns its clock forfeits at once; it is then sent ``stop`` and
must become responsive within the stall timeout after the game, else it is killed (and
restarted for the next game with ``-recover``).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as _dt
import logging
import re
import time
from dataclasses import dataclass, field

import chess
import chess.engine

from .args import DrawAdjudication, EngineSpec, ResignAdjudication
from .tc import Clock, TimeControl

__all__ = ["EngineInstance", "GameSettings", "GameRecord", "play_game", "EngineStartError",
           "FAULTS"]

LOG = logging.getLogger(__name__)

MATE_CP = 100000

# cutechess Chess::Result types
WIN, DRAW, RESIGNATION, TIMEOUT, ADJUDICATION, ILLEGAL, DISCONNECTION, STALLED, NORESULT = (
    "win", "draw", "resignation", "timeout", "adjudication", "illegal", "disconnection",
    "stalled", "noresult")

#: Result types that are a fault of the loser (cutechess forfeits): not resignation or adjudication.
FAULTS = frozenset({TIMEOUT, ILLEGAL, DISCONNECTION, STALLED})

TERMINATION_TAG = {
    TIMEOUT: "time forfeit",
    ILLEGAL: "illegal move",
    ADJUDICATION: "adjudication",
    DISCONNECTION: "abandoned",
    STALLED: "stalled connection",
    NORESULT: "unterminated",
}


def _edit_xboard_protocol():
    """An XBoard protocol for engines without ``setboard`` (e.g. Fairy-Max: ``setboard=0``,
    which python-chess rejects): positions are set up with the older ``edit`` command."""

    class EditXBoardProtocol(chess.engine.XBoardProtocol):
        no_setboard = False

        def _line_received(self, line: str) -> None:
            if line.startswith("feature") and "setboard=0" in line:
                self.no_setboard = True
                line = line.replace("setboard=0", "setboard=1")
            super()._line_received(line)

        def send_line(self, line: str) -> None:
            if self.no_setboard and line.startswith("setboard "):
                board = chess.Board(line[len("setboard "):])
                if board.turn == chess.BLACK:
                    super().send_line("a2a3")  # dummy move: edit keeps the side to move
                super().send_line("edit")
                super().send_line("#")
                for color in (chess.WHITE, chess.BLACK):
                    if color == chess.BLACK:
                        super().send_line("c")
                    for sq, piece in board.piece_map().items():
                        if piece.color == color:
                            super().send_line(piece.symbol().upper() + chess.square_name(sq))
                super().send_line(".")
                return
            super().send_line(line)

    return EditXBoardProtocol


class EngineStartError(RuntimeError):
    """The engine process could not be started or did not complete the protocol handshake."""


class EngineInstance:
    """A running engine process (UCI or XBoard) driven through ``chess.engine``."""

    def __init__(self, spec: EngineSpec, transport: asyncio.SubprocessTransport,
                 protocol: chess.engine.Protocol, stderr_fh=None):
        self.transport = transport
        self.protocol = protocol
        self._stderr_fh = stderr_fh
        self.dead = False
        self._take_spec(spec)

    def _take_spec(self, spec: EngineSpec) -> None:
        """Play as ``spec``: its name, else the engine's ``id name``, else the command's."""
        self.spec = spec
        name = self.protocol.id.get("name") if hasattr(self.protocol, "id") else None
        self.name = spec.name or name or spec.display_name()

    @classmethod
    async def start(cls, spec: EngineSpec, timeout_s: float = 35.0, warn=print) -> "EngineInstance":
        """Start the engine, finish the handshake within ``timeout_s`` seconds and apply its
        ``option.NAME=VALUE`` settings (unknown options are warned about, as cutechess does)."""
        popen = chess.engine.UciProtocol.popen if spec.proto == "uci" else _edit_xboard_protocol().popen
        stderr_fh = open(spec.stderr, "ab") if spec.stderr else None  # noqa: SIM115
        try:
            async def _open():
                transport, protocol = await popen(
                    spec.command(), setpgrp=True, cwd=spec.dir or None,
                    stderr=stderr_fh if stderr_fh else asyncio.subprocess.DEVNULL)
                try:
                    await protocol.initialize()
                except BaseException:
                    transport.close()
                    raise
                return transport, protocol

            transport, protocol = await asyncio.wait_for(_open(), timeout_s)
        except (OSError, chess.engine.EngineError, asyncio.TimeoutError) as err:
            if stderr_fh:
                stderr_fh.close()
            msg = "no answer to the protocol handshake" if isinstance(err, asyncio.TimeoutError) else err
            raise EngineStartError(f"cannot start engine {spec.display_name()} "
                                   f"({' '.join(spec.command())}): {msg}") from None
        inst = cls(spec, transport, protocol, stderr_fh)
        await inst.apply_options(timeout_s, warn)
        return inst

    async def apply_options(self, timeout_s: float = 35.0, warn=print) -> None:
        """Send the spec's ``option.NAME=VALUE`` settings (unknown options are warned about, as
        cutechess does). Raises EngineStartError, with the engine killed, when it does not
        answer or exits meanwhile."""
        for oname, value in self.spec.options.items():
            try:
                if oname not in self.protocol.options:
                    warn(f"Warning: {self.name} doesn't have option {oname}")
                    continue
                await asyncio.wait_for(self.protocol.configure({oname: value}), timeout_s)
            except chess.engine.EngineError as err:
                warn(f"Warning: invalid value for option {oname} of {self.name}: {err}")
            except (asyncio.TimeoutError, chess.engine.EngineTerminatedError) as err:
                await self.kill()
                raise EngineStartError(f"engine {self.name} failed while setting options: "
                                       f"{err!r}") from None

    async def reuse(self, spec: EngineSpec, timeout_s: float = 35.0, warn=print) -> None:
        """Take this running engine into a new match as ``spec`` (the same command, protocol,
        directory, stderr file and option names: :meth:`EngineKeeper.key`): the new spec's name
        and option values. Raises EngineStartError as :meth:`apply_options`."""
        self._take_spec(spec)
        await self.apply_options(timeout_s, warn)

    @property
    def alive(self) -> bool:
        """False once the process has exited or been killed."""
        return not self.dead and not self.protocol.returncode.done()

    async def ping(self, timeout_s: float) -> None:
        """``isready``/``ping``; raises ``asyncio.TimeoutError`` or ``EngineTerminatedError``."""
        await asyncio.wait_for(self.protocol.ping(), timeout_s)

    async def ready(self, game: object, timeout_s: float) -> None:
        """:meth:`ping` before a move of ``game``; a UCI engine's first move of a game is
        preceded by ``ucinewgame``, so that the ``readyok`` that settles it (an engine may clear
        tables or finish loading there) comes before the runner starts the clock, as cutechess
        syncs its players before a game starts. python-chess's ``play`` would otherwise send
        the pair itself inside the timed command: it is told that ``game`` has begun (its
        ``game`` and ``first_game`` fields, python-chess 1.10 and 1.11; without them it sends
        the pair as before). Raises as :meth:`ping`."""
        proto = self.protocol
        new_game = getattr(proto, "_ucinewgame", None)
        if (isinstance(proto, chess.engine.UciProtocol) and new_game is not None
                and (getattr(proto, "first_game", True) or getattr(proto, "game", None) != game)):
            proto.game = game
            new_game()
        await self.ping(timeout_s)

    async def kill(self) -> None:
        """Kill the process (no questions asked) and wait briefly for it to go."""
        self.dead = True
        with contextlib.suppress(Exception):
            self.transport.kill()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.shield(self.protocol.returncode), 5.0)
        self._close_stderr()

    async def quit(self, timeout_s: float = 5.0) -> None:
        """Ask the engine to quit; kill it if it has not exited after ``timeout_s`` seconds."""
        if self.alive:
            try:
                await asyncio.wait_for(self.protocol.quit(), timeout_s)
            except Exception:  # noqa: BLE001 - any failure: make sure it is gone
                pass
        if not self.protocol.returncode.done():
            await self.kill()
        self.dead = True
        self._close_stderr()

    def _close_stderr(self) -> None:
        if self._stderr_fh:
            with contextlib.suppress(Exception):
                self._stderr_fh.close()
            self._stderr_fh = None


@dataclass
class GameSettings:
    """Per-game rules: time controls per colour (``tc[True]`` = White), time margins in ms,
    adjudication, and the stall timeout in seconds."""

    tc: dict[bool, TimeControl]
    margin_ms: dict[bool, int]
    draw: DrawAdjudication | None = None
    resign: ResignAdjudication | None = None
    maxmoves: int | None = None
    stall_timeout_s: float = 15.0


@dataclass
class GameRecord:
    """The outcome of one game.

    ``result`` is "1-0", "0-1", "1/2-1/2" or "*"; ``reason`` the cutechess description (e.g.
    "White mates"); ``rtype`` the cutechess result type; ``board`` holds the start position and
    every move played (book moves first, ``book_plies`` of them) until :meth:`compact` keeps its
    start position only; ``comments`` maps each engine-played ply index to its PGN comment
    ("+0.25/12 0.52s") and ``times_ms`` the same plies to the milliseconds charged to the
    mover's clock (wall time from ``go`` to the move); ``lowest_clock_ms`` maps each colour to
    the least time (ms) its clock showed after a move, a flag fall included
    (:attr:`~uci_engine.tools.tc.Clock.lowest_ms`; None for ``tc=inf``); ``failed`` the colours
    whose engine instance died, stalled or had to be killed.
    """

    white: str
    black: str
    board: chess.Board
    book_plies: int
    result: str = "*"
    reason: str = "No result"
    rtype: str = NORESULT
    comments: dict[int, str] = field(default_factory=dict)
    times_ms: dict[int, float] = field(default_factory=dict)
    lowest_clock_ms: dict[bool, float | None] = field(default_factory=dict)
    failed: set[bool] = field(default_factory=set)
    start_time: _dt.datetime = field(default_factory=lambda: _dt.datetime.now(_dt.timezone.utc))
    end_time: _dt.datetime | None = None

    @property
    def termination(self) -> str | None:
        """PGN ``Termination`` tag value; None for a normal end (mate, draw rules, resign)."""
        return TERMINATION_TAG.get(self.rtype)

    @property
    def fault_loser(self) -> bool | None:
        """The colour (True = White) that lost by a fault (time, illegal move, disconnection,
        stall: :data:`FAULTS`), or None when the game ended otherwise."""
        if self.rtype not in FAULTS:
            return None
        return self.result == "0-1"

    def compact(self) -> None:
        """Keep only the start position in ``board``, dropping the move stack; the result, the
        comments, the move times and the clocks stay. The runner calls it once the game's PGN
        is written, since a match keeps every record: python-chess holds a board state and a
        move per ply, about 260 objects the garbage collector tracks in a 130-ply game, and
        with 1,500 full records one full collection took 0.23 s of CPU. The runner's event loop
        stops for it, and the time is charged to the engine whose move is in flight: in a
        long match at 5+0.05 that meant moves 0.2-0.5 s over their engine's hard limit and a
        loss on time (docs/faults.md, "Stalls of 0.2-0.5 s in a long match")."""
        self.board = self.board.root()

    def move_times_ms(self, color: bool) -> list[float]:
        """Milliseconds ``color``'s engine took for each of its moves, in game order (book moves
        excluded)."""
        first = self.board.root().turn
        return [ms for ply, ms in sorted(self.times_ms.items())
                if (ply % 2 == 0) == (first == color)]

    @property
    def verbose_result(self) -> str:
        """cutechess ``Result::toVerboseString``: ``1-0 {White mates}``."""
        return f"{self.result} {{{self.reason}}}"


def _side(color: bool) -> str:
    return "White" if color else "Black"


def _set_result(rec: GameRecord, rtype: str, winner: bool | None, reason: str) -> None:
    rec.rtype = rtype
    rec.result = "1/2-1/2" if winner is None else ("1-0" if winner else "0-1")
    rec.reason = reason


def _forfeit(rec: GameRecord, rtype: str, loser: bool, detail: str = "") -> None:
    who = _side(loser)
    reason = {
        TIMEOUT: f"{who} loses on time",
        ILLEGAL: f"{who} makes an illegal move" + (f": {detail}" if detail else ""),
        DISCONNECTION: f"{who} disconnects",
        STALLED: f"{who}'s connection stalls",
        RESIGNATION: f"{who} resigns",
    }[rtype]
    _set_result(rec, rtype, not loser, reason)


def board_result(board: chess.Board) -> tuple[str, bool | None, str] | None:
    """Rule-based end of game in cutechess order and wording, or None if the game goes on.

    Checkmate, stalemate, insufficient material, fifty-move rule (100 plies) and threefold
    repetition end the game automatically, as cutechess's ``Board::result`` does.
    """
    if board.is_checkmate():
        winner = not board.turn
        return WIN, winner, f"{_side(winner)} mates"
    if board.is_stalemate():
        return DRAW, None, "Draw by stalemate"
    if board.is_insufficient_material():
        return DRAW, None, "Draw by insufficient mating material"
    if board.halfmove_clock >= 100:
        return DRAW, None, "Draw by fifty moves rule"
    if board.is_repetition(3):
        return DRAW, None, "Draw by 3-fold repetition"
    return None


class Adjudicator:
    """cutechess ``GameAdjudicator``: draw and resign adjudication from engine scores (cp)."""

    def __init__(self, draw: DrawAdjudication | None, resign: ResignAdjudication | None,
                 maxmoves: int | None):
        self.draw = draw
        self.resign = resign
        self.maxmoves = maxmoves
        self.draw_count = 0
        self.resign_count = {True: 0, False: 0}
        self.win_count = {True: 0, False: 0}

    def add(self, board: chess.Board, mover: bool, score_cp: int | None) -> tuple[bool | None, str] | None:
        """Register the score of ``mover``'s move (already pushed on ``board``; ``None`` when the
        engine sent no score). Returns ``(winner, reason)`` when the game is adjudicated."""
        if self.maxmoves is not None and len(board.move_stack) >= 2 * self.maxmoves:
            return None, "Draw by adjudication"
        if score_cp is None:
            self.draw_count = 0
            self.resign_count[mover] = 0
            self.win_count[mover] = 0
            return None
        if self.draw is not None:
            self.draw_count = self.draw_count + 1 if abs(score_cp) <= self.draw.score else 0
            if len(board.move_stack) // 2 >= self.draw.movenumber and self.draw_count >= 2 * self.draw.movecount:
                return None, "Draw by adjudication"
        if self.resign is not None:
            self.resign_count[mover] = self.resign_count[mover] + 1 if score_cp <= -self.resign.score else 0
            self.win_count[mover] = self.win_count[mover] + 1 if score_cp >= self.resign.score else 0
            if self.resign_count[mover] >= self.resign.movecount and (
                    not self.resign.twosided or self.win_count[not mover] >= self.resign.movecount):
                winner = not mover
                return winner, f"{_side(winner)} wins by adjudication"
        return None


_MOVE_IN_ERROR = re.compile(r"'([^']*)'")


def _bad_move_text(err: Exception) -> str:
    """Extract the offending move text from python-chess's error message."""
    m = _MOVE_IN_ERROR.search(str(err))
    return m.group(1) if m else str(err).strip()


def _limit(clocks: dict[bool, Clock], side: bool, spec: EngineSpec, clock_id: object) -> chess.engine.Limit:
    """The ``go`` parameters for ``side`` (seconds, as python-chess wants them)."""
    tc = clocks[side].tc
    kwargs: dict = {}
    if spec.nodes:
        kwargs["nodes"] = spec.nodes
    if spec.plies:
        kwargs["depth"] = spec.plies
    if tc.infinite:
        return chess.engine.Limit(**kwargs)
    if tc.is_per_move:
        return chess.engine.Limit(time=tc.per_move_ms / 1000.0, clock_id=clock_id, **kwargs)
    wc, bc = clocks[True], clocks[False]
    kwargs.update(white_clock=max(wc.time_left_ms, 1) / 1000.0, black_clock=max(bc.time_left_ms, 1) / 1000.0,
                  white_inc=wc.tc.inc_ms / 1000.0, black_inc=bc.tc.inc_ms / 1000.0)
    if tc.moves:
        # UCI: movestogo; xboard: python-chess puts this into "level MPS BASE INC" (sent once
        # per game thanks to clock_id), where it must be the moves per period.
        kwargs["remaining_moves"] = clocks[side].moves_left if spec.proto == "uci" else tc.moves
    return chess.engine.Limit(clock_id=clock_id, **kwargs)


def _score_cp(info: dict) -> tuple[int | None, str]:
    """Engine's own score in centipawns (mates as +-100000 minus distance) and the PGN text."""
    score = info.get("score")
    depth = info.get("depth")
    if score is None:
        return None, ""
    rel = score.relative
    if rel.is_mate():
        m = rel.mate()
        text = f"{'+' if m > 0 else '-'}M{abs(m)}"
    else:
        cp = rel.score()
        text = f"{cp / 100:+.2f}"
    if depth is not None:
        text += f"/{depth}"
    return rel.score(mate_score=MATE_CP), text


def _fmt_secs(ms: float) -> str:
    s = f"{ms / 1000:.3f}".rstrip("0").rstrip(".")
    return f"{s}s"


async def _settle(inst: EngineInstance, stall_s: float) -> bool:
    """After a game: make sure the engine is idle and answering; kill it otherwise.
    Returns True when the instance is still usable."""
    if not inst.alive:
        inst.dead = True
        return False
    try:
        await inst.ping(stall_s)
        return True
    except (asyncio.TimeoutError, chess.engine.EngineError):
        await inst.kill()
        return False


async def play_game(white: EngineInstance, black: EngineInstance, start: chess.Board,
                    settings: GameSettings) -> GameRecord:
    """Play one game from ``start`` (its move stack = book moves) and return the record.

    The clocks are kept by the runner (wall time from ``go`` to the move, milliseconds); see
    the module docstring for how faults are scored. Cancellation (Ctrl-C, SPRT stop) leaves the
    result "*"; the engines are then sent ``stop`` and left to the caller.
    """
    board = start.copy()
    rec = GameRecord(white.name, black.name, start.copy(), len(start.move_stack))
    rec.board = board
    players = {True: white, False: black}
    clocks = {c: Clock(settings.tc[c], settings.margin_ms[c]) for c in (True, False)}
    adjud = Adjudicator(settings.draw, settings.resign, settings.maxmoves)
    game_id = object()
    clock_ids = {True: (id(game_id), "w"), False: (id(game_id), "b")}
    stall_s = settings.stall_timeout_s
    pending: asyncio.Future | None = None
    info_sel = chess.engine.INFO_SCORE
    try:
        while True:
            end = board_result(board)
            if end is not None:
                rtype, winner, reason = end
                _set_result(rec, rtype, winner, reason)
                break
            side = board.turn
            player = players[side]
            if not player.alive:
                _forfeit(rec, DISCONNECTION, side)
                rec.failed.add(side)
                break
            try:
                await player.ready(game_id, stall_s)
            except asyncio.TimeoutError:
                await player.kill()
                _forfeit(rec, STALLED, side)
                rec.failed.add(side)
                break
            except chess.engine.EngineTerminatedError:
                _forfeit(rec, DISCONNECTION, side)
                rec.failed.add(side)
                break
            limit = _limit(clocks, side, player.spec, clock_ids[side])
            budget_ms = clocks[side].think_budget_ms()
            t0 = time.perf_counter()
            pending = asyncio.ensure_future(
                player.protocol.play(board, limit, game=game_id, info=info_sel))
            try:
                done, _ = await asyncio.wait({pending}, timeout=None if budget_ms is None else budget_ms / 1000.0)
                elapsed_ms = (time.perf_counter() - t0) * 1000.0
                if not done:
                    # Flag fell while the engine was still thinking: forfeit now (python-chess
                    # sends "stop" when the command is cancelled).
                    pending.cancel()
                    clocks[side].consume(elapsed_ms)  # the overrun shows in lowest_clock_ms
                    _forfeit(rec, TIMEOUT, side)
                    break
                play = pending.result()
            except chess.engine.EngineTerminatedError:
                _forfeit(rec, DISCONNECTION, side)
                rec.failed.add(side)
                break
            except chess.engine.EngineError as err:
                _forfeit(rec, ILLEGAL, side, _bad_move_text(err))
                break
            finally:
                if pending is not None and pending.done():
                    pending = None
            if play.resigned:
                _forfeit(rec, RESIGNATION, side)
                break
            if play.move is None or play.move not in board.legal_moves:
                _forfeit(rec, ILLEGAL, side, "(none)" if play.move is None else play.move.uci())
                break
            if not clocks[side].consume(elapsed_ms):
                _forfeit(rec, TIMEOUT, side)
                break
            score_cp, score_txt = _score_cp(play.info)
            ply = len(board.move_stack)
            board.push(play.move)
            rec.comments[ply] = (score_txt + " " if score_txt else "") + _fmt_secs(elapsed_ms)
            rec.times_ms[ply] = elapsed_ms
            adj = adjud.add(board, side, score_cp)
            if adj is not None and board_result(board) is None:
                winner, reason = adj
                _set_result(rec, ADJUDICATION, winner, reason)
                break
    finally:
        rec.end_time = _dt.datetime.now(_dt.timezone.utc)
        rec.lowest_clock_ms = {c: clocks[c].lowest_ms for c in (True, False)}
        if pending is not None and not pending.done():
            pending.cancel()
    # Bring both engines back to a known idle state (or kill them) before the next game.
    for color, inst in players.items():
        if color in rec.failed:
            continue
        if not await _settle(inst, stall_s):
            rec.failed.add(color)
    return rec
