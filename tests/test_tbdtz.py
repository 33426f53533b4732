"""The Syzygy DTZ tables loaded by :class:`uci_engine.tbfiles.DtzTables` against python-chess's
``chess.syzygy.DtzTable``, the oracle (tests/data/syzygy34).
"""
from pathlib import Path

import chess
import chess.syzygy
import pytest

from uci_engine.kernels import tbformat as TF
from uci_engine.tbfiles import DtzTables

TB34 = Path(__file__).parent / "data" / "syzygy34"


@pytest.fixture(scope="module")
def dtz():
    return DtzTables([str(TB34)])


def test_loads_every_table_as_python_chess(dtz):
    """All 35 DTZ files load, and each entry's pieces, groups, factors, size, flags, value
    maps and regions are those python-chess's DtzTable reads."""
    assert len(dtz.names) == 35 and not dtz.errors and dtz.largest == 4
    mapped = 0
    for t in dtz.tables:
        ref = chess.syzygy.DtzTable(t.path)
        ref.init_table_dtz()
        if t.has_pawns:
            refs = [(ref.files[f].pieces, ref.files[f].norm, ref.files[f].factor,
                     ref.tb_size[f], ref.flags[f], ref.map_idx[f], ref.files[f].precomp)
                    for f in range(4)]
        else:
            refs = [(ref.pieces, ref.norm, ref.factor, ref.tb_size[0], ref.flags,
                     ref.map_idx[0], ref.precomp)]
        assert sorted(t.entries) == [(f, 0) for f in range(len(refs))], t.name
        for f, (pieces, norm, factor, size, flags, map_idx, pre) in enumerate(refs):
            e = t.entries[(f, 0)]
            assert (e["pieces"], e["norm"], e["factor"], e["tbsize"], e["flags"]) == \
                (pieces, norm, factor, size, flags), t.name
            if flags & TF.DTZ_MAPPED:
                mapped += 1
                assert e["map"] == [ref.p_map + i for i in map_idx], t.name
                assert all(ref.data[m - 1] == n for m, n in zip(e["map"], e["maplen"]))
            if not e["const"]:
                assert (e["index"], e["sizes"], e["data"]) == \
                    (pre.indextable, pre.sizetable, pre.data), t.name
    assert mapped >= 10          # KQvKR, KRvKR, KPvKP (4 files) ... hold value maps
