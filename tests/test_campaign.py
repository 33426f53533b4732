"""The strength campaign's page (docs/campaign.md) resumes from a fresh clone.

* every file of the project that the page names exists (commands' output files excepted);
* the candidate nets in ``campaign/nets/`` load, and each has its record and float weights
  of the same architecture;
* the changes kept as patches until their games pass still apply, and their kernels call
  the kernel functions with as many arguments as those take (a patch that applies can still
  fail to compile: probcut.patch, 2026-12-01);
* the ledger parses, and ``scripts/campaign_plot.py`` draws it (and refuses a broken one).
"""
import ast
import json
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

from uci_engine.nnue_file import load_net

from conftest import load_script

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = os.path.join(ROOT, "docs", "campaign.md")
#: a project path: a top-level folder of the checkout, then a file or folder name
PATH = re.compile(r"(?<![\w/.$-])((?:campaign|scripts|docs|uci_engine|tests)/[\w./-]*\w)")
#: options whose value is a file a command writes, which need not exist yet
OUTPUT_OPTIONS = ("--out", "--state", "--log", "-pgnout")
P = load_script("campaign_plot")


def named_paths(text):
    """The project paths ``text`` names (set of str), leaving out the outputs of commands."""
    found = set()
    for m in PATH.finditer(text):
        before = text[:m.start()].rstrip(" =\n")
        if before.endswith(OUTPUT_OPTIONS):
            continue
        found.add(m.group(1))
    return found


def test_every_file_the_page_names_exists():
    with open(PAGE, encoding="utf-8") as fh:
        paths = named_paths(fh.read())
    # what a new machine needs to resume is named (so this test cannot pass on an empty page)
    for need in ("scripts/remote_datagen.sh", "scripts/campaign_plot.py", "docs/campaign.png",
                 "campaign/patches/probcut.patch", "scripts/train_nnue.py"):
        assert need in paths, need
    assert any(p.startswith("campaign/nets/") and p.endswith(".f16.npz") for p in paths)
    missing = sorted(p for p in paths if not os.path.exists(os.path.join(ROOT, p)))
    assert missing == []


def test_named_paths_leaves_out_outputs_and_finds_the_rest():
    text = ("see `campaign/nets/a.nnue` and `docs/x.md`; python scripts/t.py --out "
            "/work/n.nnue --state campaign/spsa/state.json --log=campaign/spsa/log.jsonl "
            "-pgnout docs/g.pgn --log\ncampaign/x.jsonl --init campaign/nets/a.f16.npz, $PWD/campaign/nets/b.nnue")
    assert named_paths(text) == {"campaign/nets/a.nnue", "docs/x.md", "scripts/t.py",
                                 "campaign/nets/a.f16.npz"}


def test_candidate_nets_carry_their_record_and_float_weights():
    nets = sorted(n for n in os.listdir(os.path.join(ROOT, "campaign", "nets"))
                  if n.endswith(".nnue"))
    assert nets
    for name in nets:
        path = os.path.join(ROOT, "campaign", "nets", name)
        net = load_net(path)
        with open(path + ".json", encoding="utf-8") as fh:
            record = json.load(fh)
        assert record["architecture"] == net.architecture()
        assert record["sources"] and all(s.get("net_sha256") for s in record["sources"])
        with np.load(path[:-len(".nnue")] + ".f16.npz") as z:
            arch = json.loads(str(z["architecture"]))
            assert (arch["hidden"], arch["output_buckets"]) == (net.hidden, net.output_buckets)
            assert z["w_ft"].dtype == np.float16
            # the float weights are the net's before rounding: within half a step of it
            assert np.abs(z["w_ft"].astype(np.float64) - net.w_ft / net.qa).max() <= (
                0.5 / net.qa + 2e-3)


@pytest.mark.skipif(shutil.which("git") is None
                    or not os.path.exists(os.path.join(ROOT, ".git")), reason="needs a git clone")
def test_the_waiting_patches_still_apply():
    """Each change that waits for its games as a patch (branches do not survive a new machine)
    still applies to the tree, alone; a change to the lines it touches must carry it along."""
    patches = sorted(os.listdir(os.path.join(ROOT, "campaign", "patches")))
    assert "probcut.patch" in patches
    for name in patches:
        proc = subprocess.run(["git", "apply", "--check", f"campaign/patches/{name}"],
                              cwd=ROOT, capture_output=True, text=True)
        assert proc.returncode == 0, f"{name}: {proc.stderr}"


def kernel_call_errors(kernels):
    """Calls in the modules of the folder ``kernels`` (a package of plain ``.py`` files) to a
    top-level function of one of them, by its own name or a ``from .module import name``, with
    a number of arguments the function does not take: list of ``"file:line: name(n args),
    takes a..b"`` strings. Numba finds the same mismatch only when it compiles ``negamax``,
    minutes into a build."""
    trees = {}
    for name in sorted(os.listdir(kernels)):
        if name.endswith(".py"):
            with open(os.path.join(kernels, name), encoding="utf-8") as fh:
                trees[name[:-3]] = ast.parse(fh.read(), filename=name)
    defs = {}
    for mod, tree in trees.items():
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                a = node.args
                n = len(a.posonlyargs) + len(a.args)
                if any(getattr(d, "id", None) == "intrinsic" for d in node.decorator_list):
                    n -= 1                  # numba's @intrinsic: typingctx is not passed
                defs[mod, node.name] = (n - len(a.defaults), None if a.vararg else n)
    errors = []
    for mod, tree in trees.items():
        known = {name: defs[m, name] for m, name in defs if m == mod}
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module in trees:
                for alias in node.names:
                    if (node.module, alias.name) in defs:
                        known[alias.asname or alias.name] = defs[node.module, alias.name]
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in known):
                continue
            if any(isinstance(x, ast.Starred) for x in node.args) or any(
                    k.arg is None for k in node.keywords):
                continue
            lo, hi = known[node.func.id]
            n = len(node.args) + len(node.keywords)
            if n < lo or (hi is not None and n > hi):
                errors.append(f"{mod}.py:{node.lineno}: {node.func.id}({n} args), takes "
                              f"{lo}..{hi}")
    return errors


def test_kernel_call_errors_finds_a_call_with_the_wrong_arguments(tmp_path):
    (tmp_path / "a.py").write_text("def push(acc, m, sply, extra=0):\n    return acc\n")
    (tmp_path / "b.py").write_text("from .a import push\n\ndef f(acc):\n"
                                   "    push(acc, 1, 2)\n    push(acc, 1, 2, 3)\n"
                                   "    return push(acc, 1, 2, 3, 4, 5)\n")
    assert kernel_call_errors(str(tmp_path)) == ["b.py:6: push(6 args), takes 3..4"]
    assert kernel_call_errors(os.path.join(ROOT, "uci_engine", "kernels")) == []


@pytest.mark.skipif(shutil.which("git") is None
                    or not os.path.exists(os.path.join(ROOT, ".git")), reason="needs a git clone")
def test_the_waiting_patches_call_the_kernels_as_they_are(tmp_path):
    """Each patch, applied to a copy of the package, leaves no kernel call with a number of
    arguments its function does not take (the check that caught nothing before probcut.patch
    called ``nnue_push`` with the arguments of a signature main had changed)."""
    for name in sorted(os.listdir(os.path.join(ROOT, "campaign", "patches"))):
        tree = tmp_path / name
        shutil.copytree(os.path.join(ROOT, "uci_engine"), tree / "uci_engine",
                        ignore=shutil.ignore_patterns("__pycache__", "nets"))
        shutil.copytree(os.path.join(ROOT, "tests"), tree / "tests",
                        ignore=shutil.ignore_patterns("__pycache__", "data"))
        shutil.copytree(os.path.join(ROOT, "scripts"), tree / "scripts",
                        ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(os.path.join(ROOT, "docs"), tree / "docs",
                        ignore=shutil.ignore_patterns("*.png"))
        proc = subprocess.run(["git", "apply", os.path.join(ROOT, "campaign", "patches", name)],
                              cwd=tree, capture_output=True, text=True)
        assert proc.returncode == 0, f"{name}: {proc.stderr}"
        assert kernel_call_errors(str(tree / "uci_engine" / "kernels")) == [], name


def test_the_ledger_is_drawn(tmp_path):
    pytest.importorskip("matplotlib")
    rows = P.read_ledger(PAGE)
    assert [r["#"] for r in rows] == [str(i) for i in range(len(rows))]
    chain, gauntlets = P.series(rows)
    assert chain and gauntlets
    out = tmp_path / "c.png"
    assert P.main(["--ledger", PAGE, "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_running_sum_and_the_elo_cells():
    assert P.parse_elo("+37.3 ± 17.3") == (37.3, 17.3)
    assert P.parse_elo("**−21 ± 52**") == (-21.0, 52.0)
    assert P.parse_elo("—") is None
    with pytest.raises(ValueError):
        P.parse_elo("about 20")
    rows = [{"#": "0", "kind": "selfplay", "step": "a", "commit or net": "a", "tc": "5+0.05",
             "verdict": "kept", "elo": (30.0, 3.0)},
            {"#": "1", "kind": "selfplay", "step": "b", "commit or net": "b", "tc": "5+0.05",
             "verdict": "stopped", "elo": (99.0, 9.0)},
            {"#": "2", "kind": "selfplay", "step": "c", "commit or net": "c", "tc": "5+0.05",
             "verdict": "kept, H1", "elo": (10.0, 4.0)}]
    chain, _ = P.series(rows)
    assert [(c[3], c[4]) for c in chain] == [(30.0, 3.0), (40.0, 5.0)]


def test_a_kept_verdict_is_read_as_the_ledger_writes_it():
    # rows 72 and 94 write "**H1, kept**: ..."; rows 115 and 119 "**stopped, not kept**: ..."
    for verdict in ("kept (H1; `-srand` 1)", "**H1, kept**: combined", "**kept**", "H1, kept"):
        assert P.is_kept(verdict), verdict
    for verdict in ("stopped, **not kept**", "**stopped, not kept**: no gain", "not kept",
                    "**H1**: to be the default", "keeps running", "stopped unfinished"):
        assert not P.is_kept(verdict), verdict
    chain, _ = P.series(P.read_ledger(PAGE))
    assert {"#26", "#72", "#94"} <= {label.split()[0] for label, *_ in chain}


@pytest.mark.parametrize("bad,match", [
    ("| 0 | d | nonsense | s | c | t | 1 | r | — | — | v |", "unknown kind"),
    ("| 0 | d | data | s | c | t | 1 | r | — | v |", "10 cells"),
    ("| 0 | d | data | s | c | t | 1 | r | about 3 | — | v |", "not an Elo")])
def test_a_broken_ledger_is_refused(tmp_path, bad, match):
    head = "| " + " | ".join(P.COLUMNS) + " |\n|" + " --- |" * len(P.COLUMNS) + "\n"
    page = tmp_path / "c.md"
    page.write_text(f"# x\n\n## Ledger\n\n{head}{bad}\n")
    with pytest.raises(ValueError, match=match):
        P.read_ledger(str(page))
    assert P.main(["--ledger", str(page), "--out", str(tmp_path / "c.png")]) == 1
    assert not (tmp_path / "c.png").exists()
