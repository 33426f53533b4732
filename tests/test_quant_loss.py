"""train_nnue.py's quantisation report rounds float weights as the net file does: its "both"
loss equals the loss of the quantised net file written from the same weights."""
import json
import os
import shutil

import numpy as np
import pytest

from conftest import load_script

HERE = os.path.dirname(__file__)
SAMPLE = os.path.join(HERE, "data", "selfplay_sample.txt")


@pytest.mark.parametrize("arch", [dict(hidden=32),
                                  dict(hidden=32, output_buckets=8, king_buckets="ranks4",
                                       factorise=True)])
def test_rounding_is_the_net_files(tmp_path, arch):
    T = load_script("train_nnue")
    data = str(tmp_path / "sample.txt")
    shutil.copy(SAMPLE, data)
    out = str(tmp_path / "net.nnue")
    T.train([data], out, epochs=1, batch=128, lr=3e-3, lam=0.0, val=0.2, seed=3,
            progress=False, **arch)
    plain = {k: v for k, v in arch.items() if k != "factorise"}
    model = T.make_model(32, "screlu", plain.get("output_buckets", 1),
                         plain.get("king_buckets", "none"))
    T.init_weights(model, T.float_weights_path(out))
    rec = T.load_records([data])[0]
    idx = np.arange(len(rec) - 40, len(rec))
    float_loss = T.evaluate_loss(model, rec, idx, 0.0, 128)
    losses = T.quant_losses(model, rec, idx, [T.QB, 2 * T.QB], batch=128)
    assert set(losses) == {"float", f"first layer /{T.QA}", f"output /{T.QB}",
                           f"both /{T.QA}, /{T.QB}", f"output /{2 * T.QB}",
                           f"both /{T.QA}, /{2 * T.QB}"}
    assert losses["float"] == pytest.approx(float_loss, abs=1e-12)
    # the model is back on its float weights
    assert T.evaluate_loss(model, rec, idx, 0.0, 128) == pytest.approx(float_loss, abs=1e-12)
    # the same float weights quantised by the trainer and read back as a net file
    T.save_net(str(tmp_path / "q.nnue"), T.quantise(model))
    again = T.make_model(32, "screlu", plain.get("output_buckets", 1),
                         plain.get("king_buckets", "none"))
    T.init_weights(again, str(tmp_path / "q.nnue"))
    file_loss = T.evaluate_loss(again, rec, idx, 0.0, 128)
    assert losses[f"both /{T.QA}, /{T.QB}"] == pytest.approx(file_loss, rel=1e-6)
    assert float_loss != pytest.approx(file_loss, rel=1e-9)


def test_cli_prints_the_report_from_a_converted_file(tmp_path, capsys):
    """``--epochs 0 --init F.f16.npz --quant-loss`` reports F's rounding costs, reading the
    converted ``.nnuebin.npy`` as it is."""
    T = load_script("train_nnue")
    data = str(tmp_path / "sample.txt")
    shutil.copy(SAMPLE, data)
    out = str(tmp_path / "net.nnue")
    T.train([data], out, hidden=32, epochs=1, batch=128, lr=3e-3, lam=0.0, val=0.2, seed=3,
            progress=False)
    converted = T.convert(data)
    assert converted.endswith(".nnuebin.npy") and T.convert(converted) == converted
    T.main([converted, "--out", str(tmp_path / "again.nnue"), "--hidden", "32", "--epochs", "0",
            "--lambda", "0", "--val", "0.2", "--init", T.float_weights_path(out),
            "--quant-loss", "64,128", "--no-progress"])
    text = capsys.readouterr().out
    assert "both /255, /128" in text and "first layer /255" in text
    assert "largest QB that fits: " in text
    with open(str(tmp_path / "again.nnue.json")) as fh:
        record = json.load(fh)
    assert set(record["quant_loss"]) >= {"float", "both /255, /64"}
