"""UCI_ShowWDL's win-rate model (uci_engine/wdl.py) and its fit (scripts/fit_wdl.py)."""

import numpy as np
import pytest

from uci_engine import wdl as W
from uci_engine.dataformat import format_line

from conftest import load_script


@pytest.mark.parametrize("material", [4, 20, 40, 62, 78, 90])
def test_wdl_is_per_mille_symmetric_and_monotonic(material):
    last_w = -1
    for v in range(-1200, 1201, 25):
        w, d, l = W.wdl(v, material)
        assert w + d + l == 1000 and min(w, d, l) >= 0
        assert W.wdl(-v, material) == (l, d, w)
        assert w >= last_w
        last_w = w
    assert W.wdl(3000, material)[0] > 900 and W.wdl(-3000, material)[2] > 900


def test_mate_is_certain():
    assert W.wdl(0, 40, mate=3) == (1000, 0, 0)
    assert W.wdl(0, 40, mate=-1) == (0, 0, 1000)


def test_material_counts():
    # the start position: 16 pawns, 4 knights, 4 bishops, 4 rooks, 2 queens
    assert W.material_of_counts((16, 4, 4, 4, 2, 2)) == 78


def test_fit_recovers_a_known_model():
    fit = load_script("fit_wdl")
    rng = np.random.default_rng(1)
    n = 40_000
    true = ((0.0, 0.0, 60.0, 150.0), (0.0, 0.0, 20.0, 70.0))
    m = rng.uniform(W.MATERIAL_MIN, W.MATERIAL_MAX, n) / W.MATERIAL_REF
    v = rng.normal(0, 300, n)
    a = np.polyval(true[0], m)
    b = np.polyval(true[1], m)
    pw = 1 / (1 + np.exp((a - v) / b))
    pl = 1 / (1 + np.exp((a + v) / b))
    u = rng.random(n)
    outcome = np.where(u < pw, 1, np.where(u < pw + pl, -1, 0)).astype(np.int8)
    as_, bs, loss = fit.fit(v, m, outcome)
    for mm in (0.4, 0.8, 1.2):
        assert np.polyval(as_, mm) == pytest.approx(np.polyval(true[0], mm), rel=0.1)
        assert np.polyval(bs, mm) == pytest.approx(np.polyval(true[1], mm), rel=0.1)
    assert loss < fit.nll(np.array([0, 0, 0, 150.0, 0, 0, 0, 300.0]), v, m, outcome)


def test_fit_writes_a_module_that_loads(tmp_path):
    fit = load_script("fit_wdl")
    data = tmp_path / "d.txt"
    fens = ["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1"]
    lines = [format_line(fens[i % 2], (i * 37) % 400 - 200, (1.0, 0.5, 0.0)[i % 3])
             for i in range(300)]
    data.write_text("\n".join(lines) + "\n")
    out = tmp_path / "params.py"
    assert fit.main([str(data), "--out", str(out)]) == 0
    ns = {}
    exec(out.read_text(), ns)
    assert len(ns["AS"]) == 4 and len(ns["BS"]) == 4
    assert "fit_wdl.py" in ns["__doc__"] and "300 positions" in ns["__doc__"]
    assert [d["positions"] for d in ns["RECORD"]["data"]] == [300]
    before = out.read_text()
    assert fit.main([str(data), "--out", str(out), "--dry-run"]) == 0
    assert out.read_text() == before
