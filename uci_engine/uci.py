"""UCI protocol loop (plain Python): parse commands, format replies, run searches in a thread.

Protocol reference: the UCI specification (Stefan Meyer-Kahlen, 2004) and Stockfish's
behaviour. stdout carries only protocol lines, one flushed write per line; every problem with
the input is reported as ``info string error: ...`` and the loop keeps reading.

Commands answered while the kernels load (:mod:`uci_engine.startup`) import nothing that
imports numba: the loader thread imports it meanwhile, and Python hands a second importing
thread a partly initialised module (ImportError) rather than deadlock.
"""
import io
import re
import sys
import threading
import time
import traceback

import chess

from . import __version__
from .book import Book
from .nnue_file import DEFAULT_NET, USE_NNUE_DEFAULT, find_net, load_net
from .options import EMPTY, MAX_HASH, MAX_THREADS, Option, OptionError, Options
from .syzygy import MAX_PIECES, Tablebases
from .startup import READY_PATIENCE_S, TB_COMPILING_TEXT, KernelLoading
from .timeman import Limits
from . import params
from . import strength
from .wdl import wdl

ENGINE_NAME = f"uci_engine {__version__}"
AUTHOR = "the uci_engine developers"


def _set_hash(eng, mib):
    """Hash's engine effect: a TT of ``mib`` MiB (resized and cleared only when it differs:
    the hand-over applies every option to an engine built with the current Hash)."""
    if eng.hash_mib != mib:
        eng.set_hash(mib)


class UCI(KernelLoading):
    """One UCI session. ``out`` is a text stream; ``sliders`` an optional backend request
    (``--sliders``); ``tune`` True adds the search parameters as options (``--tune``).
    Kernels load in a background thread started at construction."""

    def __init__(self, out=None, sliders=None, tune=False):
        self.out = out or sys.stdout
        self.lock = threading.Lock()
        self.ready = threading.Event()
        # Orders `setoption name Hash`, `position` and `go` against the loader handing over the
        # engine: what comes while the kernels load is applied by the loader (Hash, the
        # position) or waits for them (go), what comes after it goes to the engine.
        self.handover = threading.Lock()
        self.chosen = threading.Event()    # set once the slider backend is known
        self.cold_known = threading.Event()  # set once we know whether kernels must compile
        self.cold = False
        self.cold_announced = False
        self.load_error = None
        self.engine = None
        self.sliders_text = None
        self.sliders_warning = None
        self.sliders_announced = False
        self.debug = False
        self.search_thread = None
        self.go_done = threading.Event()
        self.go_done.set()
        self.release = threading.Event()   # lets an infinite/ponder search print bestmove
        self.pondering = False
        self.current_limits = None
        self.stop_event = threading.Event()  # `stop` for a go that waits for the kernels
        self.out_closed = False              # the client closed our stdout
        # the position set while the kernels load: (fen, moves, python-chess board), or None
        self.pending_position = None
        self.tablebases = Tablebases()
        self.book = Book()
        self.net = None                    # the EvalFile net once one is set (else the default)
        self.options = Options(self._option_rows() + (params.uci_options() if tune else []))
        for name in ("SyzygyProbeDepth", "Syzygy50MoveRule", "SyzygyProbeLimit"):
            opt = self.options[name]
            opt.on_set(opt.value)
        self.loader = threading.Thread(target=self._load, args=(sliders,), daemon=True)
        self.loader.start()

    def _option_rows(self):
        """The session's options (:mod:`uci_engine.options`), in the order ``uci`` lists them,
        with their effects: on the session when set, on the engine when set and at the
        hand-over (EvalFile before Use NNUE: the net first, then whether it plays)."""
        tb = self.tablebases
        return [
            Option("Threads", "spin", 1, 1, MAX_THREADS,
                   on_engine=lambda eng, v: eng.set_threads(v)),
            Option("Hash", "spin", 16, 1, MAX_HASH, on_engine=_set_hash),
            Option("Clear Hash", "button", on_engine=lambda eng, v: eng.clear()),
            Option("MultiPV", "spin", 1, 1, 256),
            Option("Ponder", "check", False),
            Option("Move Overhead", "spin", 10, 0, 5000),
            Option("UCI_Chess960", "check", False,
                   on_engine=lambda eng, v: setattr(eng, "chess960", v)),
            Option("UCI_LimitStrength", "check", False,
                   on_engine=lambda eng, v: setattr(eng, "limit_strength", v)),
            Option("UCI_Elo", "spin", strength.ELO_DEFAULT, strength.ELO_MIN, strength.ELO_MAX,
                   on_engine=lambda eng, v: setattr(eng, "uci_elo", v)),
            Option("UCI_ShowWDL", "check", False),
            Option("OwnBook", "check", False),
            Option("BookFile", "string", EMPTY, on_set=self._load_book),
            Option("SyzygyPath", "string", EMPTY, on_set=self._load_tablebases),
            Option("SyzygyProbeDepth", "spin", 1, 1, 100,
                   on_set=lambda v: setattr(tb, "probe_depth", v)),
            Option("Syzygy50MoveRule", "check", True, on_set=lambda v: setattr(tb, "rule50", v)),
            Option("SyzygyProbeLimit", "spin", MAX_PIECES, 0, MAX_PIECES,
                   on_set=lambda v: setattr(tb, "probe_limit", v)),
            Option("EvalFile", "string", DEFAULT_NET, empty=DEFAULT_NET,
                   on_set=self._load_eval_file, on_engine=self._use_net),
            Option("Use NNUE", "check", USE_NNUE_DEFAULT,
                   on_engine=lambda eng, v: eng.set_use_nnue(v)),
        ]

    def _load_tablebases(self, value):
        n = self.tablebases.load(value, wait=False, after=self.chosen)
        for msg in self.tablebases.load_errors:
            self.send(f"info string error: SyzygyPath: {msg}")
        if n:
            self.send(f"info string found {n} tablebases "
                      f"(up to {self.tablebases.max_pieces} pieces)")

    def _load_book(self, value):
        n = self.book.load(value)
        if n:
            self.send(f"info string book {value} with {n} entries")

    def _load_eval_file(self, value):
        """Load the net ``value`` names (EvalFile's lookup); the engine gets it through
        :meth:`_use_net`. Raises OptionError (the previous net stays)."""
        try:
            net = load_net(find_net(value))
        except (OSError, ValueError) as exc:
            keep = self.options["EvalFile"].value
            raise OptionError(f"EvalFile {value!r}: {exc}; keeping EvalFile {keep}") from None
        self.net = net
        self.send(f"info string NNUE net {value}: {net.architecture()}")

    def _use_net(self, eng, value):
        if self.net is not None and eng.net is not self.net:
            eng.set_net(self.net)

    # --- output ------------------------------------------------------------------------------
    def send(self, line):
        with self.lock:
            self._write(line)

    def _write(self, line):
        """Write one line (the caller holds ``self.lock``). A client that has gone away
        (closed pipe) stops the search instead of killing the thread that writes: the
        search then ends, and the loop reads the end of its input and exits."""
        if self.out_closed:
            return
        try:
            self.out.write(line + "\n")
            self.out.flush()
        except (OSError, ValueError):            # BrokenPipeError, or a closed stream
            self.out_closed = True
            self.stop_event.set()
            if self.engine is not None:
                self.engine.request_stop()

    def send_bestmove(self, msg):
        """Mark the search finished, then send ``msg`` (``bestmove ...``): a command sent in
        reply (setoption, go, ...) must find the engine idle, not searching."""
        with self.lock:
            self.go_done.set()
            self._write(msg)

    def error(self, msg):
        self.send(f"info string error: {msg}")

    # --- startup -----------------------------------------------------------------------------
    def _announce_sliders(self):
        """Send the slider choice once: inside the ``uci`` reply when it is known by then
        (clients ignore unknown lines there), else before the first ``readyok`` that finds
        the kernels loaded."""
        if not self.sliders_announced and (self.sliders_text or self.load_error):
            self.sliders_announced = True
            if self.sliders_warning:
                self.send(f"info string warning: {self.sliders_warning}")
            if self.sliders_text:
                self.send(f"info string sliders {self.sliders_text}")

    # --- main loop ---------------------------------------------------------------------------
    def run(self, infile=None):
        """Read commands until ``quit`` or end of input; returns the exit status (0)."""
        infile = infile or sys.stdin
        # Let the stop timer and the reader get the GIL within 1 ms of waking, not 5 ms.
        sys.setswitchinterval(0.001)
        while True:
            try:
                line = infile.readline()
            except (UnicodeDecodeError, ValueError) as exc:
                self.error(f"unreadable input: {exc}")
                continue
            except KeyboardInterrupt:
                break
            if not line:
                # End of input (a script piping commands): let a depth/nodes/time-limited
                # search finish and answer; an infinite or ponder search is stopped below.
                lim = self.current_limits
                if lim is not None and not (lim.infinite or self.pondering):
                    self.go_done.wait()
                break
            try:
                if self.handle(line) is False:
                    break
            except Exception as exc:  # never die on a command
                self.error(f"internal error on {line.strip()!r}: {type(exc).__name__}: {exc}")
                traceback.print_exc(file=sys.stderr)
        self._stop_search()
        with self.lock:     # a finishing search writes its bestmove under the lock
            pass
        return 0

    def handle(self, line):
        """Handle one command line. Returns False on ``quit``."""
        tokens = line.strip().split()
        if not tokens:
            return True
        cmd, args = tokens[0], tokens[1:]
        handler = getattr(self, "cmd_" + cmd, None) if cmd.isidentifier() else None
        if handler is None:
            self.error(f"unknown command {line.strip()!r}")
            return True
        return handler(args, line) is not False

    # --- commands ----------------------------------------------------------------------------
    def cmd_uci(self, args, line):
        self.send(f"id name {ENGINE_NAME}")
        self.send(f"id author {AUTHOR}")
        for o in self.options:
            self.send(o.describe())
        if self.chosen.wait(0.05):            # CPU detection is cached: ~40 ms after launch
            self._announce_sliders()
        self.send("uciok")

    def cmd_debug(self, args, line):
        if args not in (["on"], ["off"]):
            self.error("debug expects 'on' or 'off'")
            return
        self.debug = args[0] == "on"

    def cmd_isready(self, args, line):
        """``readyok`` within :data:`READY_PATIENCE_S`: at once on a cold cache (the kernels
        compile meanwhile, and ``go`` copes: :meth:`_go_while_loading`), after the load on a
        warm one (about a second), and after the patience if that load is slow. So for the
        Syzygy probers after ``SyzygyPath`` (:meth:`uci_engine.syzygy.Tablebases.load`):
        until they are ready the root is not probed."""
        t = time.monotonic()
        if not self.ready.is_set():
            if self.cold_known.wait(READY_PATIENCE_S) and self.cold:
                self._announce_loading()
            elif not self.ready.wait(max(0.0, READY_PATIENCE_S - (time.monotonic() - t))):
                self._announce_loading()
        if self.ready.is_set():
            self._announce_sliders()
            if self.engine is None:
                self.error(f"engine failed to load: {self.load_error}")
        tbs = self.tablebases
        if tbs.active and not tbs.wait_ready(max(0.0, READY_PATIENCE_S - (time.monotonic() - t))):
            if tbs.warm_error:
                self.error(f"Syzygy probers failed to compile ({tbs.warm_error}): the tables "
                           f"are not probed")
            else:
                self.send(f"info string {TB_COMPILING_TEXT}")
        self.send("readyok")

    def cmd_quit(self, args, line):
        return False

    def cmd_stop(self, args, line):
        self._stop_search(wait=False)

    def cmd_ponderhit(self, args, line):
        if not self.pondering:
            return
        self.pondering = False
        lim = self.current_limits
        lim.ponder = False
        if self.engine is None:          # a go waiting for the kernels: it now has a clock
            return
        self.engine.extend_time(lim, self.options["move overhead"].value)
        if lim.infinite is False and self.go_done.is_set() is False:
            self.release.set()

    def cmd_setoption(self, args, line):
        """``setoption name <id> [value <x>]`` through the option table; a refused value
        keeps the previous one (``info string error:``). While the kernels load, the value is
        kept and reaches the engine at the hand-over (:meth:`Options.apply_to`)."""
        if not args or args[0] != "name":
            self.error("setoption expects 'name <id> [value <x>]'")
            return
        if "value" in args:
            name, raw = " ".join(args[1:args.index("value")]), self._raw_value(line)
        else:
            name, raw = " ".join(args[1:]), None
        opt = self.options.get(name)
        if opt is None:
            self.error(f"unknown option {name!r}")
            return
        if not self.go_done.is_set():
            self.error(f"cannot set option {opt.name} while searching")
            return
        with self.handover:
            try:
                self.options.set(name, raw, self.engine)
            except OptionError as exc:
                self.error(str(exc))

    @staticmethod
    def _raw_value(line):
        """The text after the first ``value`` token of a setoption line, spaces inside kept
        (paths may contain spaces); "" if there is none."""
        m = re.search(r"(?:^|\s)value(?:\s+(.*))?$", line.strip())
        return (m.group(1) or "").strip() if m else ""

    def cmd_ucinewgame(self, args, line):
        self._stop_search()
        with self.handover:
            if self.engine is None:             # still loading: the engine starts fresh anyway
                self.pending_position = None
                return
        self.engine.clear()

    def cmd_position(self, args, line):
        if not args:
            self.error("position expects 'startpos' or 'fen <FEN>'")
            return
        self._stop_search()
        if "moves" in args:
            i = args.index("moves")
            head, moves = args[:i], args[i + 1:]
        else:
            head, moves = args, []
        if head == ["startpos"]:
            fen = chess.STARTING_FEN
        elif head and head[0] == "fen" and len(head) > 1:
            fen = " ".join(head[1:])
        else:
            self.error(f"position expects 'startpos' or 'fen <FEN>', got {' '.join(head)!r}")
            return
        with self.handover:
            if self.engine is None:
                self._pend_position(fen, moves)
                return
        self.engine.chess960 = self.options["uci_chess960"].value
        try:
            self.engine.set_position(fen, moves)
        except ValueError as exc:
            self.error(f"{exc}; position unchanged")

    def cmd_d(self, args, line):
        if not self._wait_ready():
            return
        from .fen import square_name
        for ln in self.engine.board_text():
            self.send(ln)
        self.send(f"Fen: {self.engine.fen()}")
        self.send(f"Key: {self.engine.key():016X}")
        chk = self.engine.checkers()
        names = " ".join(square_name(s) for s in range(64) if chk >> s & 1)
        self.send(f"Checkers: {names}")

    def cmd_eval(self, args, line):
        if not self._wait_ready():
            return
        from .kernels.evaluate import format_eval
        eng = self.engine
        if eng.use_nnue:
            self.send(f"NNUE evaluation {eng.static_eval()} cp (side to move), net "
                      f"{self.options['evalfile'].value}")
            return
        for ln in format_eval(eng.st, eng.root).splitlines():
            self.send(ln)

    def cmd_go(self, args, line):
        self._stop_search()
        with self.handover:
            limits = self._parse_go(args)
            if self.engine is None and limits.perft is None:
                if self._book_move(limits):
                    return
                # the kernels are still loading (or failed to): wait for them as long as the
                # clock allows, else the fallback search answers
                self._start_go(limits, self._go_while_loading, time.monotonic())
                return
        if not self._wait_ready():
            return
        if limits.perft is not None:
            self._perft(limits.perft)
            return
        if self._book_move(limits):
            return
        self._start_go(limits, self._search)

    def _start_go(self, limits, target, *extra):
        self.current_limits = limits
        self.pondering = limits.ponder
        self.release.clear()
        self.stop_event.clear()
        self.go_done.clear()
        self.search_thread = threading.Thread(target=target, args=(limits, *extra),
                                              daemon=True)
        self.search_thread.start()

    # --- go helpers --------------------------------------------------------------------------
    INT_ARGS = {"wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "mate",
                "movetime", "perft"}
    # larger values are clamped with an error line (nodes must fit the kernels' int64 limit)
    INT_CAPS = {"wtime": 10 ** 9, "btime": 10 ** 9, "winc": 10 ** 9, "binc": 10 ** 9,
                "movetime": 10 ** 9, "movestogo": 10 ** 6, "depth": 120, "mate": 60,
                "nodes": 10 ** 15}

    def _parse_go(self, args):
        lim = Limits()
        i = 0
        while i < len(args):
            tok = args[i]
            if tok in self.INT_ARGS:
                if i + 1 >= len(args):
                    self.error(f"go {tok} needs a value")
                    break
                raw = args[i + 1]
                i += 2
                try:
                    v = int(raw)
                except ValueError:
                    self.error(f"go {tok} value {raw!r} is not an integer; ignored")
                    continue
                if tok in ("wtime", "btime"):
                    if v < 0:
                        self.error(f"go {tok} {v} is negative; using 0")
                        v = 0
                elif v < 0 or (v == 0 and tok in ("depth", "movestogo", "mate")):
                    self.error(f"go {tok} {v} is out of range; ignored")
                    continue
                if tok == "perft":
                    if v > 20:
                        self.error(f"go perft {v} is too deep; ignored")
                        continue
                elif v > self.INT_CAPS[tok]:
                    cap = self.INT_CAPS[tok]
                    self.error(f"go {tok} {v} is too large; using {cap}")
                    v = cap
                setattr(lim, tok, v)
            elif tok == "infinite":
                lim.infinite = True
                i += 1
            elif tok == "ponder":
                lim.ponder = True
                i += 1
            elif tok == "searchmoves":
                i += 1
                while i < len(args) and args[i] not in self.INT_ARGS | {"infinite", "ponder"}:
                    mv = args[i]
                    if not self._is_legal(mv):
                        self.error(f"searchmoves: {mv!r} is not a legal move; ignored")
                    else:
                        lim.searchmoves.append(mv)
                    i += 1
            else:
                self.error(f"go: unknown argument {tok!r}; ignored")
                i += 1
        return lim

    def _is_legal(self, mv):
        """True if ``mv`` (UCI text) is legal in the current position (checked by python-chess
        while the kernels load)."""
        if self.engine is not None:
            return self.engine.parse_move(mv) is not None
        try:
            return chess.Move.from_uci(mv) in self._pending_board().legal_moves
        except ValueError:
            return False

    def _book_move(self, limits):
        """With ``OwnBook`` on and the position in the book, answer ``bestmove`` from the book
        at once and return True. Not for ``go infinite``, ``ponder``, ``mate`` or
        ``searchmoves`` (analysis and pondering search as usual)."""
        if not (self.options["ownbook"].value and self.book.loaded):
            return False
        if limits.infinite or limits.ponder or limits.mate or limits.searchmoves:
            return False
        if self.engine is not None:
            fen, chess960 = self.engine.fen(), self.engine.chess960
        else:                                    # the kernels are still loading
            board = self._pending_board()
            fen, chess960 = board.fen(), board.chess960
        try:
            hit = self.book.probe(fen, chess960)
        except (ValueError, OSError) as exc:
            self.error(f"book probe failed: {exc}")
            return False
        if hit is None or not self._is_legal(hit[0]):
            return False
        move, ponder = hit
        self.send(f"info string book move {move}")
        self.current_limits = None
        self.send(f"bestmove {move}" + (f" ponder {ponder}" if ponder else ""))
        return True

    def _perft(self, depth):
        t = time.monotonic()
        total = 0
        for mv, n in self.engine.perft_divide(depth) if depth >= 1 else []:
            self.send(f"{mv}: {n}")
            total += n
        if depth < 1:
            total = 1
        self.send("")
        self.send(f"Nodes searched: {total}")
        if self.debug:
            self.send(f"info string perft time {int((time.monotonic() - t) * 1000)} ms")

    def _search(self, limits):
        eng = self.engine
        best = ponder = None
        try:
            try:
                run = Limits(**{k: getattr(limits, k) for k in limits.__dataclass_fields__})
                if limits.ponder:
                    run.infinite = True
                best, ponder = eng.search(run, self._on_info, self.options["multipv"].value,
                                          self.options["move overhead"].value,
                                          tablebases=self.tablebases)
            except Exception as exc:
                self.error(f"search failed: {type(exc).__name__}: {exc}")
                traceback.print_exc(file=sys.stderr)
            for msg in self.tablebases.take_errors():
                self.error(msg)
            if best is None:
                legal = eng.legal_moves()
                best = eng.move_to_uci(legal[0]) if legal else "0000"
            # infinite and ponder searches wait for stop/ponderhit before answering
            while (limits.infinite or self.pondering) and not self.release.is_set():
                self.release.wait(0.05)
        finally:
            msg = f"bestmove {best}"
            if ponder and best not in (None, "0000"):
                msg += f" ponder {ponder}"
            self.send_bestmove(msg)     # whatever happened: the loop must not wait forever

    def _on_info(self, d):
        score = f"mate {d['mate']}" if d["mate"] is not None else f"cp {d['score']}"
        if self.options["uci_showwdl"].value and d["score"] is not None:
            w, dr, lo = wdl(d["score"], self.engine.material(), d["mate"])
            score += f" wdl {w} {dr} {lo}"
        if d["bound"]:
            score += " " + d["bound"]
        self.send(f"info depth {d['depth']} seldepth {d['seldepth']} multipv {d['multipv']} "
                  f"score {score} nodes {d['nodes']} nps {d['nps']} hashfull {d['hashfull']} "
                  f"tbhits {d['tbhits']} time {d['time']} pv {' '.join(d['pv'])}")

    def _stop_search(self, wait=True):
        if not self.go_done.is_set():
            self.stop_event.set()
            if self.engine is not None:
                self.engine.request_stop()
            self.pondering = False
            self.release.set()
            if wait:
                self.go_done.wait()


def configured_engine(items, sliders=None):
    """An :class:`uci_engine.engine.Engine` set up as a UCI session would be after
    ``setoption`` for each ``NAME=VALUE`` item of ``items`` (the same option table, effects
    and evaluation choice): ``uci-engine -o ... bench`` and ``warmup``, and each datagen
    worker. With ``SyzygyPath`` set, the engine's ``tablebases`` holds the loaded tables.
    ``sliders`` is the backend request (``--sliders``; a worker passes the one its process
    selected). Raises ValueError with the session's error lines for a refused option or
    a failed load."""
    log = io.StringIO()
    session = UCI(out=log, sliders=sliders)
    for item in items:
        session.handle(setoption_line(item))
    session.ready.wait()
    errors = [ln for ln in log.getvalue().splitlines() if ln.startswith("info string error:")]
    if session.engine is None or errors:
        raise ValueError("; ".join(e[len("info string error: "):] for e in errors)
                         or f"engine failed to load: {session.load_error}")
    if session.tablebases.active:             # SyzygyPath: bench searches with the tables
        session.engine.tablebases = session.tablebases
    return session.engine


def setoption_line(item):
    """The UCI ``setoption`` command (str) for a ``--option`` argument ``NAME=VALUE``, or
    ``NAME`` alone for a button; spaces inside the name or value are kept."""
    name, sep, value = item.partition("=")
    line = f"setoption name {name.strip()}"
    return f"{line} value {value.strip()}" if sep else line
