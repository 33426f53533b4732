"""Tests for scripts/tune_eval.py (Texel tuning) on a small synthetic data set: positions from
random playouts, labelled by the current evaluation plus a hidden 150 cp knight bonus."""
import importlib.util
import json
import os
import re

import numpy as np
import pytest

from uci_engine import tuning
from uci_engine.dataformat import format_line, parse_line
from uci_engine.fen import format_fen, parse_fen
from uci_engine.kernels import evaluate as E
from uci_engine.kernels import position as P
from uci_engine.kernels.evaluate import OFFSETS
from uci_engine.kernels.movegen import generate_legal

from conftest import load_script

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data")
N_POSITIONS = 2000
KNIGHT_BONUS = 150          # centipawns the labels add per knight (the signal to be learnt)


TUNE = load_script("tune_eval")


def synthetic_lines(n, seed):
    """``n`` data lines ``FEN | score | result``: seeded random playouts (engine movegen) from
    the 2-move openings; score = white-view eval + KNIGHT_BONUS * knight difference + noise,
    result drawn from the logistic of that score with a draw band."""
    rng = np.random.default_rng(seed)
    with open(os.path.join(DATA, "openings", "noob_2moves.epd")) as fh:
        starts = [ln.strip() for ln in fh if ln.strip()]
    st, mb = P.new_stack(130)
    moves = np.zeros(256, dtype=np.int32)
    lines = []
    while len(lines) < n:
        parse_fen(starts[rng.integers(len(starts))], st, mb, 0)
        for ply in range(int(rng.integers(8, 120))):
            cnt = int(generate_legal(st, ply, moves))
            if cnt == 0:
                break
            P.make_move(st, mb, ply, moves[rng.integers(cnt)])
            if rng.random() < 0.1 and len(lines) < n:
                row = ply + 1
                white = 1 - 2 * int(st[row, P.STM])
                ev = white * int(E.evaluate(st, row))
                knights = bin(int(st[row, 1])).count("1") - bin(int(st[row, 7])).count("1")
                truth = ev + KNIGHT_BONUS * knights
                p = 1.0 / (1.0 + 10.0 ** (-truth / 400.0))
                u = rng.random()
                result = 1.0 if u < p - 0.1 else (0.0 if u > p + 0.1 else 0.5)
                score = truth + int(rng.normal(0, 30))
                lines.append(format_line(format_fen(st, mb, row), score, result))
    return lines


@pytest.fixture(scope="module")
def datafile(tmp_path_factory):
    d = tmp_path_factory.mktemp("tune")
    path = d / "synthetic.txt"
    lines = synthetic_lines(N_POSITIONS, seed=11)
    lines[5] = "not a fen | 1 | 1.0"               # malformed: skipped and counted
    lines[6] = lines[6].rsplit("|", 1)[0] + "| 2.0"  # bad result
    path.write_text('# {"nodes": 1000, "seed": 11}\n' + "\n".join(lines) + "\n")
    (d / "synthetic.txt.json").write_text(json.dumps({"commit": "abc1234", "command": "synth"}))
    return str(path)


def _header_numbers(doc):
    k = float(re.search(r"K = ([0-9.]+)", doc).group(1))
    m = re.search(r"train ([0-9.]+) -> ([0-9.]+), validation ([0-9.]+) -> ([0-9.]+)", doc)
    return k, [float(x) for x in m.groups()]


def test_tune_writes_a_better_module(datafile, tmp_path, capsys):
    out = str(tmp_path / "eval_weights.py")
    argv = [datafile, "--out", out, "--iters", "150", "--seed", "3", "--l2", "1e-7",
            "--no-progress"]
    assert TUNE.main(argv) == 0
    w, doc = tuning.load_weights_file(out)
    k, (tr0, tr1, va0, va1) = _header_numbers(doc)
    assert np.isfinite(k) and k > 0
    assert tr1 < tr0                               # the fit lowers the training loss
    assert va1 < va0                               # and generalises (a real signal in the data)
    # the hidden knight bonus is learnt (in material or spread over the knight's PST)
    w0 = tuning.weights_vector()
    d0, d1 = tuning.weights_dict(w0), tuning.weights_dict(w)
    gain = (d1["MATERIAL_MG"][1] + d1["PST_MG"][1].mean()) - (d0["MATERIAL_MG"][1]
                                                              + d0["PST_MG"][1].mean())
    assert gain > KNIGHT_BONUS / 3
    assert d1["MATERIAL_MG"][0] == d0["MATERIAL_MG"][0]      # the pawn anchor stays
    # header: data with counts and metadata (first line + sidecar), commit, exact command
    assert f"{datafile}: {N_POSITIONS - 2} positions (2 lines skipped)" in doc
    assert "nodes per move 1000, seed 11, data commit abc1234, command: synth" in doc
    assert "python scripts/tune_eval.py " + " ".join(argv) in doc
    assert "lambda = 0.5" in doc and "Commit: " in doc
    # the written module round-trips: rendering its vector with its header gives the same text
    with open(out) as fh:
        text = fh.read()
    assert tuning.render_weights_module(w, doc.split("\n", 2)[2]) == text
    assert np.array_equal(w, np.rint(w)) and w.dtype == np.int64
    spec = importlib.util.spec_from_file_location("tuned_weights", out)   # a real import
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    np.testing.assert_array_equal(tuning.weights_vector(mod), w)
    assert os.path.exists(datafile + ".coeffs.npz")


def test_dry_run_writes_nothing_and_uses_the_cache(datafile, tmp_path, capsys):
    TUNE.load(datafile, None, progress=False)      # make sure the cache exists
    out = str(tmp_path / "never.py")
    before = os.listdir(tmp_path)
    assert TUNE.main([datafile, "--out", out, "--iters", "5", "--dry-run", "--no-progress"]) == 0
    assert not os.path.exists(out) and os.listdir(tmp_path) == before
    text = capsys.readouterr().out
    assert "(cache," in text and "dry run" in text


def test_cache_matches_conversion_and_is_keyed_on_the_file(datafile, tmp_path):
    fresh = TUNE.convert(datafile, None, progress=False)
    cached, from_cache = TUNE.load(datafile, None, progress=False)
    assert from_cache
    for key in fresh:
        np.testing.assert_array_equal(np.asarray(cached[key]), np.asarray(fresh[key]))
    copy = tmp_path / "copy.txt"
    copy.write_text(open(datafile).read())
    data, from_cache = TUNE.load(str(copy), 100, progress=False)
    assert not from_cache and len(data["score"]) == 100
    with open(copy, "a") as fh:                    # a changed file is converted again
        fh.write(open(datafile).read().splitlines()[1] + "\n")
    _, from_cache = TUNE.load(str(copy), 100, progress=False)
    assert not from_cache
    _, from_cache = TUNE.load(str(copy), 100, progress=False)
    assert from_cache


def test_tapered_matrix_is_the_white_view_evaluation(datafile):
    data, _ = TUNE.load(datafile, None, progress=False)
    a = TUNE.tapered_matrix(data)
    ev = a @ tuning.weights_vector().astype(np.float64)
    fens = []
    for line in open(datafile).read().splitlines():
        try:
            fens.append(parse_line(line).fen)
        except ValueError:                         # the comment and the two malformed lines
            pass
    st, ok = tuning.fens_to_rows(fens)
    assert len(st) == len(ev)
    white = 1 - 2 * st[:, P.STM].astype(np.int64)
    exact = np.array([int(E.evaluate(st, r)) for r in range(len(st))]) * white
    assert np.all(np.abs(ev - exact) < 1.0)        # differs from evaluate by the floor only


def test_bad_input(datafile, tmp_path, capsys):
    assert TUNE.main([str(tmp_path / "missing.txt"), "--dry-run"]) == 2
    empty = tmp_path / "empty.txt"
    empty.write_text("garbage\n\n# comment\n")
    assert TUNE.main([str(empty), "--dry-run", "--no-progress"]) == 2
    with pytest.raises(SystemExit):
        TUNE.main([datafile, "--lambda", "1.5"])
    with pytest.raises(SystemExit):
        TUNE.main([datafile, "--freeze", "NO_SUCH_ARRAY"])


def test_freeze_and_rewrite(datafile, tmp_path):
    out = str(tmp_path / "w.py")
    assert TUNE.main([datafile, "--out", out, "--iters", "30", "--freeze",
                      "KING_DANGER_MG,MOBILITY_MG", "--no-progress"]) == 0
    w, _ = tuning.load_weights_file(out)
    w0 = tuning.weights_vector()
    for name, size in (("KING_DANGER_MG", 512), ("MOBILITY_MG", 116)):
        part = slice(OFFSETS[name], OFFSETS[name] + size)
        np.testing.assert_array_equal(w[part], w0[part])
    text = open(out).read()
    os.remove(out)
    with open(out, "w") as fh:                     # --rewrite keeps values and header
        fh.write(text)
    assert TUNE.main(["--rewrite", "--out", out]) == 0
    assert open(out).read() == text


def test_fit_k_recovers_the_scale():
    """Results drawn from sigmoid(K_true * eval) give back K_true (no draws, 20,000 samples)."""
    import scipy.sparse as sp
    rng = np.random.default_rng(5)
    ev = rng.normal(0, 300, 20000)
    a = sp.csr_matrix(ev.reshape(-1, 1))
    for k_true in (0.6, 1.4):
        result = (rng.random(len(ev)) < TUNE.sigmoid(k_true, ev)).astype(np.float64)
        assert abs(TUNE.fit_k(a, np.ones(1), result) - k_true) < 0.1 * k_true
