"""scripts/quant_loss.py rounds float weights as the net file does: its "both" loss equals the
loss of the quantised net file written from the same weights."""
import os
import shutil

import numpy as np
import pytest

from conftest import load_script

HERE = os.path.dirname(__file__)
SAMPLE = os.path.join(HERE, "data", "selfplay_sample.txt")


@pytest.mark.parametrize("arch", [dict(hidden=32),
                                  dict(hidden=32, output_buckets=8, king_buckets="ranks4")])
def test_rounding_is_the_net_files(tmp_path, arch):
    T = load_script("train_nnue")
    Q = load_script("quant_loss")
    data = str(tmp_path / "sample.txt")
    shutil.copy(SAMPLE, data)
    out = str(tmp_path / "net.nnue")
    T.train([data], out, epochs=1, batch=128, lr=3e-3, lam=0.0, val=0.2, seed=3,
            progress=False, **arch)
    model = Q.load_model(T.float_weights_path(out))
    rec = T.load_records([data])[0]
    idx = np.arange(len(rec) - 40, len(rec))
    losses = Q.quant_losses(model, rec, idx, [T.QB, 2 * T.QB])
    assert set(losses) == {"float", f"first layer /{T.QA}", f"output /{T.QB}",
                           f"both /{T.QA}, /{T.QB}", f"output /{2 * T.QB}",
                           f"both /{T.QA}, /{2 * T.QB}"}
    # the model is back on its float weights
    assert T.evaluate_loss(model, rec, idx, 0.0, 128) == pytest.approx(losses["float"], abs=1e-12)
    # the same float weights quantised by the trainer and read back as a net file
    T.save_net(str(tmp_path / "q.nnue"), T.quantise(model))
    again = T.make_model(32, "screlu", arch.get("output_buckets", 1),
                         arch.get("king_buckets", "none"))
    T.init_weights(again, str(tmp_path / "q.nnue"))
    file_loss = T.evaluate_loss(again, rec, idx, 0.0, 128)
    assert losses[f"both /{T.QA}, /{T.QB}"] == pytest.approx(file_loss, rel=1e-6)
    assert losses["float"] != pytest.approx(file_loss, rel=1e-9)
    assert Q.fits(model, T.QB) and Q.fits(model, T.largest_qb(model))
    assert not Q.fits(model, T.largest_qb(model) + 1)


def test_main_prints_each_line(tmp_path, capsys):
    T = load_script("train_nnue")
    Q = load_script("quant_loss")
    data = str(tmp_path / "sample.txt")
    shutil.copy(SAMPLE, data)
    out = str(tmp_path / "net.nnue")
    T.train([data], out, hidden=32, epochs=1, batch=128, lr=3e-3, lam=0.0, val=0.2, seed=3,
            progress=False)
    assert Q.main([T.float_weights_path(out), data, "--qb", "64,128", "--threads", "1"]) == 0
    text = capsys.readouterr().out
    assert "both /255, /128" in text and "first layer /255" in text
    assert "largest QB that fits: " in text
