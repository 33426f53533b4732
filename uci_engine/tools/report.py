"""What a match prints and saves: cutechess's results block and SPRT lines, fastchess's
pentanomial lines, and each game as PGN with cutechess's headers (plain Python; python-chess
for the PGN)."""

from __future__ import annotations

import math

from . import stats
from .args import MatchConfig
from .schedule import MatchResult, Scheduled


def _fmt(x: float, nd: int = 1) -> str:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.{nd}f}"


def format_results(cfg: MatchConfig, res: MatchResult) -> list[str]:
    """The cutechess results block (and fastchess's pentanomial/LLR lines)."""
    lines: list[str] = []
    ps = res.players
    if len(ps) == 2:
        p = ps[0]
        if p.games == 0:
            return lines
        ww, wl, wd = p.white_wins, p.white_losses, p.white_draws
        bw, bl, bd = p.black_wins, p.black_losses, p.black_draws
        wg, bg = ww + wl + wd, bw + bl + bd
        if wg:
            lines.append(f"...      {p.name} playing White: {ww} - {wl} - {wd}  [{(2 * ww + wd) / (2 * wg):.3f}] {wg}")
        if bg:
            lines.append(f"...      {p.name} playing Black: {bw} - {bl} - {bd}  [{(2 * bw + bd) / (2 * bg):.3f}] {bg}")
        wsc = 2 * ww + wd + 2 * bg - (2 * bw + bd)
        lines.append(f"...      White vs Black: {ww + bl} - {wl + bw} - {p.draws}  [{wsc / (2 * p.games):.3f}] {p.games}")
        e = stats.elo_trinomial(p.wins, p.losses, p.draws)
        los = stats.los_cutechess(p.wins, p.losses)
        lines.append(f"Elo difference: {_fmt(e.elo)} +/- {_fmt(e.error)}, LOS: {los:.1f} %, "
                     f"DrawRatio: {100.0 * p.draws / p.games:.1f} %")
        if sum(res.penta):
            lines.append(_ptnml_line("Ptnml(0-2)", res.penta))
        if cfg.sprt:
            lines.extend(format_sprt(cfg, res))
        return lines
    # ranking table for more than two players (cutechess default format)
    lines.append(f"{'Rank':>4} {'Name':<25} {'Elo':>7} {'+/-':>7} {'Games':>7} {'Score':>7} {'Draw':>7}")
    rows = []
    for p in ps:
        if p.games:
            e = stats.elo_trinomial(p.wins, p.losses, p.draws)
            rows.append((e.score, p, e))
    rows.sort(key=lambda r: -r[0])
    for rank, (score, p, e) in enumerate(rows, 1):
        lines.append(f"{rank:>4} {p.name:<25} {_fmt(e.elo, 0):>7} {_fmt(e.error, 0):>7} {p.games:>7} "
                     f"{100 * score:>6.1f}% {100 * p.draws / p.games:>6.1f}%")
    return lines


def _ptnml_line(label: str, penta) -> str:
    """fastchess's pentanomial line: ``LABEL: [counts], Elo (pentanomial): ..., nElo: ...``."""
    pe = stats.elo_pentanomial(penta)
    return (f"{label}: [{', '.join(str(x) for x in penta)}], "
            f"Elo (pentanomial): {_fmt(pe.elo, 2)} +/- {_fmt(pe.error, 2)}, "
            f"nElo: {_fmt(pe.nelo, 2)} +/- {_fmt(pe.nelo_error, 2)}")


def format_sprt(cfg: MatchConfig, res: MatchResult) -> list[str]:
    """fastchess's ``LLR: x (lower, upper) [elo0, elo1]`` and cutechess's ``SPRT:`` line; with
    ``-sprt prior=`` first the counts of the earlier parts and this run together (the LLR is
    theirs)."""
    sp = cfg.sprt
    penta = sp.combined(res.penta)
    st = res.sprt or stats.sprt_status(sp.elo0, sp.elo1, sp.alpha, sp.beta, penta, sp.model)
    out = []
    if any(sp.prior):
        out.append(_ptnml_line("Ptnml(0-2) with the earlier parts", penta))
    out.append(f"LLR: {st.llr:.2f} ({st.lower:.2f}, {st.upper:.2f}) [{sp.elo0:.2f}, {sp.elo1:.2f}]")
    pct = 100.0 * st.llr / st.upper if st.upper else 0.0
    line = f"SPRT: llr {st.llr:.3g} ({pct:.1f}%), lbound {st.lower:.3g}, ubound {st.upper:.3g}"
    if st.decision == "H0":
        line += " - H0 was accepted"
    elif st.decision == "H1":
        line += " - H1 was accepted"
    out.append(line)
    return out


def format_pgn(cfg: MatchConfig, rec, sched: Scheduled, tcs: dict[bool, str]) -> str:
    """One game as PGN with cutechess's headers (Event, Site, Date, Round, White, Black,
    Result, then FEN, GameDuration, GameEndTime, GameStartTime, PlyCount, SetUp, Termination,
    TimeControl -- alphabetical as cutechess writes them) and ``{reason}`` comments."""
    import chess
    import chess.pgn

    root = rec.board.root()
    game = chess.pgn.Game()
    h = game.headers
    h["Event"] = cfg.event
    h["Site"] = cfg.site
    h["Date"] = rec.start_time.astimezone().strftime("%Y.%m.%d")
    h["Round"] = str(sched.round)
    h["White"] = rec.white
    h["Black"] = rec.black
    h["Result"] = rec.result
    extra: dict[str, str] = {}
    if root.fen() != chess.STARTING_FEN:
        extra["FEN"] = root.fen()
        extra["SetUp"] = "1"
    end = rec.end_time or rec.start_time
    dur = int((end - rec.start_time).total_seconds())
    extra["GameDuration"] = f"{dur // 3600:02d}:{dur // 60 % 60:02d}:{dur % 60:02d}"
    extra["GameEndTime"] = end.strftime("%Y-%m-%dT%H:%M:%S.") + f"{end.microsecond // 1000:03d} UTC"
    st = rec.start_time
    extra["GameStartTime"] = st.strftime("%Y-%m-%dT%H:%M:%S.") + f"{st.microsecond // 1000:03d} UTC"
    extra["PlyCount"] = str(len(rec.board.move_stack))
    if rec.termination:
        extra["Termination"] = rec.termination
    if tcs[True] == tcs[False]:
        extra["TimeControl"] = tcs[True]
    else:
        extra["WhiteTimeControl"] = tcs[True]
        extra["BlackTimeControl"] = tcs[False]
    if cfg.pgn_min:
        extra = {k: v for k, v in extra.items() if k in ("FEN", "SetUp")}
    for k in sorted(extra):
        h[k] = extra[k]
    node = game
    for ply, move in enumerate(rec.board.move_stack):
        node = node.add_variation(move)
        if not cfg.pgn_min and ply in rec.comments:
            node.comment = rec.comments[ply]
    if not cfg.pgn_min:
        if node is game:
            game.comment = rec.reason
        else:
            node.comment = f"{node.comment}, {rec.reason}" if node.comment else rec.reason
    exporter = _CutechessExporter(headers=True, variations=False, comments=not cfg.pgn_min)
    return game.accept(exporter) + "\n\n"


def _exporter_class():
    import chess.pgn

    class CutechessExporter(chess.pgn.StringExporter):
        """PGN text with cutechess's comment style ``{+0.25/12 0.52s}`` (no inner spaces)."""

        def visit_comment(self, comment: str) -> None:
            if self.comments and (self.variations or not self.variation_depth):
                self.write_token("{" + comment.replace("}", "").strip() + "} ")
                self.force_movenumber = True

    return CutechessExporter


def _CutechessExporter(**kwargs):
    return _exporter_class()(**kwargs)
