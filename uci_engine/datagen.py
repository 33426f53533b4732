"""Self-play data generation: ``uci-engine datagen`` (plain-Python orchestration of the games
of :mod:`uci_engine.selfplay`: workers, the output file and its resume, progress).

Games are played in-process through the compiled search (:class:`uci_engine.engine.Engine`: no
UCI round trip, no python-chess on the hot path), one engine, TT and history per worker, cleared
for every game. With ``--format text`` (the default) each kept position becomes one line of the
text format that bullet and marlinflow read::

    <FEN> | <score> | <result>

``score`` is the search score in centipawns from White's point of view (int) and ``result`` the
game result from White's point of view (``1.0``, ``0.5``, ``0.0``); :mod:`uci_engine.dataformat`
writes and reads these lines. Left out: the random opening
plies, positions in check, positions whose score is a mate score, and positions whose best move
is a capture or a promotion (``--keep-noisy`` keeps the last two kinds), as in the data
generators of Stormphrax and bullet-trained engines (the "quiet position" filter of Texel's
tuning method, chessprogramming wiki).

With ``--format records`` each game is written whole in the compact binary format of
:mod:`uci_engine.gamerecord` (start position, then a 16-bit move and a 16-bit White's-view
score per ply: 4 bytes a ply, about 6 a kept position): every ply, the random ones unscored,
so the filter above is applied by the reader (``python -m uci_engine.gamerecord to-text`` gives the
lines the text format would have written). The text format stays the default because
scripts/tune_eval.py, fit_wdl.py and eval_loss.py read only text; scripts/train_nnue.py reads
both.

Game ``g`` is played from its own seed, derived from ``--seed`` and ``g`` alone
(:class:`numpy.random.SeedSequence`), and node-limited searches from a cleared TT are
deterministic: the same ``--seed`` and ``--nodes`` give the same lines for every game, however
many workers play them and in whatever order they finish. A sidecar ``<out>.json`` records the
settings and which games are finished, so running the same command again appends the missing
games only (resume after Ctrl-C); a different seed, node count or format is refused for the same
file. It also names what made the data: the engine commit, the net's sha256 (or
"hand-crafted"), nodes, seed, book and the command line.
"""
import json
import os
import shlex
import signal
import sys
import time

from .gamerecord import MAGIC, complete_bytes, is_record_file
from .selfplay import GamePlayer, Settings, read_book


def _select_backend(backend):
    from . import backend as B
    B.select(backend)


def _worker(backend, settings, tasks, results):
    """Process body: play the game numbers read from ``tasks`` (None ends) and put
    ``(game, output, positions, result, searched, nodes)`` (:meth:`GamePlayer.play_output`)
    on ``results``. Ctrl-C is left to the parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _select_backend(backend)
    player = GamePlayer(settings)
    while True:
        g = tasks.get()
        if g is None:
            break
        results.put((g, *player.play_output(g)))


def play_chunk(backend, settings, games):
    """Play the games numbered ``games`` (list of int) in this process; returns a list of
    ``(game, output, positions, result, searched, nodes)`` (:meth:`GamePlayer.play_output`).
    The body of a Ray task; also usable directly."""
    _select_backend(backend)
    player = GamePlayer(settings)
    return [(g, *player.play_output(g)) for g in games]


# --- the run -----------------------------------------------------------------------------------
def _commit():
    """Short git hash of the engine's checkout (str), or the package version when installed."""
    import subprocess
    from . import __version__
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, timeout=5,
                             cwd=os.path.dirname(os.path.abspath(__file__)))
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return f"uci_engine {__version__}"


def _ranges(games):
    """Sorted game numbers (set of int) as inclusive ``[first, last]`` runs."""
    out = []
    for g in sorted(games):
        if out and out[-1][1] == g - 1:
            out[-1][1] = g
        else:
            out.append([g, g])
    return out


class Progress:
    """The sidecar ``<out>.json``: settings and finished game numbers, so a run resumes."""

    def __init__(self, out, settings):
        self.path = out + ".json"
        self.done = set()
        key = {"seed": settings.seed, "nodes": settings.nodes, "keep_noisy": settings.keep_noisy,
               "book": len(settings.book), "syzygy": bool(settings.syzygy)}
        if settings.net_digest is not None:
            key["net"] = settings.net_digest                  # which net evaluated the games
        if settings.fmt != "text":
            key["format"] = settings.fmt                  # (text runs keep their old key)
        self.key = key
        self.about = {"format": settings.fmt, "net_sha256": settings.net_sha256,
                      "book": settings.book_name or (f"{len(settings.book)} positions"
                                                     if settings.book else "startpos")}
        if os.path.exists(self.path):
            with open(self.path, encoding="utf-8") as f:
                old = json.load(f)
            if old.get("settings") != key:
                raise ValueError(f"{out} was made with other settings {old.get('settings')}; "
                                 f"use another --out or the same settings")
            self.done = {g for a, b in old.get("done", []) for g in range(a, b + 1)}
            self.positions = old.get("positions")
            if self.positions is None:                # a sidecar from before the count
                self.positions = _count_positions(out, settings.fmt)
        else:
            self.positions = 0                        # kept positions in the whole file
        self.commit = _commit()

    def save(self, extra=None):
        # nodes, seed, commit and command at the top level describe the data to
        # scripts/tune_eval.py, which copies them into the tuned module's header
        data = {"nodes": self.key["nodes"], "seed": self.key["seed"], "commit": self.commit,
                "command": "uci-engine " + shlex.join(sys.argv[1:]), **self.about,
                "settings": self.key, "done": _ranges(self.done), "positions": self.positions}
        data.update(extra or {})
        tmp = self.path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(data, f)
        os.replace(tmp, self.path)


def _count_positions(out, fmt):
    """Kept positions (int) in an existing output file: its lines, or a game-record file's
    kept positions (:func:`uci_engine.gamerecord.stats`, a replay: slow on big files, only for
    sidecars written before they counted)."""
    if not os.path.exists(out):
        return 0
    if fmt == "records":
        from .gamerecord import stats
        try:
            return stats(out)["positions"]
        except ValueError:                  # a game cut short: counted as none, played again
            return 0
    with open(out, encoding="utf-8") as f:
        return sum(1 for _ in f)


class _StopRequest:
    """What SIGINT and SIGTERM ask of a run, set by :func:`_stop_on_signals`'s handler.

    The first signal only sets ``requested``: the loops that wait for games look at it between
    waits, write every game already finished and end the run. Raising ``KeyboardInterrupt``
    from the handler instead could land inside a multiprocessing queue's locks or pipe reads
    and leave the process hung at exit (CI, stop 117). A second signal raises
    ``KeyboardInterrupt`` at once, for a run that does not stop."""

    def __init__(self):
        self.requested = False

    def __call__(self, signum, frame):
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True


#: seconds between looks at a stop request while waiting for a game
STOP_POLL_S = 0.2


def _stop_on_signals(stop):
    """Make SIGINT and SIGTERM end a run the way Ctrl-C does (every finished game written),
    by setting ``stop.requested`` (a :class:`_StopRequest`). SIGINT needs it too: a shell
    starts a background job (``cmd &``) with SIGINT ignored, and Python then installs no
    Ctrl-C handler. Returns ``{signal: previous handler}``; empty when not called from the
    main thread (signal handlers cannot be set there; Ctrl-C then raises KeyboardInterrupt
    as usual)."""
    old = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            old[sig] = signal.signal(sig, stop)
        except ValueError:
            break
    return old


def run(out, settings, backend, games=None, positions=None, workers=1, ray_address=None,
        progress=True, log=print):
    """Play games and append their lines to ``out``; returns a summary dict (games, positions,
    seconds, games_per_s, positions_per_s, results, and ``searches``, ``searches_per_s`` and
    ``nodes_per_search``: the searches after the openings, one a position of a game record).

    ``games``: play game numbers 0 .. games-1 (skipping those already in the sidecar).
    ``positions``: instead, keep numbering new games until the file holds this many positions
    (those of a resumed run count: the same command again plays only what is missing).
    ``workers`` local processes, or Ray tasks on the cluster at ``ray_address`` ("local"
    starts one on this machine)."""
    prog = Progress(out, settings)
    records = settings.fmt == "records"
    if os.path.exists(out) and os.path.getsize(out) and is_record_file(out) != records:
        raise ValueError(f"{out} is {'not ' if records else ''}a game-record file; "
                         f"use another --out or --format {'text' if records else 'records'}")
    if records and os.path.exists(out) and os.path.getsize(out):
        size, keep = os.path.getsize(out), complete_bytes(out)
        if keep < size:
            # a game cut short by a crash is not in the sidecar: it is played again
            log(f"datagen: {out}: dropping the {size - keep} bytes of a game cut short at "
                f"offset {keep}")
            os.truncate(out, keep)
    want_games = games
    t0 = time.perf_counter()
    written = 0
    n_games = 0
    n_searched = n_nodes = 0             # searches after the openings, and their nodes
    results = {1.0: 0, 0.5: 0, 0.0: 0}
    bar = None
    try:
        from tqdm import tqdm
    except ImportError:                      # tqdm comes with the tune and cluster extras
        progress = False
    if progress:
        bar = tqdm(total=want_games if want_games else positions, unit="game" if want_games
                   else "pos", initial=0 if want_games else min(prog.positions, positions),
                   dynamic_ncols=True, file=sys.stderr)

    def next_games():
        g = 0
        while True:
            if want_games is not None and g >= want_games:
                return
            if g not in prog.done:
                yield g
            g += 1

    def enough():
        return positions is not None and prog.positions >= positions

    def record(f, g, output, n_pos, result, searched, nodes):
        nonlocal written, n_games, n_searched, n_nodes
        n_searched += searched
        n_nodes += nodes
        if output:
            f.write(output)
            f.flush()
        prog.done.add(g)
        written += n_pos
        prog.positions += n_pos
        n_games += 1
        results[result] += 1
        prog.save()
        if bar is not None:
            el = max(time.perf_counter() - t0, 1e-9)
            bar.update(1 if want_games else n_pos)
            bar.set_postfix_str(f"{n_games / el:.2f} games/s, {written / el:.0f} pos/s, "
                                f"{n_nodes / max(n_searched, 1):.0f} nodes/search")

    source = next_games()
    interrupted = False
    stop = _StopRequest()
    handlers = _stop_on_signals(stop)
    with open(out, "ab") if records else open(out, "a", encoding="utf-8") as f:
        if records and f.tell() == 0:
            f.write(MAGIC)
        try:
            if enough():
                pass                            # the file already holds what was asked
            elif ray_address:
                _run_ray(ray_address, backend, settings, source, enough, record, f, workers,
                         stop)
            else:
                _run_local(backend, settings, source, enough, record, f, workers, stop)
            interrupted = stop.requested
        except KeyboardInterrupt:
            interrupted = True
        finally:
            for sig, old in handlers.items():
                signal.signal(sig, old)
            prog.save()
            if bar is not None:
                bar.close()
    el = max(time.perf_counter() - t0, 1e-9)
    summary = {"games": n_games, "positions": written, "seconds": round(el, 1),
               "games_per_s": round(n_games / el, 3), "positions_per_s": round(written / el, 1),
               "white_wins": results[1.0], "draws": results[0.5], "black_wins": results[0.0],
               "searches": n_searched, "searches_per_s": round(n_searched / el, 1),
               "nodes_per_search": round(n_nodes / max(n_searched, 1), 1),
               "interrupted": interrupted}
    log(f"datagen: {n_games} games, {written} positions in {el:.1f} s: "
        f"{n_games / el:.2f} games/s, {written / el:.0f} positions/s "
        f"(+{results[1.0]} ={results[0.5]} -{results[0.0]}, White's view; "
        f"nodes {settings.nodes}, workers {workers}{', interrupted' if interrupted else ''}); "
        f"{n_searched} searches, {n_searched / el:.0f}/s, "
        f"{n_nodes / max(n_searched, 1):.0f} nodes each")
    return summary


def _run_local(backend, settings, source, enough, record, f, workers, stop):
    """Play ``source``'s games in ``workers`` spawned processes, passing each result to
    ``record``, until the source ends, ``enough()`` holds or ``stop.requested`` is set (then
    the games that finish within :data:`STOP_POLL_S` are written too). The workers are
    terminated (killed when they outlive that) before it returns or raises."""
    import multiprocessing as mp
    import queue
    ctx = mp.get_context("spawn")
    tasks, results = ctx.Queue(), ctx.Queue()
    procs = [ctx.Process(target=_worker, args=(backend, settings, tasks, results), daemon=True)
             for _ in range(workers)]
    try:
        for p in procs:
            p.start()
        in_flight = 0
        for _ in range(2 * workers):                  # keep every worker busy
            g = next(source, None)
            if g is None:
                break
            tasks.put(g)
            in_flight += 1
        while in_flight:
            try:
                item = results.get(timeout=STOP_POLL_S)
            except queue.Empty:
                if stop.requested:                    # every game finished by now is written
                    break
                if not any(p.is_alive() for p in procs):
                    raise RuntimeError("every datagen worker died")
                continue
            in_flight -= 1
            record(f, *item)
            if not stop.requested and not enough():
                nxt = next(source, None)
                if nxt is not None:
                    tasks.put(nxt)
                    in_flight += 1
    finally:
        procs = [p for p in procs if p.pid is not None]         # the ones that started
        for p in procs:
            if p.is_alive():
                p.terminate()
        for p in procs:
            p.join(timeout=5)
            if p.is_alive():                          # SIGTERM did not end it
                p.kill()
                p.join(timeout=5)
        # the workers are gone: nothing will read what is still queued for them
        tasks.cancel_join_thread()
        tasks.close()
        results.close()


#: games per Ray task: large enough to amortise the task's start (backend + kernel load)
RAY_CHUNK = 8


def _run_ray(address, backend, settings, source, enough, record, f, workers, stop):
    import ray
    env = {k: v for k, v in os.environ.items()
           if k.startswith(("NUMBA_", "UCI_ENGINE_", "XDG_CACHE_HOME"))}
    started = False
    if not ray.is_initialized():
        if address == "local":
            ray.init(num_cpus=workers, runtime_env={"env_vars": env}, include_dashboard=False,
                     log_to_driver=False)
        else:
            ray.init(address=address, runtime_env={"env_vars": env}, log_to_driver=False)
        started = True
    task = ray.remote(num_cpus=1)(play_chunk)
    try:
        pending = []

        def submit():
            chunk = [g for _, g in zip(range(RAY_CHUNK), source)]
            if chunk:
                pending.append(task.remote(backend, settings, chunk))
            return bool(chunk)

        for _ in range(2 * max(1, workers)):
            if not submit():
                break
        while pending:
            ready, pending = ray.wait(pending, num_returns=1, timeout=STOP_POLL_S)
            if not ready:
                if stop.requested:                    # every chunk finished by now is written
                    for ref in pending:
                        ray.cancel(ref, force=True)
                    break
                continue
            for item in ray.get(ready[0]):
                record(f, *item)
            if not stop.requested and not enough():
                submit()
    finally:
        if started:
            ray.shutdown()


def main(args, backend):
    """``uci-engine datagen`` with parsed ``args``; returns the exit status."""
    book = read_book(args.book) if args.book else []
    try:
        settings = Settings(nodes=args.nodes, seed=args.seed, book=book, syzygy=args.syzygy,
                            keep_noisy=args.keep_noisy, eval_file=args.eval_file,
                            fmt=args.format, book_name=args.book)
    except (OSError, ValueError) as exc:
        print(f"error: --eval-file: {exc}", file=sys.stderr)
        return 2
    if args.games is None and args.positions is None:
        print("error: give --games N or --positions N", file=sys.stderr)
        return 2
    workers = args.workers or os.cpu_count() or 1
    try:
        run(args.out, settings, backend, games=args.games, positions=args.positions,
            workers=workers, ray_address=args.ray, progress=not args.quiet)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0
