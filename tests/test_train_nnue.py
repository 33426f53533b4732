"""scripts/train_nnue.py: conversion, one short training epoch, the saved quantised net.

PyTorch comes with the ``test`` extra (also the ``train`` extra); without it the module is
skipped. Data: tests/data/selfplay_sample.txt, every 68th line of a 5000-node self-play run
(``uci-engine datagen``, 3,005 positions).

* conversion: features, side-to-move score and result agree with python-chess and the line;
* after one epoch the net file loads, its weights are the model's rounded to QA / QB steps,
  and the engine's Numba inference of it stays within quantisation error of the PyTorch float
  model on 300 positions (a per-position bound from the weight rounding, and a small mean);
* the JSON record names the data, lambda, epochs and a finite loss.
"""
import json
import os
import shutil

import chess
import numpy as np
import pytest

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.slow     # trains small nets with PyTorch

from uci_engine.fen import parse_fen  # noqa: E402
from uci_engine.kernels import nnue as N, position as P  # noqa: E402
from uci_engine.nnue_file import load_net  # noqa: E402

from conftest import load_script

HERE = os.path.dirname(__file__)
SAMPLE = os.path.join(HERE, "data", "selfplay_sample.txt")
T = load_script("train_nnue")


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    d = tmp_path_factory.mktemp("train")
    data = str(d / "sample.txt")
    shutil.copy(SAMPLE, data)
    out = str(d / "net.nnue")
    model, record = T.train([data], out, hidden=32, epochs=1, batch=128, lr=3e-3, lam=0.3,
                            val=0.05, seed=3, progress=False)
    return data, out, model, record


def _lines():
    with open(SAMPLE) as fh:
        return [ln.split("|") for ln in fh if ln.strip()]


def test_conversion(trained):
    data = trained[0]
    rec = np.load(data + ".nnuebin.npy")
    lines = _lines()
    assert len(rec) == len(lines) == 3005
    for i in range(0, len(lines), 97):
        fen, score, result = (x.strip() for x in lines[i])
        board = chess.Board(fen)
        stm = 0 if board.turn == chess.WHITE else 1
        want = sorted(384 * ((0 if pc.color else 1) != stm) + 64 * (pc.piece_type - 1)
                      + (sq ^ 56 * stm) for sq, pc in board.piece_map().items())
        f = rec["f"][i]
        assert sorted(f[f >= 0].tolist()) == want
        # the other perspective by the index identity equals python-chess from the other side
        g = T.other_perspective(f.astype(np.int64))
        other = sorted(384 * ((0 if pc.color else 1) != 1 - stm) + 64 * (pc.piece_type - 1)
                       + (sq ^ 56 * (1 - stm)) for sq, pc in board.piece_map().items())
        assert sorted(g[g >= 0].tolist()) == other
        sign = -1 if stm else 1
        assert int(rec["score"][i]) == sign * int(score)
        r = float(result)
        assert rec["result"][i] / 2 == (1 - r if stm else r)
        assert rec["mirror_ok"][i] == (fen.split()[2] == "-")


def test_mirror_is_the_file_mirrored_position(trained):
    """``f ^ FILE_MIRROR`` are the indices of the a<->h mirrored board (python-chess
    flip_horizontal), from both perspectives; the sample has rows with and without castling."""
    rec = np.load(trained[0] + ".nnuebin.npy")
    lines = _lines()
    ok = np.flatnonzero(rec["mirror_ok"])
    assert 0 < len(ok) < len(rec)
    for i in ok[::53]:
        board = chess.Board(lines[i][0].strip()).transform(chess.flip_horizontal)
        want, _ = T.fen_features(board.fen())
        f = rec["f"][i].astype(np.int64)
        m = np.where(f < 0, f, f ^ T.FILE_MIRROR)
        assert sorted(m[m >= 0].tolist()) == sorted(want)
        g = T.other_perspective(m)
        board.turn = not board.turn
        other, _ = T.fen_features(board.fen())
        assert sorted(g[g >= 0].tolist()) == sorted(other)


def test_batch_mirrors_only_positions_without_castling_rights(trained):
    rec = np.load(trained[0] + ".nnuebin.npy")
    idx = np.arange(len(rec))
    plain = batch_tensors_np(rec, idx, None)
    mirrored = batch_tensors_np(rec, idx, np.random.default_rng(5))
    same = (plain == mirrored).all(axis=1)
    flipped = (np.where(plain < 768, plain ^ T.FILE_MIRROR, plain) == mirrored).all(axis=1)
    assert (same | flipped).all()
    ok = rec["mirror_ok"] == 1
    assert same[~ok].all()
    changed = ~same & ok
    assert 0.4 < changed.sum() / ok.sum() < 0.6


def batch_tensors_np(rec, idx, rng):
    return T.batch_tensors(rec, idx, rng)[0].numpy()


def test_train_with_mirror(tmp_path):
    data = str(tmp_path / "sample.txt")
    shutil.copy(SAMPLE, data)
    out = str(tmp_path / "net.nnue")
    _, record = T.train([data], out, hidden=16, epochs=1, batch=256, lr=3e-3, lam=0.3,
                        val=0.05, seed=3, progress=False, mirror=True)
    assert record["mirror"] is True
    assert np.isfinite(record["history"][-1]["val_loss"])
    assert load_net(out).hidden == 16


def test_train_makes_a_missing_out_folder(tmp_path):
    data = str(tmp_path / "sample.txt")
    shutil.copy(SAMPLE, data)
    out = str(tmp_path / "not" / "there" / "net.nnue")
    T.train([data], out, hidden=16, epochs=1, batch=256, lr=3e-3, lam=0.3, val=0.05, seed=3,
            progress=False)
    assert load_net(out).hidden == 16 and os.path.exists(out + ".ckpt")


def test_old_binary_layout_is_converted_again(tmp_path):
    data = str(tmp_path / "sample.txt")
    shutil.copy(SAMPLE, data)
    old = np.zeros(3, dtype=[("f", "<i2", (32,)), ("score", "<i2"), ("result", "u1")])
    np.save(data + ".nnuebin.npy", old)
    rec = np.load(T.convert(data), mmap_mode="r")
    assert rec.dtype == T.RECORD_DTYPE and len(rec) == 3005


def test_convert_makes_a_missing_bin_dir(tmp_path):
    data = str(tmp_path / "sample.txt")
    shutil.copy(SAMPLE, data)
    bin_dir = str(tmp_path / "not" / "there")
    out = T.convert(data, bin_dir=bin_dir)
    assert out == os.path.join(bin_dir, "sample.txt.nnuebin.npy")
    assert len(np.load(out, mmap_mode="r")) == 3005


def test_rejects_malformed_data(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("8/8/8/8/8/8/8/K6k w - - 0 1 | 12 | 0.5\nnot a fen | x | 1.0\n")
    with pytest.raises(ValueError, match=":2: malformed"):
        T.convert(str(bad))


@pytest.fixture(scope="module", params=["plain", "buckets", "factorised", "max qb"])
def any_trained(request, trained, tmp_path_factory):
    """The plain net of ``trained``, a net with king buckets and 8 output buckets, trained
    with and without the factoriser, and the latter written with the largest QB that fits."""
    if request.param == "plain":
        return trained
    d = tmp_path_factory.mktemp("train_buckets")
    data = str(d / "sample.txt")
    shutil.copy(SAMPLE, data)
    out = str(d / "net.nnue")
    model, record = T.train([data], out, hidden=32, epochs=1, batch=128, lr=3e-3, lam=0.3,
                            val=0.05, seed=3, progress=False, output_buckets=8,
                            king_buckets="ranks4", factorise=request.param != "buckets",
                            qb="max" if request.param == "max qb" else T.QB)
    assert record["factorised"] == (request.param != "buckets")
    assert record["qb"] == load_net(out).qb
    assert (record["qb"] > T.QB) == (request.param == "max qb")
    return data, out, model, record


def test_largest_qb_is_the_largest_the_engine_accepts(any_trained):
    """``largest_qb``: the net quantised with it passes nnue_file.check_net, with one more it
    does not (the output weights' int16 product overflows)."""
    model = any_trained[2]
    qb = T.largest_qb(model)
    assert qb >= T.QB
    T.check_net(T.quantise(model, qb))
    with pytest.raises(ValueError):
        T.check_net(T.quantise(model, qb + 1))
    saved = model.out.weight.detach().clone()
    with torch.no_grad():
        model.out.weight.mul_(1000.0)
        try:
            with pytest.raises(ValueError):
                T.largest_qb(model)
        finally:
            model.out.weight.copy_(saved)


def test_saved_net_matches_model(any_trained):
    """The engine's Numba inference of the saved net (its own feature, bucket and refresh
    code) agrees with the trainer's float model (its numpy indices and buckets)."""
    data, out, model, record = any_trained
    net = load_net(out)
    assert net.hidden == 32 and net.activation == N.ACT_SCRELU
    assert (net.output_buckets, net.king_buckets) == (model.output_buckets,
                                                       int(model.king_map.max()) + 1)
    assert record["architecture"] == net.architecture()
    w_ft = model.ft_weights().numpy().astype(np.float64)
    w_out = model.out.weight.detach().numpy().reshape(-1, 32).astype(np.float64)
    # quantisation: each integer weight is the nearest QA / QB step of the float weight
    assert np.abs(net.w_ft / net.qa - w_ft).max() <= 0.5 / net.qa + 1e-6
    assert np.abs(net.w_out / net.qb - w_out).max() <= 0.5 / net.qb + 1e-6
    lines = _lines()[::10][:300]
    pk = net.packed()
    st, mb = P.new_stack(2)
    acc = N.new_accumulators(net.hidden, 2)
    diffs, buckets = [], set()
    for fen, _, _ in lines:
        fen = fen.strip()
        parse_fen(fen, st, mb, 0)
        N.nnue_refresh(st, np.int64(0), pk, acc, np.int64(0), net.params)
        got = int(N.nnue_evaluate(st, np.int64(0), acc, np.int64(0), pk, net.params))
        feats, _ = T.fen_features(fen)
        f = np.full((1, 32), -1, dtype=np.int64)
        f[0, :len(feats)] = feats
        g = T.other_perspective(f)
        bucket = model.buckets(f)
        buckets.add(int(bucket[0]))
        f, g = model.inputs(f), model.inputs(g)
        f[f < 0] = model.pad
        g[g < 0] = model.pad
        with torch.no_grad():
            want = float(model(torch.from_numpy(f), torch.from_numpy(g),
                               torch.from_numpy(bucket))[0]) * net.scale
        # rounding bound: each accumulator entry is off by at most (pieces + 1) / (2 QA), SCReLU
        # is 2-Lipschitz on [0, 1], each output weight by 1 / (2 QB), the bias by
        # 1 / (2 QA QB); plus 2 cp of floor division
        delta = (len(feats) + 1) * 0.5 / net.qa
        rows = w_out.reshape(-1, 64)[int(bucket[0])]
        bound = net.scale * (2 * delta * np.abs(rows).sum() + 2 * 32 * 0.5 / net.qb
                             + 0.5 / (net.qa * net.qb)) + 2
        assert abs(got - want) <= bound, f"{fen}: numba {got}, torch {want:.2f}"
        diffs.append(abs(got - want))
    # rounding errors mostly cancel: the mean is far below the worst-case bound
    assert np.mean(diffs) < 5, f"mean |numba - torch| = {np.mean(diffs):.2f} cp"
    assert len({round(d, 3) for d in diffs}) > 10
    if net.output_buckets > 1:
        assert len(buckets) >= 4, f"the sample reached output buckets {sorted(buckets)} only"


def test_record(trained):
    data, out, model, record = trained
    with open(out + ".json") as fh:
        saved = json.load(fh)
    assert saved["data"] == [os.path.abspath(data)] and saved["lambda"] == 0.3
    assert saved["epochs"] == 1 and len(saved["history"]) == 1
    h = saved["history"][0]
    assert 0 < h["train_loss"] < 0.25 and 0 < h["val_loss"] < 0.25
    assert saved["val_positions"] == round(3005 * 0.05)
    # the sample has no datagen sidecar: the record says so rather than inventing a source
    assert saved["sources"] == [{"data": os.path.abspath(data), "sidecar": None}]
    assert os.path.exists(out + ".ckpt")
    # the default fits the loss's scale to the data (a finite value inside the fit's bounds)
    assert saved["wdl_scale_fitted"] is True
    assert T.WDL_SCALE_RANGE[0] < saved["wdl_scale"] < T.WDL_SCALE_RANGE[1]


@pytest.mark.parametrize("true_scale", [150.0, 400.0])
def test_fit_wdl_scale_recovers_the_scale(true_scale):
    """Results drawn as wins or losses with probability sigmoid(score / S): the fit finds S."""
    rng = np.random.default_rng(11)
    n = 200_000
    rec = np.zeros(n, dtype=T.RECORD_DTYPE)
    score = rng.integers(-1200, 1201, n)
    win = rng.random(n) < 1.0 / (1.0 + np.exp(-score / true_scale))
    rec["score"] = score
    rec["result"] = np.where(win, 2, 0)
    fitted = T.fit_wdl_scale(rec, np.arange(n))
    assert abs(fitted - true_scale) < 0.05 * true_scale


def test_validation_is_the_tail(trained):
    """The validation loss is the loss on the last positions of the data (later games)."""
    data, out, model, record = trained
    rec = np.load(data + ".nnuebin.npy")
    n_val = record["val_positions"]
    tail = np.arange(len(rec) - n_val, len(rec))
    loss = T.evaluate_loss(model, rec, tail, record["lambda"], 128, record["wdl_scale"])
    assert loss == pytest.approx(record["history"][-1]["val_loss"], rel=1e-6)
    head = np.arange(n_val)
    assert T.evaluate_loss(model, rec, head, record["lambda"], 128,
                           record["wdl_scale"]) != pytest.approx(loss, rel=1e-6)


def test_record_names_the_data_from_its_sidecar(tmp_path):
    """A datagen sidecar's positions, games (its finished ranges), net and command reach the
    net's record through data_provenance."""
    data = tmp_path / "games.bin"
    data.write_bytes(b"")
    side = {"nodes": 5000, "seed": 7, "commit": "abc1234", "command": "uci-engine datagen ...",
            "format": "records", "net_sha256": "ff" * 32, "done": [[0, 9], [12, 14]],
            "positions": 1234, "settings": {}}
    (tmp_path / "games.bin.json").write_text(json.dumps(side))
    [got] = T.data_provenance([str(data)])
    assert got == {"data": str(data), "positions": 1234, "games": 13, "net_sha256": "ff" * 32,
                   "nodes": 5000, "seed": 7, "format": "records", "commit": "abc1234",
                   "command": "uci-engine datagen ..."}


@pytest.mark.parametrize("kwargs,match", [({"output_buckets": 9}, "9 output buckets"),
                                          ({"output_buckets": 0}, "0 output buckets"),
                                          ({"king_buckets": "nine"}, "unknown king-bucket map")])
def test_an_architecture_the_engine_cannot_run_fails_before_training(tmp_path, kwargs, match):
    data = tmp_path / "sample.txt"
    shutil.copy(SAMPLE, data)
    out = tmp_path / "net.nnue"
    with pytest.raises(ValueError, match=match):
        T.train([str(data)], str(out), hidden=8, epochs=1, progress=False, **kwargs)
    # refused before the data was even converted
    assert not out.exists() and not (tmp_path / "sample.txt.nnuebin.npy").exists()


# --- float weights and --init (the campaign's checkpoints, docs/campaign.md) ------------------
def test_float_weights_are_the_models_in_float16(trained):
    """The committed float weights (``<net>.f16.npz``) hold the model's weights rounded to
    float16, and its architecture; the record names the file."""
    data, out, model, record = trained
    path = T.float_weights_path(out)
    assert path.endswith("net.f16.npz") and record["float_weights"] == os.path.abspath(path)
    with np.load(path) as z:
        assert json.loads(str(z["architecture"])) == {"hidden": 32, "activation": "screlu",
                                                      "output_buckets": 1,
                                                      "king_buckets": "none"}
        w_ft = model.ft.weight.detach().numpy()[:model.n_inputs]
        assert z["w_ft"].dtype == np.float16 and z["w_ft"].shape == w_ft.shape
        assert np.array_equal(z["w_ft"], w_ft.astype(np.float16))
        assert np.array_equal(z["w_out"], model.out.weight.detach().numpy().astype(np.float16))
        assert np.array_equal(z["b_out"], model.out.bias.detach().numpy().astype(np.float16))
    assert record["init"] is None


@pytest.mark.parametrize("arch", [dict(hidden=32),
                                  dict(hidden=32, output_buckets=8, king_buckets="ranks4")])
def test_init_from_a_net_file_starts_at_that_net(tmp_path, arch):
    """``--init NET.nnue``: the model starts at the net's weights, so with no epoch the
    trainer writes the same integers back (dequantise, then quantise, is the identity), and
    its float weights start a second run at the same net again."""
    from uci_engine.nnue_file import random_net, save_net
    data = tmp_path / "sample.txt"
    shutil.copy(SAMPLE, data)
    src = random_net(32, seed=5, ft_range=1.0, out_range=1.0,
                     output_buckets=arch.get("output_buckets", 1),
                     king_map=arch.get("king_buckets", "none"))
    save_net(str(tmp_path / "src.nnue"), src)
    out = str(tmp_path / "again.nnue")
    _, record = T.train([str(data)], out, epochs=0, progress=False, init=str(tmp_path / "src.nnue"),
                        **arch)
    assert record["init"]["kind"] == "net" and record["init"]["path"].endswith("src.nnue")
    assert record["history"] == [] and np.isfinite(record["init_val_loss"])
    for path in (out, None):
        if path is None:        # from the float16 file of the first run
            path = str(tmp_path / "third.nnue")
            T.train([str(data)], path, epochs=0, progress=False,
                    init=T.float_weights_path(out), **arch)
        got = load_net(path)
        assert np.array_equal(got.w_ft, src.w_ft) and np.array_equal(got.b_ft, src.b_ft)
        assert np.array_equal(got.w_out, src.w_out) and got.out_biases == src.out_biases
        assert got.king_map == src.king_map


def test_init_val_loss_is_the_starts_loss_on_the_held_out_tail(tmp_path, trained):
    """The record's ``init_val_loss`` is the start's loss on the validation positions: from a
    run's own float weights, one epoch at a learning rate too small to move a weight ends at the
    same validation loss; a run without ``--init`` has none."""
    data, out, _, record = trained
    assert record["init_val_loss"] is None
    again = str(tmp_path / "again.nnue")
    _, rec2 = T.train([str(data)], again, hidden=32, epochs=1, batch=128, lr=1e-12, lam=0.3,
                      val=0.05, seed=3, progress=False, init=T.float_weights_path(out),
                      wdl_scale=record["wdl_scale"])
    assert rec2["init_val_loss"] == pytest.approx(rec2["history"][-1]["val_loss"], rel=1e-6)
    # the float16 start is the first run's model rounded, so close to its last validation loss
    assert rec2["init_val_loss"] == pytest.approx(record["history"][-1]["val_loss"], rel=0.02)


@pytest.mark.parametrize("arch", [dict(hidden=16), dict(hidden=32, output_buckets=8),
                                  dict(hidden=32, king_buckets="ranks4")])
def test_init_refuses_another_architecture(tmp_path, arch):
    from uci_engine.nnue_file import random_net, save_net
    data = tmp_path / "sample.txt"
    shutil.copy(SAMPLE, data)
    save_net(str(tmp_path / "src.nnue"), random_net(32, seed=5))
    with pytest.raises(ValueError, match="architecture"):
        T.train([str(data)], str(tmp_path / "x.nnue"), epochs=0, progress=False,
                init=str(tmp_path / "src.nnue"), **arch)
    # refused before the data was even converted
    assert not (tmp_path / "x.nnue").exists()
    assert not (tmp_path / "sample.txt.nnuebin.npy").exists()


# --- --widen: a bigger net starts where a smaller one stands -----------------------------------
def _outputs(model, data):
    """The model's raw outputs (float64[N]) on every position of ``data``."""
    rec = np.asarray(T.load_records([data])[0])
    model.eval()
    with torch.no_grad():
        stm, ntm, bucket, _, _ = T.batch_tensors(rec, np.arange(len(rec)), model=model)
        return model(stm, ntm, bucket).double().numpy()


def _symmetric(net):
    """``net`` (plain layout) with every input row of a square on files e-h replaced by the row
    of its a<->h mirror: the mirror-symmetric net a bucketed layout can hold exactly."""
    f = np.arange(768)
    right = (f & 7) >= 4
    net.w_ft[right] = net.w_ft[f[right] ^ 7]
    return net


@pytest.mark.parametrize("grow", [dict(hidden=48),
                                  dict(hidden=48, king_buckets="ranks4"),
                                  dict(hidden=32, king_buckets="wing8")])
def test_widen_keeps_the_output_of_the_start(tmp_path, grow):
    """``--widen``: a plain (768 -> 32) x 2 -> 8 start grown to more neurons and/or king buckets
    gives the same output on every sample position (the start mirror-symmetric, as a bucketed
    layout needs), the new neurons' output weights are zero and their input weights are not
    (they can learn), and the record names the start's architecture."""
    from uci_engine.nnue_file import random_net, save_net
    data = str(tmp_path / "sample.txt")
    shutil.copy(SAMPLE, data)
    src = _symmetric(random_net(32, seed=5, ft_range=1.0, out_range=1.0, output_buckets=8))
    save_net(str(tmp_path / "src.nnue"), src)
    small = T.make_model(32, output_buckets=8)
    T.init_weights(small, str(tmp_path / "src.nnue"))
    big = T.make_model(grow["hidden"], output_buckets=8,
                       king_buckets=grow.get("king_buckets", "none"))
    started = T.init_weights(big, str(tmp_path / "src.nnue"), widen=True)
    assert started["widened_from"] == {"hidden": 32, "activation": "screlu", "output_buckets": 8,
                                       "king_buckets": "none"}
    np.testing.assert_allclose(_outputs(big, data), _outputs(small, data), rtol=0, atol=1e-5)
    h = grow["hidden"]
    w_out = big.out.weight.detach().numpy()
    assert not w_out[:, 32:h].any() and not w_out[:, h + 32:].any()
    if h > 32:
        assert big.ft.weight.detach().numpy()[:big.n_inputs, 32:].std() > 0.01


@pytest.mark.parametrize("kings", ["east", "west"])
def test_widen_from_an_asymmetric_start_is_exact_while_the_kings_stand_on_the_chosen_files(
        tmp_path, kings):
    """A plain start that is not mirror-symmetric goes into every king bucket, its rows mirrored
    a<->h with ``widen_kings="east"`` (the default) and as they are with ``west``: the grown net
    gives the start's output on the sample positions whose two kings stand on files e-h (east)
    or a-d (west), and another output elsewhere; the record names the orientation."""
    from uci_engine.nnue_file import random_net, save_net
    data = str(tmp_path / "sample.txt")
    shutil.copy(SAMPLE, data)
    save_net(str(tmp_path / "src.nnue"), random_net(16, seed=7, ft_range=1.0, out_range=1.0))
    small = T.make_model(16)
    T.init_weights(small, str(tmp_path / "src.nnue"))
    big = T.make_model(16, king_buckets="ranks4")
    started = T.init_weights(big, str(tmp_path / "src.nnue"), widen=True, widen_kings=kings)
    assert started["widen_kings"] == kings
    w = small.ft.weight.detach().numpy()[:768]
    if kings == "east":
        w = w[np.arange(768) ^ 7]
    got = big.ft.weight.detach().numpy()[:big.n_inputs].reshape(4, 768, 16)
    assert all(np.array_equal(bucket, w) for bucket in got)
    on_side = np.array([all((chess.square_file(board.king(c)) >= 4) == (kings == "east")
                            for c in chess.COLORS)
                        for board in (chess.Board(fen.strip()) for fen, _, _ in _lines())])
    assert 50 < on_side.sum() < len(on_side) - 50
    a, b = _outputs(big, data), _outputs(small, data)
    np.testing.assert_allclose(a[on_side], b[on_side], rtol=0, atol=1e-5)
    assert np.abs(a[~on_side] - b[~on_side]).max() > 1e-3
    with pytest.raises(ValueError, match="widen_kings"):
        T.init_weights(big, str(tmp_path / "src.nnue"), widen=True, widen_kings="north")


@pytest.mark.parametrize("src_arch, arch", [
    (dict(hidden=32), dict(hidden=16)),                                     # fewer neurons
    (dict(hidden=32), dict(hidden=32, output_buckets=8)),                   # other buckets
    (dict(hidden=32, king_map="ranks4"), dict(hidden=48, king_buckets="wing8")),   # other map
    (dict(hidden=32, king_map="ranks4"), dict(hidden=48)),                  # buckets to plain
])
def test_widen_refuses_what_cannot_grow(tmp_path, src_arch, arch):
    from uci_engine.nnue_file import random_net, save_net
    data = tmp_path / "sample.txt"
    shutil.copy(SAMPLE, data)
    save_net(str(tmp_path / "src.nnue"), random_net(seed=5, **src_arch))
    with pytest.raises(ValueError, match="cannot be grown"):
        T.train([str(data)], str(tmp_path / "x.nnue"), epochs=0, progress=False,
                init=str(tmp_path / "src.nnue"), widen=True, **arch)
    assert not (tmp_path / "sample.txt.nnuebin.npy").exists()


def test_widen_from_float_weights_and_the_cli_needs_init(tmp_path, trained, capsys):
    """A run's float weights grow too (the record of the grown run names them), and
    ``--widen`` without ``--init`` is a usage error."""
    data, out, model, record = trained
    again = str(tmp_path / "big.nnue")
    _, rec2 = T.train([data], again, hidden=48, epochs=0, lam=0.3, val=0.05, progress=False,
                      init=T.float_weights_path(out), widen=True,
                      wdl_scale=record["wdl_scale"])
    assert rec2["init"]["kind"] == "float16 weights"
    assert rec2["init"]["widened_from"]["hidden"] == 32
    # the grown start predicts the held-out tail as the float16 start does
    assert rec2["init_val_loss"] == pytest.approx(record["history"][-1]["val_loss"], rel=0.02)
    with pytest.raises(SystemExit):
        T.main([data, "--out", str(tmp_path / "y.nnue"), "--widen"])
    assert "--widen needs --init" in capsys.readouterr().err


# --- --factorise: king buckets trained with shared factor rows --------------------------------
def test_factorised_model_is_the_net_of_its_merged_weights(tmp_path):
    """A factorised model's output is that of the plain-bucketed model holding its merged
    weights (:meth:`ft_weights`: each bucket's rows plus the factor rows), on every sample
    position; the factor rows reach every bucket, and the merged weights stay within the clip."""
    data = str(tmp_path / "sample.txt")
    shutil.copy(SAMPLE, data)
    torch.manual_seed(1)
    fac = T.make_model(16, output_buckets=8, king_buckets="wing8", factorise=True)
    assert fac.ft.weight.shape[0] == 8 * 768 + 768 + 1 and fac.pad == 8 * 768 + 768
    with torch.no_grad():                    # a factor far from zero, some sums past the clip
        fac.ft.weight[fac.n_inputs:fac.pad].uniform_(-1.5, 1.5)
        fac.ft.weight[:fac.n_inputs].uniform_(-1.5, 1.5)
    plain = T.make_model(16, output_buckets=8, king_buckets="wing8")
    w = fac.ft.weight.detach().numpy()
    merged = fac.ft_weights().numpy()
    np.testing.assert_allclose(merged.reshape(8, 768, 16),
                               w[:fac.n_inputs].reshape(8, 768, 16) + w[fac.n_inputs:fac.pad],
                               rtol=0, atol=1e-6)
    plain.set_ft_weights(torch.from_numpy(merged))
    with torch.no_grad():
        plain.ft_bias.copy_(fac.ft_bias)
        plain.out.weight.copy_(fac.out.weight)
        plain.out.bias.copy_(fac.out.bias)
    np.testing.assert_allclose(_outputs(fac, data), _outputs(plain, data), rtol=0, atol=1e-4)
    assert np.abs(merged).max() > T.WEIGHT_CLIP
    factor = w[fac.n_inputs:fac.pad].copy()
    fac.clip()
    after = fac.ft_weights().numpy()
    assert np.abs(after).max() <= T.WEIGHT_CLIP + 1e-6
    inside = np.abs(merged) <= T.WEIGHT_CLIP
    np.testing.assert_allclose(after[inside], merged[inside], rtol=0, atol=1e-6)
    assert np.array_equal(fac.ft.weight.detach().numpy()[fac.n_inputs:fac.pad], factor)


def test_factorised_init_is_exact_and_the_factor_learns(tmp_path):
    """``--init`` into a factorised model puts the start's weights in the bucket rows with the
    factor at zero (the start's output exactly, the same integers written back with no epoch);
    one epoch then moves the factor rows; ``--factorise`` needs king buckets."""
    from uci_engine.nnue_file import random_net, save_net
    data = str(tmp_path / "sample.txt")
    shutil.copy(SAMPLE, data)
    src = random_net(16, seed=5, ft_range=1.0, out_range=1.0, output_buckets=8,
                     king_map="ranks4")
    save_net(str(tmp_path / "src.nnue"), src)
    arch = dict(hidden=16, output_buckets=8, king_buckets="ranks4")
    out = str(tmp_path / "again.nnue")
    _, record = T.train([data], out, epochs=0, progress=False, init=str(tmp_path / "src.nnue"),
                        factorise=True, **arch)
    got = load_net(out)
    assert np.array_equal(got.w_ft, src.w_ft) and np.array_equal(got.w_out, src.w_out)
    model, record = T.train([data], str(tmp_path / "one.nnue"), epochs=1, batch=128, lr=3e-3,
                            progress=False, init=str(tmp_path / "src.nnue"), factorise=True,
                            **arch)
    factor = model.ft.weight.detach().numpy()[model.n_inputs:model.pad]
    assert np.abs(factor).max() > 1e-4
    assert record["factorised"] and record["architecture"] == src.architecture()
    with pytest.raises(ValueError, match="king buckets"):
        T.make_model(16, factorise=True)
    with pytest.raises(SystemExit):
        T.main([data, "--out", str(tmp_path / "y.nnue"), "--factorise"])


def test_a_factorised_run_goes_on_from_its_float_weights_with_its_factor(tmp_path):
    """A factorised model's float weights hold its factor rows (``w_factor``) beside the merged
    input weights; ``--init`` of them into a factorised model of the same architecture gives
    back that factor and the same merged weights (to float16 rounding), so ``--bucket-decay``
    goes on pulling the buckets towards the factor; a start without the factoriser takes the
    merged weights."""
    data = str(tmp_path / "sample.txt")
    shutil.copy(SAMPLE, data)
    arch = dict(hidden=16, output_buckets=8, king_buckets="ranks4")
    out = str(tmp_path / "fac.nnue")
    model, _ = T.train([data], out, epochs=1, batch=128, lr=3e-3, progress=False, seed=4,
                       factorise=True, bucket_decay=5.0, **arch)
    factor = model.factor_weights().numpy()
    assert np.abs(factor).max() > 1e-4
    with np.load(T.float_weights_path(out)) as z:
        assert z["w_factor"].dtype == np.float16
        assert np.array_equal(z["w_factor"], factor.astype(np.float16))
        merged = z["w_ft"].astype(np.float64)
    again = T.make_model(factorise=True, **arch)
    T.init_weights(again, T.float_weights_path(out))
    np.testing.assert_allclose(again.factor_weights().numpy(),
                               factor.astype(np.float16).astype(np.float64), rtol=0, atol=1e-6)
    np.testing.assert_allclose(again.ft_weights().numpy(), merged, rtol=0, atol=1e-5)
    plain = T.make_model(**arch)
    T.init_weights(plain, T.float_weights_path(out))
    assert plain.factor_weights() is None
    np.testing.assert_allclose(plain.ft_weights().numpy(), merged, rtol=0, atol=1e-6)
    np.testing.assert_allclose(_outputs(again, data), _outputs(plain, data), rtol=0, atol=1e-4)


def test_a_plain_start_grows_into_the_factor_and_the_decay_shrinks_only_the_buckets(tmp_path):
    """``--widen`` of a plain start into a factorised model puts its rows into the factor, its
    neurons' bucket rows at zero: the same merged weights on the start's neurons, hence the same
    output, as the unfactorised growth. ``decay_buckets`` shrinks the bucket rows and leaves the
    factor, and ``--bucket-decay`` needs the factoriser."""
    from uci_engine.nnue_file import random_net, save_net
    data = str(tmp_path / "sample.txt")
    shutil.copy(SAMPLE, data)
    save_net(str(tmp_path / "src.nnue"), random_net(16, seed=7, ft_range=1.0, out_range=1.0))
    torch.manual_seed(2)
    fac = T.make_model(24, king_buckets="ranks4", factorise=True)
    T.init_weights(fac, str(tmp_path / "src.nnue"), widen=True)
    torch.manual_seed(2)
    tiled = T.make_model(24, king_buckets="ranks4")
    T.init_weights(tiled, str(tmp_path / "src.nnue"), widen=True)
    small = T.make_model(16)
    T.init_weights(small, str(tmp_path / "src.nnue"))
    w = fac.ft.weight.detach().numpy()
    plain = small.ft.weight.detach().numpy()[:768][np.arange(768) ^ 7]    # east: mirrored
    np.testing.assert_allclose(w[fac.n_inputs:fac.pad, :16], plain, rtol=0, atol=1e-6)
    assert not w[fac.n_inputs:fac.pad, 16:].any() and not w[:fac.n_inputs, :16].any()
    # the start's neurons (the new ones keep fresh random weights of their own)
    np.testing.assert_allclose(fac.ft_weights().numpy()[:, :16],
                               tiled.ft_weights().numpy()[:, :16], rtol=0, atol=1e-6)
    np.testing.assert_allclose(_outputs(fac, data), _outputs(tiled, data), rtol=0, atol=1e-5)
    before = fac.ft.weight.detach().numpy().copy()
    fac.decay_buckets(0.25)
    after = fac.ft.weight.detach().numpy()
    np.testing.assert_allclose(after[:fac.n_inputs], 0.75 * before[:fac.n_inputs], rtol=1e-6)
    assert np.array_equal(after[fac.n_inputs:], before[fac.n_inputs:])
    with pytest.raises(ValueError, match="factoriser"):
        T.train([data], str(tmp_path / "x.nnue"), epochs=0, progress=False, hidden=16,
                king_buckets="ranks4", bucket_decay=1.0)
    with pytest.raises(SystemExit):
        T.main([data, "--out", str(tmp_path / "y.nnue"), "--king-buckets", "ranks4",
                "--bucket-decay", "1"])


def test_init_decay_pulls_the_weights_towards_the_start(tmp_path, trained):
    """``--init-decay`` (decoupled L2-SP): a pull of the whole distance each step keeps the
    model at its start (the same float weights, the validation loss its ``init_val_loss``); a
    moderate pull ends nearer the start than the same run without it; it needs ``--init``."""
    data, out, _, record = trained
    start = T.float_weights_path(out)
    common = dict(hidden=32, epochs=1, batch=128, lr=3e-3, lam=0.3, val=0.05, seed=3,
                  progress=False, init=start, wdl_scale=record["wdl_scale"])

    def distance(path):
        with np.load(start) as a, np.load(T.float_weights_path(path)) as b:
            return sum(float(np.abs(a[k].astype(np.float64) - b[k].astype(np.float64)).sum())
                       for k in ("w_ft", "b_ft", "w_out", "b_out"))

    runs = {}
    for name, decay in (("free", 0.0), ("pulled", 100.0), ("held", 1e12)):
        runs[name] = str(tmp_path / f"{name}.nnue")
        _, rec = T.train([data], runs[name], init_decay=decay, **common)
        assert rec["init_decay"] == decay
        if name == "held":
            assert rec["history"][-1]["val_loss"] == pytest.approx(rec["init_val_loss"],
                                                                   rel=1e-6)
    assert distance(runs["held"]) == 0.0
    assert 0.0 < distance(runs["pulled"]) < 0.5 * distance(runs["free"])
    with pytest.raises(ValueError, match="start"):
        T.train([data], str(tmp_path / "x.nnue"), hidden=32, epochs=0, progress=False,
                init_decay=1.0)
    with pytest.raises(SystemExit):
        T.main([data, "--out", str(tmp_path / "y.nnue"), "--init-decay", "1"])


def test_start_pull_moves_each_parameter_that_fraction_of_the_way():
    """``StartPull(model)(rate)``: every parameter moves ``min(1, rate)`` of the way back to
    where it stood when the pull was made; rate 0 leaves it."""
    model = T.make_model(8)
    pull = T.StartPull(model)
    before = [p.detach().clone() for p in model.parameters()]
    with torch.no_grad():
        for p in model.parameters():
            p.add_(1.0)
    pull(0.0)
    for p, b in zip(model.parameters(), before):
        assert torch.allclose(p, b + 1.0)
    pull(0.25)
    for p, b in zip(model.parameters(), before):
        assert torch.allclose(p, b + 0.75, atol=1e-6)
    pull(7.0)
    for p, b in zip(model.parameters(), before):
        assert torch.equal(p, b)
