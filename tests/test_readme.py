"""README.md is a user guide: short, each measured figure once (the logs live in docs/), its
links resolve, its newcomer commands are the ones CI and the install tests run.

The install tests (tests/test_install.py, marked slow) run the README's ``uci-engine`` command
lines, the newcomer's ``.venv/bin/uci-engine`` among them; tests/test_readme_match.py checks its
match commands.
"""
import re
import shlex
from collections import Counter
from pathlib import Path

from uci_engine.cli import _build_parser

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
#: issue 30: "README as a user guide of at most about 300 lines"
MAX_README_LINES = 300
#: a measured figure in prose: a number with its unit ("1.86 M nps", "0.886x", "88.0 %",
#: "+259.0 ± 38.7 Elo", "486 positions/s", "2,980,835 nodes")
FIGURE = re.compile(r"[+-]?\d[\d,]*(?:\.\d+)?(?: ± \d+(?:\.\d+)?)?\s?"
                    r"(?:M nps|%|x\b|s\b|positions/s|nodes\b|games\b|Elo\b)")
#: the one line that states the OpenBench bench signature (issue 30, point 6)
BENCH_LINE = re.compile(r"^Bench: [\d,]+ nodes \([\d,]+ with the hand-crafted evaluation\)$",
                        re.M)


def _text():
    return README.read_text(encoding="utf-8")


def _section(title):
    """The README's ``## title`` section, up to the next ``## `` heading."""
    m = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", _text(), re.M | re.S)
    assert m, f"README has no section {title!r}"
    return m.group(1)


def _sh_blocks(text):
    return re.findall(r"^```sh\n(.*?)^```", text, re.M | re.S)


def _prose(text):
    """Text outside code blocks, inline code and link targets."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    return re.sub(r"\]\([^)]*\)", "]", text)


def _slug(heading):
    """GitHub's anchor for a Markdown heading."""
    s = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return s.replace(" ", "-")


def test_readme_is_at_most_300_lines():
    n = len(_text().splitlines())
    assert n <= MAX_README_LINES, f"README.md has {n} lines; measurements belong in docs/"


def test_each_measured_figure_appears_once():
    counts = Counter(FIGURE.findall(_prose(_text())))
    assert counts, "the figure pattern found nothing: the test would pass vacuously"
    repeated = {fig: n for fig, n in counts.items() if n > 1}
    assert not repeated, repeated


def test_bench_signature_is_one_line():
    assert len(BENCH_LINE.findall(_text())) == 1
    nodes = BENCH_LINE.search(_text()).group(0).split()[1]
    assert _text().count(nodes) == 1, f"{nodes} appears outside the bench line"


def test_bench_line_is_the_engines_signature():
    """The README's ``Bench:`` line is what ``uci-engine bench`` (the default net) and
    ``uci-engine -o "Use NNUE=false" bench`` count now: a new default net or a search change
    that forgets the README fails here."""
    from uci_engine.bench import run_bench
    from uci_engine.engine import Engine
    stated = [int(n.replace(",", "")) for n in
              re.findall(r"[\d,]+", BENCH_LINE.search(_text()).group(0))]
    counted = []
    for use_nnue in (True, False):
        e = Engine(16)
        e.set_use_nnue(use_nnue)
        counted.append(run_bench(e, out=lambda line: None)[0])
    assert stated == counted


def test_newcomer_commands_are_what_ci_and_the_install_test_run():
    blocks = _sh_blocks(_section("On a fresh machine"))
    assert len(blocks) == 2, blocks
    start, tests = (b.strip() for b in blocks)
    # .ci/run runs the second command verbatim
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert tests in ci, (tests, ci)
    assert tests.split("&&")[-1].split() == [".venv/bin/python", "-m", "pytest"]
    # the first ends by starting the engine with no subcommand: the UCI loop, which
    # tests/test_install.py::test_documented_cli_commands runs from the installed venv
    engine = shlex.split(start.split("&&")[-1])
    assert Path(engine[0]).name == "uci-engine", start
    assert _build_parser().parse_args(engine[1:]).command in (None, "uci")


def test_links_resolve():
    """Relative links (and their anchors) of the README and of docs/, where its logs live."""
    for page in [README, *sorted((ROOT / "docs").glob("*.md"))]:
        _check_links(page)


def _check_links(page):
    for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+://", target):
            continue
        path, _, anchor = target.partition("#")
        doc = (page.parent / path).resolve() if path else page
        assert doc.is_file(), (page.name, target)
        if anchor:
            headings = re.findall(r"^#+ (.+)$", doc.read_text(encoding="utf-8"), re.M)
            assert anchor in {_slug(h) for h in headings}, (page.name, target)
