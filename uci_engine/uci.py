"""UCI protocol loop (plain Python): parse commands, format replies, run searches in a thread.

Protocol reference: the UCI specification (Stefan Meyer-Kahlen, 2004) and Stockfish's
behaviour. stdout carries only protocol lines, one flushed write per line; every problem with
the input is reported as ``info string error: ...`` and the loop keeps reading.
"""
import re
import sys
import threading
import time
import traceback

from . import __version__
from .book import Book, BookError
from .nnue_file import DEFAULT_NET, USE_NNUE_DEFAULT, find_net, load_net
from .syzygy import MAX_PIECES, Tablebases, TablebaseError
from .timeman import Limits
from . import params
from . import strength
from .wdl import wdl

ENGINE_NAME = f"uci_engine {__version__}"
AUTHOR = "the uci_engine developers"
MAX_HASH = 4096
COLD_START_TEXT = "compiling search kernels, first start only"
MAX_THREADS = 256     # = engine.MAX_THREADS (engine.py imports the kernels, so not imported here)
#: options the engine facade reads at search time (applied by _apply_search_options)
SEARCH_OPTIONS = ("Threads", "UCI_LimitStrength", "UCI_Elo", "Use NNUE")
EMPTY = "<empty>"     # default of a string option with no value (Stockfish's spelling)


class Option:
    def __init__(self, name, kind, default=None, lo=None, hi=None):
        self.name, self.kind, self.default, self.lo, self.hi = name, kind, default, lo, hi
        self.value = default

    def describe(self):
        s = f"option name {self.name} type {self.kind}"
        if self.kind == "spin":
            s += f" default {self.default} min {self.lo} max {self.hi}"
        elif self.kind == "check":
            s += f" default {'true' if self.default else 'false'}"
        elif self.kind == "string":
            s += f" default {self.default}"
        return s


class UCI:
    """One UCI session. ``out`` is a text stream; ``sliders`` an optional backend request
    (``--sliders``); ``tune`` True lists the search parameters as options (``--tune``).
    Kernels load in a background thread started at construction."""

    def __init__(self, out=None, sliders=None, tune=False):
        self.out = out or sys.stdout
        self.lock = threading.Lock()
        self.ready = threading.Event()
        # Orders a `setoption name Hash` against the loader handing over the engine: a value set
        # while the kernels load is applied by the loader, one set after it by setoption.
        self.hash_lock = threading.Lock()
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
        self.pending_fen = None
        self.options = {o.name.lower(): o for o in (
            Option("Threads", "spin", 1, 1, MAX_THREADS),
            Option("Hash", "spin", 16, 1, MAX_HASH),
            Option("Clear Hash", "button"),
            Option("MultiPV", "spin", 1, 1, 256),
            Option("Ponder", "check", False),
            Option("Move Overhead", "spin", 10, 0, 5000),
            Option("UCI_Chess960", "check", False),
            Option("UCI_LimitStrength", "check", False),
            Option("UCI_Elo", "spin", strength.ELO_DEFAULT, strength.ELO_MIN, strength.ELO_MAX),
            Option("UCI_ShowWDL", "check", False),
            Option("OwnBook", "check", False),
            Option("BookFile", "string", EMPTY),
            Option("SyzygyPath", "string", EMPTY),
            Option("SyzygyProbeDepth", "spin", 1, 1, 100),
            Option("Syzygy50MoveRule", "check", True),
            Option("SyzygyProbeLimit", "spin", MAX_PIECES, 0, MAX_PIECES),
            Option("EvalFile", "string", DEFAULT_NET),
            Option("Use NNUE", "check", USE_NNUE_DEFAULT),
        ) + tuple(Option(name, "spin", default, lo, hi)
                  for name, default, lo, hi in (params.uci_options() if tune else ()))}
        self.tablebases = Tablebases()
        self.book = Book()
        self.net = None                    # the EvalFile net once one is set (else the default)
        self.loader = threading.Thread(target=self._load, args=(sliders,), daemon=True)
        self.loader.start()

    # --- output ------------------------------------------------------------------------------
    def send(self, line):
        with self.lock:
            self.out.write(line + "\n")
            self.out.flush()

    def error(self, msg):
        self.send(f"info string error: {msg}")

    # --- startup -----------------------------------------------------------------------------
    def _load(self, sliders):
        try:
            from . import backend
            try:
                name, text, warning = backend.choose_and_select(sliders)
                self.sliders_text, self.sliders_warning = text, warning
            finally:
                self.chosen.set()
            from .warmup import is_cold, start_leaf_compiler, warm_up
            self.cold = is_cold()
            self.cold_known.set()
            helper = start_leaf_compiler()
            from .engine import Engine
            hash_at_start = self.options["hash"].value
            eng = Engine(hash_at_start)
            warm_up(eng, perft=False)
            if helper is not None:
                helper.wait()
            if eng.default_net_error and self.options["use nnue"].value:
                # the shipped net is missing or damaged: play on with the hand-crafted evaluation
                self.options["use nnue"].value = False
                self.error(f"EvalFile {eng.default_net_error}; Use NNUE is off, the "
                           f"hand-crafted evaluation plays")
            self._apply_search_options(eng)
            with self.hash_lock:
                hash_mib = self.options["hash"].value
                if hash_mib != hash_at_start:      # `setoption name Hash` came during the load
                    eng.set_hash(hash_mib)
                self.engine = eng
        except Exception as exc:  # reported on isready; the loop keeps answering
            self.load_error = f"{type(exc).__name__}: {exc}"
            traceback.print_exc(file=sys.stderr)
        finally:
            self.cold_known.set()
            self.ready.set()

    def _announce_sliders(self):
        """Send the slider choice once: inside the ``uci`` reply when it is known by then
        (clients ignore unknown lines there), else before the first ``readyok``."""
        if not self.sliders_announced and (self.sliders_text or self.load_error):
            self.sliders_announced = True
            if self.sliders_warning:
                self.send(f"info string warning: {self.sliders_warning}")
            if self.sliders_text:
                self.send(f"info string sliders {self.sliders_text}")

    def _wait_ready(self):
        if not self.ready.is_set():
            self.cold_known.wait()
            if self.cold and not self.cold_announced and not self.ready.is_set():
                # an empty Numba cache: the first isready waits while everything compiles
                self.cold_announced = True
                self.send(f"info string {COLD_START_TEXT}")
        self.ready.wait()
        self._announce_sliders()
        if self.engine is None:
            self.error(f"engine failed to load: {self.load_error}")
            return False
        return True

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
        for o in self.options.values():
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
        self._wait_ready()
        self.send("readyok")

    def cmd_quit(self, args, line):
        return False

    def cmd_stop(self, args, line):
        self._stop_search(wait=False)

    def cmd_ponderhit(self, args, line):
        if not self.pondering or self.engine is None:
            return
        self.pondering = False
        lim = self.current_limits
        lim.ponder = False
        self.engine.extend_time(lim, self.options["move overhead"].value)
        if lim.infinite is False and self.go_done.is_set() is False:
            self.release.set()

    def cmd_setoption(self, args, line):
        if not args or args[0] != "name":
            self.error("setoption expects 'name <id> [value <x>]'")
            return
        if "value" in args:
            i = args.index("value")
            name, value = " ".join(args[1:i]), " ".join(args[i + 1:])
        else:
            name, value = " ".join(args[1:]), None
        opt = self.options.get(name.lower())
        if opt is None:
            self.error(f"unknown option {name!r}")
            return
        if not self.go_done.is_set():
            self.error(f"cannot set option {opt.name} while searching")
            return
        if opt.kind == "button":
            if not self._wait_ready():
                return
            self.engine.clear()
            return
        if opt.kind == "string":
            self._set_string(opt, self._raw_value(line) if value is not None else "")
            return
        if value is None or value == "":
            self.error(f"option {opt.name} needs a value")
            return
        if opt.kind == "spin":
            try:
                v = int(value)
            except ValueError:
                self.error(f"option {opt.name} value {value!r} is not an integer")
                return
            if not opt.lo <= v <= opt.hi:
                self.error(f"option {opt.name} value {v} out of range [{opt.lo}, {opt.hi}]")
                return
        else:
            if value.lower() not in ("true", "false"):
                self.error(f"option {opt.name} value {value!r} is not true or false")
                return
            v = value.lower() == "true"
        if opt.name == "Hash":
            with self.hash_lock:
                opt.value = v
                if self.engine is not None:
                    self.engine.set_hash(v)
        else:
            opt.value = v
        if opt.name == "UCI_Chess960" and self.engine is not None:
            self.engine.chess960 = v
        if (opt.name in SEARCH_OPTIONS or params.is_param(opt.name)) and self.engine is not None:
            self._apply_search_options(self.engine)
        tb = self.tablebases
        tb.rule50 = self.options["syzygy50moverule"].value
        tb.probe_limit = self.options["syzygyprobelimit"].value
        tb.probe_depth = self.options["syzygyprobedepth"].value

    def _apply_search_options(self, eng):
        """Hand Threads, UCI_LimitStrength, UCI_Elo, Use NNUE and the EvalFile net to the
        engine facade (at load time and on every later setoption)."""
        eng.set_threads(self.options["threads"].value)
        eng.limit_strength = self.options["uci_limitstrength"].value
        eng.uci_elo = self.options["uci_elo"].value
        if self.net is not None and eng.net is not self.net:
            eng.set_net(self.net)
        eng.set_use_nnue(self.options["use nnue"].value)
        params.apply(eng.params, {o.name: o.value for o in self.options.values()
                                  if params.is_param(o.name)})

    @staticmethod
    def _raw_value(line):
        """The text after the first ``value`` token of a setoption line, spaces inside kept
        (paths may contain spaces); "" if there is none."""
        m = re.search(r"(?:^|\s)value(?:\s+(.*))?$", line.strip())
        return (m.group(1) or "").strip() if m else ""

    def _set_string(self, opt, value):
        """Set a string option; ``BookFile`` and ``SyzygyPath`` load their file(s) first and
        keep the previous value (and tables or book) when that fails."""
        value = value or EMPTY
        try:
            if opt.name == "SyzygyPath":
                n = self.tablebases.load(value)
                if n:
                    self.send(f"info string found {n} tablebases "
                              f"(up to {self.tablebases.max_pieces} pieces)")
            elif opt.name == "BookFile":
                n = self.book.load(value)
                if n:
                    self.send(f"info string book {value} with {n} entries")
            elif opt.name == "EvalFile":
                if value == EMPTY:
                    value = DEFAULT_NET
                try:
                    net = load_net(find_net(value))
                except (OSError, ValueError) as exc:
                    self.error(f"EvalFile {value!r}: {exc}; keeping EvalFile {opt.value}")
                    return
                self.net = net
                if self.engine is not None:
                    self.engine.set_net(net)
                self.send(f"info string NNUE net {value} (hidden {net.hidden})")
        except (TablebaseError, BookError) as exc:
            self.error(f"{exc}; keeping {opt.name} {opt.value}")
            return
        opt.value = value

    def cmd_ucinewgame(self, args, line):
        if not self._wait_ready():
            return
        self._stop_search()
        self.engine.clear()

    def cmd_position(self, args, line):
        if not self._wait_ready():
            return
        if not args:
            self.error("position expects 'startpos' or 'fen <FEN>'")
            return
        self._stop_search()
        from .fen import STARTPOS
        if "moves" in args:
            i = args.index("moves")
            head, moves = args[:i], args[i + 1:]
        else:
            head, moves = args, []
        if head == ["startpos"]:
            fen = STARTPOS
        elif head and head[0] == "fen" and len(head) > 1:
            fen = " ".join(head[1:])
        else:
            self.error(f"position expects 'startpos' or 'fen <FEN>', got {' '.join(head)!r}")
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
        if not self._wait_ready():
            return
        self._stop_search()
        limits = self._parse_go(args)
        if limits.perft is not None:
            self._perft(limits.perft)
            return
        if self._book_move(limits):
            return
        self.current_limits = limits
        self.pondering = limits.ponder
        self.release.clear()
        self.go_done.clear()
        self.search_thread = threading.Thread(target=self._search, args=(limits,), daemon=True)
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
                    if self.engine.parse_move(mv) is None:
                        self.error(f"searchmoves: {mv!r} is not a legal move; ignored")
                    else:
                        lim.searchmoves.append(mv)
                    i += 1
            else:
                self.error(f"go: unknown argument {tok!r}; ignored")
                i += 1
        return lim

    def _book_move(self, limits):
        """With ``OwnBook`` on and the position in the book, answer ``bestmove`` from the book
        at once and return True. Not for ``go infinite``, ``ponder``, ``mate`` or
        ``searchmoves`` (analysis and pondering search as usual)."""
        if not (self.options["ownbook"].value and self.book.loaded):
            return False
        if limits.infinite or limits.ponder or limits.mate or limits.searchmoves:
            return False
        eng = self.engine
        try:
            hit = self.book.probe(eng.fen(), eng.chess960)
        except (ValueError, OSError) as exc:
            self.error(f"book probe failed: {exc}")
            return False
        if hit is None or eng.parse_move(hit[0]) is None:
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
            run = Limits(**{k: getattr(limits, k) for k in limits.__dataclass_fields__})
            if limits.ponder:
                run.infinite = True
            best, ponder = eng.search(run, self._on_info, self.options["multipv"].value,
                                      self.options["move overhead"].value,
                                      tablebases=self.tablebases)
        except Exception as exc:
            self.error(f"search failed: {type(exc).__name__}: {exc}")
            traceback.print_exc(file=sys.stderr)
        if best is None:
            legal = eng.legal_moves()
            best = eng.move_to_uci(legal[0]) if legal else "0000"
        # infinite and ponder searches wait for stop/ponderhit before answering
        while (limits.infinite or self.pondering) and not self.release.is_set():
            self.release.wait(0.05)
        msg = f"bestmove {best}"
        if ponder and best != "0000":
            msg += f" ponder {ponder}"
        # Mark the search finished before the GUI can see bestmove: a command sent in reply
        # (setoption, go, ...) must find the engine idle, not "searching".
        with self.lock:
            self.go_done.set()
            self.out.write(msg + "\n")
            self.out.flush()

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
        if self.engine is not None and not self.go_done.is_set():
            self.engine.request_stop()
            self.pondering = False
            self.release.set()
            if wait:
                self.go_done.wait()
