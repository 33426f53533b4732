"""The cutechess-cli command line (common subset) for :mod:`uci_engine.tools.match`.

Everything is parsed and validated before any engine is started; every error names the
argument it is about (:class:`ArgError`).

Supported (cutechess syntax)::

    -engine cmd=CMD [name=N] [proto=uci|xboard] [arg=A]... [dir=D] [option.NAME=VALUE]...
            [tc=TC | st=S] [nodes=N] [plies=N] [timemargin=MS] [restart=auto|on|off]
            [stderr=FILE]
    -each   (same keys, applied to every engine unless the engine sets them)
    -games N  -rounds N  -repeat [N]  -concurrency N  -srand N  -noswap
    -openings file=F [format=epd|pgn] [order=sequential|random] [plies=N] [start=N]
              [policy=default]
    -pgnout F [min] [fi]
    -draw movenumber=N movecount=N score=CP
    -resign movecount=N score=CP [twosided=true|false]
    -maxmoves N
    -sprt elo0=X elo1=Y alpha=A beta=B [model=normalized|logistic] [prior=P0,P1,P2,P3,P4]
    -tournament round-robin|gauntlet
    -recover  -ratinginterval N  -timemargin MS  -event NAME  -site NAME
    -variant standard  -wait MS  -debug

Extensions (not in cutechess): ``-stalltimeout MS`` (how long an engine may ignore ``isready``
/ ``stop`` before it is declared stalled, default 15000 like cutechess's ping timer),
``-noprogress`` (no tqdm bar), ``model=`` in ``-sprt`` (fastchess's key), and ``prior=`` in
``-sprt``: the pentanomial counts of the earlier parts of a stopped test that this run resumes
(with a new ``-srand``). The SPRT then decides on the earlier parts and this run's pairs
together, and stops the match when the combined LLR crosses a bound; the report gives this run's
``Ptnml(0-2)`` line as usual and the combined one beside it.
"""

from __future__ import annotations

import os
import shlex
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from . import stats
from .tc import TimeControl, TimeControlError, parse_st, parse_tc

__all__ = ["ArgError", "EngineSpec", "MatchConfig", "DrawAdjudication", "ResignAdjudication",
           "SprtSpec", "OpeningsSpec", "parse_args", "parse_engine_spec"]


class ArgError(ValueError):
    """A malformed or unknown command-line argument; the message names the argument."""


@dataclass
class EngineSpec:
    """One ``-engine``: command line, protocol, options and limits.

    ``timemargin_ms`` is in milliseconds, ``tc`` a :class:`~uci_engine.tools.tc.TimeControl`.
    """

    cmd: str = ""
    name: str | None = None
    proto: str = "uci"
    args: list[str] = field(default_factory=list)
    dir: str | None = None
    options: dict[str, str] = field(default_factory=dict)
    tc: TimeControl | None = None
    nodes: int | None = None
    plies: int | None = None
    timemargin_ms: int | None = None
    restart: str = "auto"
    stderr: str | None = None

    def command(self) -> list[str]:
        """argv of the engine process: ``cmd`` (shell-split, so ``cmd="python3 e.py"`` works)
        followed by every ``arg=``. A bare program name that is not on PATH but in
        ``/usr/games`` (where Debian installs chess engines) is resolved there."""
        argv = shlex.split(self.cmd)
        if argv and os.sep not in argv[0] and shutil.which(argv[0]) is None:
            games = shutil.which(argv[0], path="/usr/games")
            if games:
                argv[0] = games
        return argv + list(self.args)

    def display_name(self) -> str:
        """``name=`` or, before the engine has told its name, the command's basename."""
        if self.name:
            return self.name
        parts = shlex.split(self.cmd) or [self.cmd]
        return Path(parts[-1] if len(parts) > 1 and parts[0].startswith("python") else parts[0]).name


@dataclass
class DrawAdjudication:
    """``-draw``: from full move ``movenumber`` on, a draw once both engines' scores stayed
    within ``score`` centipawns of 0 for ``movecount`` consecutive moves each."""

    movenumber: int
    movecount: int
    score: int


@dataclass
class ResignAdjudication:
    """``-resign``: a loss once an engine's score stayed at or below ``-score`` centipawns for
    ``movecount`` consecutive moves (``twosided``: and the opponent agreed)."""

    movecount: int
    score: int
    twosided: bool = False


@dataclass
class SprtSpec:
    """``-sprt``: bounds in Elo (normalized by default, as fishtest/fastchess), error rates."""

    elo0: float
    elo1: float
    alpha: float
    beta: float
    model: str = "normalized"
    #: pentanomial counts of earlier parts of the same test, added to this run's for the LLR
    prior: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)

    def combined(self, penta) -> list[int]:
        """This run's pentanomial counts ``penta`` (5 ints) plus the earlier parts'."""
        return [a + b for a, b in zip(penta, self.prior)]


@dataclass
class OpeningsSpec:
    """``-openings``."""

    file: str
    format: str | None = None
    order: str = "sequential"
    plies: int | None = None
    start: int = 1
    policy: str = "default"


@dataclass
class MatchConfig:
    """Everything the command line says. Durations in milliseconds."""

    engines: list[EngineSpec] = field(default_factory=list)
    games: int = 1
    rounds: int = 1
    repeat: int = 1
    concurrency: int = 1
    openings: OpeningsSpec | None = None
    srand: int | None = None
    pgnout: str | None = None
    pgn_min: bool = False
    draw: DrawAdjudication | None = None
    resign: ResignAdjudication | None = None
    maxmoves: int | None = None
    sprt: SprtSpec | None = None
    tournament: str = "round-robin"
    recover: bool = False
    ratinginterval: int = 10
    timemargin_ms: int = 0
    event: str = "?"
    site: str = "?"
    noswap: bool = False
    wait_ms: int = 0
    debug: bool = False
    stall_timeout_ms: int = 15000
    progress: bool = True

    def total_games(self) -> int:
        """Number of games the schedule contains."""
        n = len(self.engines)
        pairs = n * (n - 1) // 2 if self.tournament == "round-robin" else n - 1
        return pairs * self.games * self.rounds


_ENGINE_KEYS = {"cmd", "name", "proto", "arg", "dir", "tc", "st", "nodes", "plies", "depth",
                "timemargin", "restart", "stderr"}
_UNSUPPORTED_ENGINE_KEYS = {"ponder", "trust", "whitepov", "initstr", "conf", "tscale",
                            "book", "bookdepth", "interval"}


def _int(value: str, arg: str, minimum: int | None = None) -> int:
    try:
        v = int(value)
    except ValueError:
        raise ArgError(f"{arg}: expected an integer, got {value!r}") from None
    if minimum is not None and v < minimum:
        raise ArgError(f"{arg}: must be at least {minimum}, got {v}")
    return v


def _float(value: str, arg: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise ArgError(f"{arg}: expected a number, got {value!r}") from None


def _kv(token: str, opt: str) -> tuple[str, str]:
    if "=" not in token:
        raise ArgError(f"{opt}: expected key=value, got {token!r}")
    k, v = token.split("=", 1)
    if not k:
        raise ArgError(f"{opt}: empty key in {token!r}")
    return k, v


def _apply_engine_kv(spec: EngineSpec, seen: set[str], key: str, value: str, opt: str) -> None:
    """Set one ``key=value`` of ``-engine``/``-each`` on ``spec``."""
    where = f"{opt} {key}="
    if key.startswith("option."):
        name = key[len("option."):]
        if not name:
            raise ArgError(f"{opt}: empty option name in {key}={value}")
        spec.options[name] = value
        return
    if key in _UNSUPPORTED_ENGINE_KEYS:
        raise ArgError(f"{opt}: key {key!r} is not supported by this runner")
    if key not in _ENGINE_KEYS:
        raise ArgError(f"{opt}: unknown key {key!r}")
    seen.add(key)
    if key == "cmd":
        if not value.strip():
            raise ArgError(f"{where}: empty command")
        spec.cmd = value
    elif key == "name":
        spec.name = value
    elif key == "proto":
        if value not in ("uci", "xboard"):
            raise ArgError(f"{where}: protocol must be uci or xboard, got {value!r}")
        spec.proto = value
    elif key == "arg":
        spec.args.append(value)
    elif key == "dir":
        spec.dir = value
    elif key in ("tc", "st"):
        try:
            tc = parse_tc(value) if key == "tc" else parse_st(value)
        except TimeControlError as err:
            raise ArgError(f"{where}{value}: {err}") from None
        spec.tc = tc
    elif key == "nodes":
        spec.nodes = _int(value, where, 1)
    elif key in ("plies", "depth"):
        spec.plies = _int(value, where, 1)
    elif key == "timemargin":
        spec.timemargin_ms = _int(value, where, 0)
    elif key == "restart":
        if value not in ("auto", "on", "off"):
            raise ArgError(f"{where}: expected auto, on or off, got {value!r}")
        spec.restart = value
    elif key == "stderr":
        spec.stderr = value


def _parse_engine_tokens(tokens: list[str], opt: str,
                         keys: set[str] | frozenset[str] | None = None,
                         ) -> tuple[EngineSpec, set[str]]:
    """``(spec, keys seen)`` from one engine's ``key=value`` tokens; ``keys`` restricts the
    accepted keys (``option.NAME`` is always accepted)."""
    spec = EngineSpec()
    seen: set[str] = set()
    if not tokens:
        raise ArgError(f"{opt}: no engine settings given")
    for tok in tokens:
        k, v = _kv(tok, opt)
        if keys is not None and not k.startswith("option.") and k not in keys:
            raise ArgError(f"{opt}: key {k!r} is not used here (accepted: "
                           f"{', '.join(sorted(keys))}, option.NAME)")
        _apply_engine_kv(spec, seen, k, v, opt)
    return spec, seen


def parse_engine_spec(tokens: list[str], opt: str = "-engine",
                      keys: set[str] | frozenset[str] | None = None,
                      check_files: bool = True) -> EngineSpec:
    """One engine from the ``key=value`` tokens that follow ``-engine``, for tools that start
    engines the runner's way (``scripts/move_quality.py``).

    ``tokens`` is a list of str such as ``["name=x", "cmd=prog --flag", "option.Hash=16"]``
    (``shlex.split`` of a one-string spec gives it); ``keys`` limits the accepted keys to a
    subset of ``-engine``'s (``option.NAME`` always passes); ``check_files`` checks that the
    command exists. A spec needs ``cmd=``. Raises :class:`ArgError` naming ``opt`` and the key.
    """
    spec, _ = _parse_engine_tokens(tokens, opt, keys)
    if not spec.cmd:
        raise ArgError(f"{opt}: missing cmd=")
    if check_files:
        _check_engine_files(spec, opt)
    return spec


def _merge_each(spec: EngineSpec, seen: set[str], each: EngineSpec, each_seen: set[str]) -> None:
    """Apply ``-each`` settings to an engine that did not set them itself."""
    for key in each_seen:
        if key in seen:
            continue
        if key == "arg":
            spec.args = list(each.args) + spec.args
        elif key in ("tc", "st"):
            if "tc" not in seen and "st" not in seen:
                spec.tc = each.tc
        elif key in ("plies", "depth"):
            spec.plies = each.plies
        elif key == "timemargin":
            spec.timemargin_ms = each.timemargin_ms
        else:
            setattr(spec, key, getattr(each, key))
    for name, value in each.options.items():
        spec.options.setdefault(name, value)


def _check_engine_files(spec: EngineSpec, opt: str) -> None:
    """Fail early when ``dir=`` or the engine executable does not exist."""
    if spec.dir and not Path(spec.dir).is_dir():
        raise ArgError(f"{opt} dir={spec.dir}: no such directory")
    _resolve_cmd(spec, opt)


def _resolve_cmd(spec: EngineSpec, opt: str) -> None:
    """Fail early when the engine executable cannot be found."""
    try:
        argv = shlex.split(spec.cmd)
    except ValueError as err:
        raise ArgError(f"{opt} cmd={spec.cmd}: {err}") from None
    if not argv:
        raise ArgError(f"{opt}: empty cmd")
    prog = argv[0]
    base = Path(spec.dir) if spec.dir else Path.cwd()
    if os.sep in prog:
        p = Path(prog) if Path(prog).is_absolute() else base / prog
        if not p.exists():
            raise ArgError(f"{opt} cmd={spec.cmd}: no such file {p}")
        return
    if shutil.which(prog) is None and shutil.which(prog, path="/usr/games") is None \
            and not (base / prog).exists():
        raise ArgError(f"{opt} cmd={spec.cmd}: command {prog!r} not found on PATH")


def _split_options(argv: list[str]) -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []
    for tok in argv:
        if tok.startswith("-") and len(tok) > 1 and not _is_number(tok):
            out.append((tok, []))
        else:
            if not out:
                raise ArgError(f"unexpected argument {tok!r} (options start with '-')")
            out[-1][1].append(tok)
    return out


def _is_number(tok: str) -> bool:
    try:
        float(tok)
        return True
    except ValueError:
        return False


_FLAG_OPTIONS = {"-recover", "-noswap", "-debug", "-noprogress"}
_SINGLE_INT = {"-games": 1, "-rounds": 1, "-concurrency": 1, "-ratinginterval": 0,
               "-timemargin": 0, "-maxmoves": 1, "-wait": 0, "-stalltimeout": 1}


def parse_args(argv: list[str], check_files: bool = True) -> MatchConfig:
    """Parse a cutechess-cli style argument list into a :class:`MatchConfig`.

    ``check_files=False`` skips the existence checks for engine commands and opening files
    (for unit tests of pure syntax). Raises :class:`ArgError` naming the offending argument.
    """
    cfg = MatchConfig()
    engines: list[tuple[EngineSpec, set[str]]] = []
    each = EngineSpec()
    each_seen: set[str] = set()
    seen_opts: set[str] = set()
    for opt, vals in _split_options(list(argv)):
        if opt in ("-h", "-help", "--help"):
            raise ArgError("help requested")
        if opt in _FLAG_OPTIONS:
            if vals:
                raise ArgError(f"{opt}: takes no value, got {' '.join(vals)!r}")
            if opt == "-recover":
                cfg.recover = True
            elif opt == "-noswap":
                cfg.noswap = True
            elif opt == "-debug":
                cfg.debug = True
            elif opt == "-noprogress":
                cfg.progress = False
            continue
        if opt in _SINGLE_INT:
            if len(vals) != 1:
                raise ArgError(f"{opt}: expected one integer value, got {len(vals)} values")
            v = _int(vals[0], opt, _SINGLE_INT[opt])
            attr = {"-timemargin": "timemargin_ms", "-wait": "wait_ms",
                    "-stalltimeout": "stall_timeout_ms"}.get(opt, opt[1:])
            setattr(cfg, attr, v)
            continue
        if opt == "-engine":
            engines.append(_parse_engine_tokens(vals, "-engine"))
        elif opt == "-each":
            if not vals:
                raise ArgError("-each: no settings given")
            for tok in vals:
                k, v = _kv(tok, "-each")
                _apply_engine_kv(each, each_seen, k, v, "-each")
        elif opt == "-repeat":
            if len(vals) > 1:
                raise ArgError(f"-repeat: expected at most one value, got {len(vals)}")
            cfg.repeat = _int(vals[0], "-repeat", 1) if vals else 2
        elif opt == "-srand":
            if len(vals) != 1:
                raise ArgError("-srand: expected one integer seed")
            cfg.srand = _int(vals[0], "-srand", 0)
        elif opt == "-tournament":
            if len(vals) != 1 or vals[0] not in ("round-robin", "gauntlet"):
                raise ArgError(f"-tournament: expected round-robin or gauntlet, got {' '.join(vals)!r}")
            cfg.tournament = vals[0]
        elif opt == "-pgnout":
            if not vals:
                raise ArgError("-pgnout: missing file name")
            cfg.pgnout = vals[0]
            for extra in vals[1:]:
                if extra == "min":
                    cfg.pgn_min = True
                elif extra == "fi":
                    pass  # only finished games are ever written
                else:
                    raise ArgError(f"-pgnout: unknown flag {extra!r} (expected min or fi)")
        elif opt == "-openings":
            cfg.openings = _parse_openings(vals)
        elif opt == "-draw":
            d = _keyed(vals, "-draw", {"movenumber", "movecount", "score"}, {"movenumber", "movecount", "score"})
            cfg.draw = DrawAdjudication(_int(d["movenumber"], "-draw movenumber=", 0),
                                        _int(d["movecount"], "-draw movecount=", 1),
                                        _int(d["score"], "-draw score=", 0))
        elif opt == "-resign":
            d = _keyed(vals, "-resign", {"movecount", "score", "twosided"}, {"movecount", "score"})
            two = d.get("twosided", "false")
            if two not in ("true", "false"):
                raise ArgError(f"-resign twosided=: expected true or false, got {two!r}")
            cfg.resign = ResignAdjudication(_int(d["movecount"], "-resign movecount=", 1),
                                            _int(d["score"], "-resign score=", 0), two == "true")
        elif opt == "-sprt":
            d = _keyed(vals, "-sprt", {"elo0", "elo1", "alpha", "beta", "model", "prior"},
                       {"elo0", "elo1", "alpha", "beta"})
            sp = SprtSpec(_float(d["elo0"], "-sprt elo0="), _float(d["elo1"], "-sprt elo1="),
                          _float(d["alpha"], "-sprt alpha="), _float(d["beta"], "-sprt beta="),
                          d.get("model", "normalized"))
            if "prior" in d:
                sp.prior = _pentanomial(d["prior"], "-sprt prior=")
            if sp.model not in ("normalized", "logistic"):
                raise ArgError(f"-sprt model=: expected normalized or logistic, got {sp.model!r}")
            if not sp.elo0 < sp.elo1:
                raise ArgError("-sprt: elo0 must be less than elo1")
            if not (0 < sp.alpha < 1 and 0 < sp.beta < 1 and sp.alpha + sp.beta < 1):
                raise ArgError("-sprt: need 0 < alpha, beta < 1 and alpha + beta < 1")
            if any(sp.prior):
                st = stats.sprt_status(sp.elo0, sp.elo1, sp.alpha, sp.beta, list(sp.prior),
                                       sp.model)
                if st.decision is not None:
                    raise ArgError(f"-sprt prior=: the earlier parts already decide the test "
                                   f"({st.decision}, LLR {st.llr:.2f})")
            cfg.sprt = sp
        elif opt in ("-event", "-site"):
            if not vals:
                raise ArgError(f"{opt}: missing value")
            setattr(cfg, opt[1:], " ".join(vals))
        elif opt == "-variant":
            if vals != ["standard"]:
                raise ArgError(f"-variant: only 'standard' is supported, got {' '.join(vals)!r}")
        else:
            raise ArgError(f"unknown option {opt!r}")
        if opt in seen_opts and opt not in ("-engine", "-each"):
            raise ArgError(f"{opt}: given more than once")
        seen_opts.add(opt)

    # engines
    for i, (spec, seen) in enumerate(engines):
        _merge_each(spec, seen, each, each_seen)
        label = f"-engine #{i + 1}"
        if not spec.cmd:
            raise ArgError(f"{label}: missing cmd=")
        if spec.tc is None:
            raise ArgError(f"{label} ({spec.display_name()}): missing time control (tc= or st=, "
                           "directly or through -each)")
        if spec.timemargin_ms is None:
            spec.timemargin_ms = cfg.timemargin_ms
        if spec.proto == "xboard" and spec.nodes is not None:
            raise ArgError(f"{label}: nodes= is not supported for xboard engines")
        if check_files:
            _check_engine_files(spec, label)
        cfg.engines.append(spec)
    if len(cfg.engines) < 2:
        raise ArgError("-engine: at least two engines are needed")
    if cfg.sprt and len(cfg.engines) != 2:
        raise ArgError("-sprt: needs exactly two engines")
    if cfg.openings and check_files:
        if not Path(cfg.openings.file).is_file():
            raise ArgError(f"-openings file={cfg.openings.file}: no such file")
    return cfg


def _pentanomial(v: str, what: str) -> tuple[int, int, int, int, int]:
    """Five non-negative pair counts ``a,b,c,d,e`` (pentanomial 0-2, as the report prints them;
    brackets and spaces allowed)."""
    parts = [x.strip() for x in v.strip().strip("[]").split(",")]
    if len(parts) != 5 or not all(x.isdigit() for x in parts):
        raise ArgError(f"{what}: expected five non-negative pair counts like 8,87,152,78,18, "
                       f"got {v!r}")
    a, b, c, d, e = (int(x) for x in parts)
    return a, b, c, d, e


def _keyed(vals: list[str], opt: str, allowed: set[str], required: set[str]) -> dict[str, str]:
    d: dict[str, str] = {}
    for tok in vals:
        k, v = _kv(tok, opt)
        if k not in allowed:
            raise ArgError(f"{opt}: unknown key {k!r} (expected {', '.join(sorted(allowed))})")
        d[k] = v
    missing = required - d.keys()
    if missing:
        raise ArgError(f"{opt}: missing {', '.join(sorted(k + '=' for k in missing))}")
    return d


def _parse_openings(vals: list[str]) -> OpeningsSpec:
    d = _keyed(vals, "-openings", {"file", "format", "order", "plies", "start", "policy"}, {"file"})
    spec = OpeningsSpec(file=d["file"])
    if "format" in d:
        if d["format"] not in ("epd", "pgn"):
            raise ArgError(f"-openings format=: expected epd or pgn, got {d['format']!r}")
        spec.format = d["format"]
    if "order" in d:
        if d["order"] not in ("sequential", "random"):
            raise ArgError(f"-openings order=: expected sequential or random, got {d['order']!r}")
        spec.order = d["order"]
    if "plies" in d:
        spec.plies = _int(d["plies"], "-openings plies=", 1)
    if "start" in d:
        spec.start = _int(d["start"], "-openings start=", 1)
    if "policy" in d:
        if d["policy"] != "default":
            raise ArgError(f"-openings policy=: only 'default' is supported, got {d['policy']!r}")
    return spec
