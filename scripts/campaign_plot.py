#!/usr/bin/env python3
"""Draw the strength campaign's ledger (docs/campaign.md) as a picture: docs/campaign.png.

Two panels, both in Elo with 95 % intervals (the ledger's "Elo ±" column, pentanomial logistic
Elo for SPRTs, the score's logistic Elo for gauntlets):

* **Self-play:** each kept step's gain over the default before it (the SPRT of the step, rows of
  kind ``selfplay`` whose verdict begins with ``kept`` or ``H1, kept``), and the running sum
  along the chain (its interval the root of the summed squares, as for independent tests).
* **Against Ethereal 12:** every gauntlet row (kind ``ethereal``), one point a build and time
  control, in ledger order.

The ledger is the table under the heading ``## Ledger``; its columns are those of
:data:`COLUMNS`. Rows of other kinds (``data``, ``train``, ``spsa``) are not drawn.

Usage: python scripts/campaign_plot.py [--ledger docs/campaign.md] [--out docs/campaign.png]
"""
import argparse
import math
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
LEDGER = os.path.join(ROOT, "docs", "campaign.md")
PICTURE = os.path.join(ROOT, "docs", "campaign.png")
HEADING = "## Ledger"
#: the ledger's columns, in order (docs/campaign.md)
COLUMNS = ("#", "date", "kind", "step", "commit or net", "tc", "games", "result", "Elo ±",
           "LLR", "verdict")
KINDS = ("selfplay", "ethereal", "data", "train", "spsa")
#: issue 43's target score against Ethereal 12, and its logistic Elo (+34.9), drawn as a line
TARGET_SCORE = 0.55
TARGET_ELO = -400.0 * math.log10(1.0 / TARGET_SCORE - 1.0)
_ELO = re.compile(r"^([+\-−]?\d+(?:\.\d+)?)\s*±\s*(\d+(?:\.\d+)?)$")


def parse_elo(text):
    """``(elo, half_width)`` (floats) of a cell such as ``+37.3 ± 17.3`` or ``−21 ± 52`` (the
    Unicode minus is accepted); None for ``—`` or an empty cell. Raises ValueError otherwise."""
    text = text.strip().replace("*", "")
    if text in ("", "—", "-"):
        return None
    m = _ELO.match(text)
    if not m:
        raise ValueError(f"not an Elo with its interval: {text!r}")
    return float(m.group(1).replace("−", "-")), float(m.group(2))


def read_ledger(path=LEDGER):
    """The ledger's rows (list of dicts keyed by :data:`COLUMNS`, plus ``elo`` from
    :func:`parse_elo`). Raises ValueError for a missing table, a row with another number of
    cells, an unknown kind or an unreadable Elo cell."""
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    try:
        start = lines.index(HEADING)
    except ValueError:
        raise ValueError(f"{path}: no {HEADING!r} section") from None
    rows, header = [], None
    for line in lines[start + 1:]:
        if line.startswith("## "):
            break
        if not line.startswith("|"):
            if header is not None and rows and not line.strip():
                break
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = tuple(cells)
            if header != COLUMNS:
                raise ValueError(f"{path}: ledger columns {header}, expected {COLUMNS}")
            continue
        if set(line.replace("|", "").strip()) <= set("-: "):
            continue                                    # the header's separator row
        if len(cells) != len(COLUMNS):
            raise ValueError(f"{path}: ledger row with {len(cells)} cells: {line[:80]}")
        row = dict(zip(COLUMNS, cells))
        if row["kind"] not in KINDS:
            raise ValueError(f"{path}: row {row['#']}: unknown kind {row['kind']!r}")
        row["elo"] = parse_elo(row["Elo ±"])
        rows.append(row)
    if header is None:
        raise ValueError(f"{path}: the {HEADING!r} section has no table")
    return rows


def _label(row, width=32):
    """A tick label of a ledger row: its number, build or net, and time control."""
    text = f"#{row['#']} {row['commit or net']} {row['tc']}"
    return text if len(text) <= width else text[:width - 1] + "…"


#: a verdict that keeps its step: "kept ..." or "**H1, kept**: ...", emphasis aside; "not kept"
#: and "stopped, not kept" do not match
_KEPT = re.compile(r"(h1,\s*)?kept\b")


def is_kept(verdict):
    """Whether a ledger verdict (str, markdown) keeps its step: it begins with "kept", or with
    "H1, kept", bold or not."""
    return _KEPT.match(verdict.replace("*", "").strip().lower()) is not None


def series(rows):
    """``(chain, gauntlets)``: the kept self-play steps as ``(label, elo, half, cum, cum_half)``
    and the Ethereal rows as ``(label, elo, half)``; rows without an Elo are left out."""
    chain, total, var = [], 0.0, 0.0
    for r in rows:
        if r["kind"] == "selfplay" and r["elo"] and is_kept(r["verdict"]):
            elo, half = r["elo"]
            total += elo
            var += half * half
            chain.append((_label(r), elo, half, total, var ** 0.5))
    gauntlets = [(_label(r), *r["elo"]) for r in rows if r["kind"] == "ethereal" and r["elo"]]
    return chain, gauntlets


def draw(rows, out):
    """Write the picture of ``rows`` (:func:`read_ledger`) to ``out`` (PNG); returns what it
    drew, ``(chain, gauntlets)`` of :func:`series`."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    chain, gauntlets = series(rows)
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.8))
    if chain:
        x = range(len(chain))
        a.errorbar(x, [c[1] for c in chain], yerr=[c[2] for c in chain], fmt="o", capsize=4,
                   label="step over the default before it")
        a.errorbar([i + 0.08 for i in x], [c[3] for c in chain], yerr=[c[4] for c in chain],
                   fmt="s-", capsize=4, label="sum along the chain")
        a.set_xticks(list(x), [c[0] for c in chain], rotation=30, ha="right", fontsize=7)
        a.set_xlim(-0.5, len(chain) - 0.5)
        a.legend(fontsize=8)
    a.axhline(0, color="grey", lw=0.8)
    a.set_title("Self-play: kept steps (SPRT Elo, 95 %)")
    a.set_ylabel("Elo")
    if gauntlets:
        x = range(len(gauntlets))
        b.errorbar(x, [g[1] for g in gauntlets], yerr=[g[2] for g in gauntlets], fmt="o",
                   capsize=4, color="C3")
        b.set_xticks(list(x), [g[0] for g in gauntlets], rotation=30, ha="right", fontsize=7)
        b.set_xlim(-0.5, len(gauntlets) - 0.5)
    b.axhline(0, color="grey", lw=0.8)
    b.axhline(TARGET_ELO, color="C2", lw=0.8, ls="--",
              label=f"{TARGET_SCORE:.0%} (the target)")
    b.set_title("Against Ethereal 12 (Elo, 95 %)")
    b.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return chain, gauntlets


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ledger", default=LEDGER)
    ap.add_argument("--out", default=PICTURE)
    args = ap.parse_args(argv)
    try:
        rows = read_ledger(args.ledger)
    except (OSError, ValueError) as exc:
        print(f"campaign_plot: {exc}", file=sys.stderr)
        return 1
    chain, gauntlets = draw(rows, args.out)
    print(f"wrote {args.out}: {len(chain)} kept self-play steps, {len(gauntlets)} gauntlets "
          f"({len(rows)} ledger rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
