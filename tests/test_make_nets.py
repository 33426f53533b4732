"""scripts/make_nets.py remakes a chain of nets from nothing: a tiny chain (--small) runs end to
end, each generation's data is played by the net remade before it, a generation goes on from an
earlier one's net file or float weights, and a rerun does nothing."""
import hashlib
import json
from pathlib import Path

import pytest

from uci_engine.nnue_file import load_net

from conftest import load_script

pytestmark = pytest.mark.slow            # plays self-play games and trains with PyTorch


def test_small_chain_from_nothing_then_a_rerun_does_nothing(tmp_path, capsys):
    mk = load_script("make_nets")
    data, nets = tmp_path / "data", tmp_path / "nets"
    argv = ["--small", "--data-dir", str(data), "--nets-dir", str(nets), "--workers", "1",
            "--threads", "1", "--syzygy", ""]
    assert mk.main(argv) == 0
    plan = mk.small_plan()
    for g in plan:
        net = nets / f"{g.name}.nnue"
        assert load_net(str(net)).hidden == 16
        record = json.loads((nets / f"{g.name}.nnue.json").read_text())
        assert [Path(p).name for p in record["data"]] == [f"{d.name}.rec" for d in g.data]
        # a generation that goes on from an earlier one starts from that remade net: its net
        # file, or the float weights the trainer wrote beside it
        want_init = None if g.init is None else str(
            nets / (g.init + (".f16.npz" if g.init_float else ".nnue")))
        assert mk.init_path(g, str(nets)) == want_init
        assert (record["init"] or {}).get("path") == want_init
        if g.init is not None:
            assert record["init"]["kind"] == ("float16 weights" if g.init_float else "net")
    for d in {d for g in plan for d in g.data}:
        side = json.loads((data / f"{d.name}.rec.json").read_text())
        assert side["positions"] >= d.positions
        # the data of a generation is played by the net this chain remade before it
        want = ("hand-crafted" if d.net is None else
                hashlib.sha256((nets / f"{d.net}.nnue").read_bytes()).hexdigest())
        assert side["net_sha256"] == want
    capsys.readouterr()
    stamps = {p: p.stat().st_mtime_ns for p in list(data.iterdir()) + list(nets.iterdir())}
    assert mk.main(argv) == 0
    out = capsys.readouterr().out
    assert out.count(": done") == sum(len(g.data) + 1 for g in plan)
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps
    assert mk.main(argv + ["--upto", "nope"]) == 2
