#!/usr/bin/env python3
"""A gauntlet's standings from its PGN files: each engine's results against the anchor (the
outside engine, Ethereal 12 in the campaign), and the difference between a candidate and the
default that played in the same run (docs/campaign.md: a new default must score at least as
well as the old one against the anchor).

Parts of one gauntlet played in several runs (other ``-srand``, another machine) are combined
by naming all their files. Per engine it prints games, W-L-D and score from the engine's side,
the score's logistic Elo with its 95 % interval (``elo_trinomial``), the pentanomial of the
complete game pairs (the two games of one opening with colours swapped, ``-repeat``: same file,
``Round`` and ``FEN``) with its Elo, and the games the engine lost by a fault (the PGN
``Termination`` tag of cutechess-cli, fastchess and our runner: time forfeit, illegal move,
abandoned, stalled connection). With ``--base``, every other engine's Elo minus the base's,
with the interval of the difference of two independent estimates (the errors added in
quadrature).

A stopped SPRT read on the way: ``--prior`` adds the earlier parts' pentanomial (the runner's
``-sprt ... prior=``) to each engine's, and ``--sprt ELO0,ELO1`` prints the combined LLR
(``stats.sprt_llr``, normalized model: the runner's and fishtest's) against the anchor, so a
part's reading is one command: ``--anchor`` the old side, as in ``-pgnout``'s games.

Usage: python scripts/gauntlet.py GAMES.pgn [...] --anchor NAME [--base NAME]
       [--prior P0,P1,P2,P3,P4] [--sprt ELO0,ELO1]
"""
import argparse
import math
from collections import defaultdict

from uci_engine.tools import stats
from uci_engine.tools.args import ArgError, _pentanomial
from uci_engine.tools.game import FAULTS, TERMINATION_TAG
from uci_engine.tools.pgnfiles import RESULT_POINTS, read_games

#: PGN ``Termination`` values that are a fault of the loser (our runner writes cutechess's)
FAULT_TERMINATIONS = frozenset(TERMINATION_TAG[t] for t in FAULTS)


class Standing:
    """One engine's games against the anchor: ``points`` a game (0, 0.5, 1 from the engine's
    side), ``pairs`` {(file index, Round, FEN): [points, ...]} and ``faults`` {Termination:
    games lost so}."""

    def __init__(self):
        self.points = []
        self.pairs = defaultdict(list)
        self.faults = defaultdict(int)

    def wld(self):
        """(wins, losses, draws) from the engine's side."""
        return (self.points.count(1.0), self.points.count(0.0), self.points.count(0.5))

    def pentanomial(self):
        """[LL, LD, WL+DD, WD, WW] of the complete pairs (two games each)."""
        return stats.pentanomial_from_pairs([sum(p) for p in self.pairs.values() if len(p) == 2])


def standings(paths, anchor):
    """{engine: Standing} of every engine that met ``anchor`` in the PGN files ``paths``; games
    without a result (``*``) are left out. Raises OSError for a file that cannot be read."""
    table = defaultdict(Standing)
    for index, path in enumerate(paths):
        for game in read_games([path]):
            h = game.headers
            result = RESULT_POINTS.get(h.get("Result"))
            white, black = h.get("White"), h.get("Black")
            if result is None or anchor not in (white, black) or white == black:
                continue
            engine, points = (black, 1.0 - result) if white == anchor else (white, result)
            st = table[engine]
            st.points.append(points)
            st.pairs[(index, h.get("Round"), h.get("FEN"))].append(points)
            termination = h.get("Termination", "")
            if points == 0.0 and termination in FAULT_TERMINATIONS:
                st.faults[termination] += 1
    return dict(table)


def difference(a, b):
    """Elo of ``a`` minus Elo of ``b`` (two ``EloEstimate``) and the 95 % half-width of the
    difference, the two errors added in quadrature (independent samples)."""
    return a.elo - b.elo, math.hypot(a.error, b.error)


def _ranked(table):
    """``table``'s items, most games first, then by name: the order of every printed list."""
    return sorted(table.items(), key=lambda kv: (-len(kv[1].points), kv[0]))


def report(table, base=None):
    """The printed lines: one per engine (most games first), then the differences to ``base``."""
    lines = [f"{'engine':<16} {'games':>5} {'W-L-D':>12} {'score':>7} {'Elo':>14}  "
             f"{'pentanomial':<24} {'Elo (pairs)':>14}  faults"]
    est = {}
    for name, st in _ranked(table):
        w, l, d = st.wld()
        tri = stats.elo_trinomial(w, l, d)
        penta = st.pentanomial()
        pen = stats.elo_pentanomial(penta) if sum(penta) else None
        est[name] = tri
        faults = ", ".join(f"{n} {k}" for k, n in sorted(st.faults.items())) or "none"
        pen_txt = f"{pen.elo:+6.1f} ± {pen.error:5.1f}" if pen else "-"
        wld = f"{w}-{l}-{d}"
        lines.append(f"{name:<16} {len(st.points):>5} {wld:>12} {tri.score:>7.3f} "
                     f"{tri.elo:+6.1f} ± {tri.error:5.1f}  {str(penta):<24} {pen_txt:>14}  "
                     f"{faults}")
    if base is not None:
        if base not in est:
            raise SystemExit(f"--base {base}: no games of that engine against the anchor")
        for name, e in est.items():
            if name != base:
                diff, err = difference(e, est[base])
                lines.append(f"{name} - {base}: {diff:+.1f} ± {err:.1f} Elo")
    return lines


def combined(table, prior=(0, 0, 0, 0, 0), bounds=None):
    """The printed lines of a resumed SPRT's reading: per engine its pentanomial plus ``prior``
    (five ints, the earlier parts' counts), that sum's Elo with its 95 % interval and, with
    ``bounds`` (elo0, elo1), the normalized LLR of the sum. Raises ValueError unless ``prior``
    has five counts >= 0."""
    if len(prior) != 5 or min(prior) < 0:
        raise ValueError(f"a prior is five counts >= 0, got {list(prior)}")
    lines = []
    for name, st in _ranked(table):
        total = [a + b for a, b in zip(st.pentanomial(), prior)]
        if not sum(total):
            continue
        e = stats.elo_pentanomial(total)
        line = f"{name} with the earlier parts: {total}, {2 * sum(total)} games, " \
               f"{e.elo:+.1f} ± {e.error:.1f} Elo"
        if bounds is not None:
            llr = stats.sprt_llr(bounds[0], bounds[1], total)
            line += f", LLR {llr:+.2f} [{bounds[0]:g}, {bounds[1]:g}]"
        lines.append(line)
    return lines


def _prior(text):
    """``--prior``: the runner's ``-sprt prior=`` parser (five counts, brackets allowed, so the
    report's ``[a, b, c, d, e]`` pastes in), its error turned into argparse's usage error."""
    try:
        return list(_pentanomial(text, "--prior"))
    except ArgError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _bounds(text):
    """``--sprt``: two comma-separated Elo bounds, elo0 < elo1 as the runner's ``-sprt`` requires;
    argparse's usage error for anything else."""
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        values = []
    if len(values) != 2:
        raise argparse.ArgumentTypeError(f"2 comma-separated numbers, got {text!r}")
    if not values[0] < values[1]:
        raise argparse.ArgumentTypeError(f"elo0 must be less than elo1, got {text!r}")
    return values


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pgn", nargs="+", help="the gauntlet's PGN files (one per part)")
    ap.add_argument("--anchor", required=True, help="the engine every other one played")
    ap.add_argument("--base", help="the default: print each other engine's Elo minus its")
    ap.add_argument("--prior", type=_prior,
                    help="an SPRT's earlier parts: their pentanomial P0,P1,P2,P3,P4, added")
    ap.add_argument("--sprt", type=_bounds, metavar="ELO0,ELO1",
                    help="print the combined LLR of the SPRT [ELO0, ELO1] "
                         "(--sprt=-10,0 for a negative bound)")
    args = ap.parse_args(argv)
    table = standings(args.pgn, args.anchor)
    if not table:
        raise SystemExit(f"no games against {args.anchor!r} in {', '.join(args.pgn)}")
    lines = report(table, args.base)
    if args.prior is not None or args.sprt is not None:
        lines += combined(table, args.prior or (0, 0, 0, 0, 0), args.sprt)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
