"""scripts/eval_loss.py: the sample's side-to-move view and the end-to-end report."""
import os
import subprocess
import sys

import chess
import numpy as np
import pytest

from conftest import load_script

HERE = os.path.dirname(__file__)
SCRIPT = os.path.join(HERE, os.pardir, "scripts", "eval_loss.py")
SAMPLE = os.path.join(HERE, "data", "selfplay_sample.txt")
E = load_script("eval_loss")


def test_sample_is_on_the_side_to_moves_view():
    with open(SAMPLE) as fh:
        lines = [ln.split("|") for ln in fh if ln.strip()]
    fens, score, result = E.read_sample(SAMPLE, 100, 500, seed=1)
    assert len(fens) == 500
    by_fen = {ln[0].strip(): (int(ln[1]), float(ln[2])) for ln in lines[100:]}
    for fen, s, r in zip(fens, score, result):
        white_score, white_result = by_fen[fen]
        sign = 1 if chess.Board(fen).turn == chess.WHITE else -1
        assert s == sign * white_score
        assert r == (white_result if sign == 1 else 1.0 - white_result)


def test_fit_scale_recovers_the_scale():
    rng = np.random.default_rng(2)
    score = rng.integers(-1000, 1001, 100_000).astype(np.float64)
    result = (rng.random(score.size) < E.sigmoid(score, 200.0)).astype(np.float64)
    assert E.fit_scale(score, result) == pytest.approx(200.0, rel=0.05)


def test_reports_the_hand_crafted_evaluation_and_a_net():
    net = os.path.join(HERE, os.pardir, "uci_engine", "nets", "test_h32_screlu.nnue")
    out = subprocess.run([sys.executable, SCRIPT, SAMPLE, "--positions", "300",
                          "--nets", net], capture_output=True, text=True, timeout=600,
                         stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr
    rows = [ln for ln in out.stdout.splitlines() if " loss " in ln]
    assert [r.split()[0] for r in rows] == ["hand-crafted", "test_h32_screlu.nnue"]
    losses = [float(r.split("loss ")[1].split()[0]) for r in rows]
    # the hand-crafted evaluation predicts its own self-play far better than a random net
    assert 0 < losses[0] < losses[1] < 1
