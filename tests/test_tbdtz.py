"""The compiled Syzygy DTZ prober (:mod:`uci_engine.kernels.tbdtz`, tables loaded by
:class:`uci_engine.tbfiles.DtzTables`) against python-chess's
``chess.syzygy.Tablebase.probe_dtz``, the oracle: the loaded headers, random legal positions of
every 3- and 4-man table (tests/data/syzygy34), en-passant positions, a copy of two tables
rewritten with 16-bit value maps, and damaged copies of the files.
"""
import random
import shutil
import struct
from pathlib import Path

import chess
import chess.syzygy
import numpy as np
import pytest

from uci_engine.fen import parse_fen
from uci_engine.kernels import position as P
from uci_engine.kernels import state as SS
from uci_engine.kernels import tbdtz as TD
from uci_engine.kernels import tbformat as TF
from uci_engine.tbfiles import DtzTables, WdlTables, _Table
from uci_engine.tools.tbpositions import random_board, random_boards

from test_tbprobe import ep_board

TB34 = Path(__file__).parent / "data" / "syzygy34"
#: positions compared with python-chess, spread evenly over the 35 tables
POSITIONS = 20_000
#: extra KPvKP positions whose side to move may capture en passant
EP_POSITIONS = 300
#: a bound on |DTZ| (uint16 map values, doubled, plus 101 and the one-ply search's ply)
DTZ_BOUND = 2 * 0xFFFF + 200


def probe_all(wdl, dtz, boards):
    """Our DTZ of each board (int64 array), through :func:`tbdtz.probe_dtz_many`."""
    n = len(boards)
    st, mb = P.new_stack(n + TD.DTZ_ROWS + 1)
    for i, b in enumerate(boards):
        parse_fen(b.fen(), st, mb, i)
    out = np.zeros(n, dtype=np.int64)
    TD.probe_dtz_many(wdl.array, dtz.array, st, mb, np.arange(n, dtype=np.int64),
                      SS.new_move_buffers(), np.zeros(8, dtype=np.int64), out)
    return out


def oracle_dtz(path, boards):
    """python-chess's DTZ of each board with the tables of ``path`` (DTZ_FAIL where a table
    is missing)."""
    with chess.syzygy.open_tablebase(str(path)) as tb:
        return [tb.get_dtz(b, TF.DTZ_FAIL) for b in boards]


@pytest.fixture(scope="module")
def wdl():
    return WdlTables([str(TB34)])


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


def test_identity_with_python_chess(wdl, dtz):
    """Every DTZ equals python-chess's probe_dtz (20,000 random positions over the 35 tables,
    plus en-passant positions)."""
    rng = random.Random(20261128)
    boards = random_boards(rng, sorted(wdl.names), -(-POSITIONS // len(wdl.names)))
    ep = 0
    while ep < EP_POSITIONS:
        b = ep_board(rng)
        if b is not None:
            boards.append(b)
            ep += 1
    ours = probe_all(wdl, dtz, boards)
    want = oracle_dtz(TB34, boards)
    bad = [(b.fen(), int(o), w) for b, o, w in zip(boards, ours, want) if o != w]
    assert not bad, (len(bad), bad[:10])
    assert TF.DTZ_FAIL not in ours
    assert len(boards) >= POSITIONS + EP_POSITIONS
    assert min(want) < -50 and max(want) > 50 and 0 in want and 1 in want and -1 in want


def test_missing_table_fails(wdl, tmp_path):
    """A position that needs a DTZ table (or a WDL table) that is not loaded gives
    DTZ_FAIL; one that needs none of them, or only those loaded, is answered."""
    shutil.copy(TB34 / "KRvK.rtbz", tmp_path)
    only = DtzTables([str(tmp_path)])
    boards = [chess.Board("8/8/8/4k3/8/8/8/KQ6 w - - 0 1"),       # KQvK: no DTZ table
              chess.Board("8/8/8/4k3/8/8/8/KR6 w - - 0 1"),       # KRvK: the table's side
              chess.Board("8/8/8/4k3/8/8/8/KR6 b - - 0 1"),       # ... the other side
              chess.Board("8/8/8/4k3/8/8/8/KB6 w - - 0 1"),       # KBvK: a draw, no table
              chess.Board("8/8/8/3qk3/8/8/8/KR6 w - - 0 1")]      # KRvKQ: no DTZ table
    got = list(probe_all(wdl, only, boards))
    want = oracle_dtz(TB34, boards)
    assert got[0] == TF.DTZ_FAIL and got[4] == TF.DTZ_FAIL
    assert got[1:4] == want[1:4] and want[1] > 0 and want[2] < 0 and want[3] == 0
    shutil.copy(TB34 / "KRvK.rtbw", tmp_path)
    krvk = WdlTables([str(tmp_path)])              # the captures of KRvK reach KvK: no table
    assert list(probe_all(krvk, only, boards[1:3])) == want[1:3]


def _flip(src, dst, offsets):
    data = bytearray(src.read_bytes())
    for off in offsets:
        data[off % len(data)] ^= 0xFF
    dst.write_bytes(bytes(data))


def test_damaged_files(wdl, dtz, tmp_path):
    """Damaged DTZ copies: a bad magic or a truncated file is left out at load with a
    message; flipped bytes in the compressed data or the value maps never crash the prober,
    never give a DTZ outside the legal range or of the wrong sign, and the intact tables keep
    answering exactly as python-chess."""
    for name in ("KRvK", "KQvKR", "KPvKP"):
        shutil.copy(TB34 / f"{name}.rtbz", tmp_path)
    _flip(TB34 / "KQvK.rtbz", tmp_path / "KQvK.rtbz", [0])             # magic
    (tmp_path / "KRvKN.rtbz").write_bytes((TB34 / "KRvKN.rtbz").read_bytes()[:-5])
    size = (TB34 / "KRvKP.rtbz").stat().st_size
    t = _Table(str(TB34 / "KRvKP.rtbz"), dtz=True)
    start = min(e["data"] for e in t.entries.values())
    maps = [m for e in t.entries.values() for a, n in zip(e["map"], e["maplen"])
            for m in range(a, a + n)]
    rng = random.Random(7)
    _flip(TB34 / "KRvKP.rtbz", tmp_path / "KRvKP.rtbz",
          [rng.randrange(start, size - 16) for _ in range(200)] + rng.sample(maps, 10))
    loaded = DtzTables([str(tmp_path)])
    assert sorted(loaded.names) == ["KPvKP", "KQvKR", "KRvK", "KRvKP"]
    assert len(loaded.errors) == 2 and all(("KQvK.rtbz" in e or "KRvKN.rtbz" in e)
                                           for e in loaded.errors), loaded.errors
    rng = random.Random(8)
    damaged = [b for b in (random_board(rng, "KRvKP") for _ in range(3000)) if b]
    got = probe_all(wdl, loaded, damaged)
    true = oracle_dtz(TB34, damaged)
    assert all(v == TF.DTZ_FAIL or (abs(v) <= DTZ_BOUND and np.sign(v) == np.sign(w))
               for v, w in zip(got, true))
    assert any(v != w for v, w in zip(got, true))          # the damage was read
    intact = random_boards(rng, ("KRvK", "KQvKR", "KPvKP"), 700)
    good = tmp_path / "intact"                     # the oracle: every WDL, the intact DTZ
    good.mkdir()
    for name in ("KRvK", "KQvKR", "KPvKP"):
        shutil.copy(TB34 / f"{name}.rtbz", good)
    for f in TB34.glob("*.rtbw"):
        shutil.copy(f, good)
    want = oracle_dtz(good, intact)
    assert list(probe_all(wdl, loaded, intact)) == want
    assert TF.DTZ_FAIL not in want


def test_corrupt_data_switches_the_table_off(wdl, tmp_path):
    """A DTZ file whose index points outside its data: the probe fails, the table is switched
    off and reported once by new_errors()."""
    data = bytearray((TB34 / "KRvKP.rtbz").read_bytes())
    e = _Table(str(TB34 / "KRvKP.rtbz"), dtz=True).entries[(0, 0)]
    for i in range(e["nindex"]):                   # every block number of file a: huge
        data[e["index"] + 6 * i:e["index"] + 6 * i + 4] = b"\xff\xff\xff\x7f"
    (tmp_path / "KRvKP.rtbz").write_bytes(bytes(data))
    bad = DtzTables([str(tmp_path)])
    board = chess.Board("8/8/8/4k3/8/8/p7/1R2K3 w - - 0 1")   # no capture; file a, white
    assert probe_all(wdl, bad, [board])[0] == TF.DTZ_FAIL
    msgs = bad.new_errors()
    assert len(msgs) == 1 and "KRvKP.rtbz" in msgs[0] and bad.new_errors() == []
    assert probe_all(wdl, bad, [board])[0] == TF.DTZ_FAIL            # stays off


def _widen_maps(src, dst):
    """Write ``src`` (a DTZ file with uint8 value maps) to ``dst`` with the same values in
    uint16 maps (flag DTZ_WIDE; tbprobe.cpp set_dtz_map), the regions after them moved."""
    raw = src.read_bytes()
    t = _Table(str(src), dtz=True)
    ents = [t.entries[(f, 0)] for f in range(t.files)]
    first = min(m - 1 for e in ents for m, n in zip(e["map"], e["maplen"]) if m)
    out = bytearray(raw[:first])
    for e in ents:
        if not e["flags"] & TF.DTZ_MAPPED:
            continue
        out[e["offset"] - 10] |= TF.DTZ_WIDE       # the pairs header's flags byte
        out += b"\0" * (len(out) & 1)
        for m, n in zip(e["map"], e["maplen"]):
            out += struct.pack(f"<{n + 1}H", n, *raw[m:m + n])
    out += b"\0" * (len(out) & 1)
    out += raw[ents[0]["index"]:ents[-1]["sizes"] + 2 * ents[-1]["nblocks"]]
    for e in ents:
        out += b"\0" * (-len(out) % 64)
        out += raw[e["data"]:e["data"] + (e["real_blocks"] << e["blocksize"])]
    out += b"\0" * ((16 - len(out)) % 64)
    dst.write_bytes(bytes(out))


def test_wide_value_maps(wdl, tmp_path):
    """KQvKR and KRvKP rewritten with 16-bit value maps (the 3-4-man files have none) give
    the DTZ of the original files, as python-chess reads them too."""
    for f in TB34.glob("*.rtbz"):
        shutil.copy(f, tmp_path)
    for f in TB34.glob("*.rtbw"):
        shutil.copy(f, tmp_path)
    for name in ("KQvKR", "KRvKP"):
        _widen_maps(TB34 / f"{name}.rtbz", tmp_path / f"{name}.rtbz")
    wide = DtzTables([str(tmp_path)])
    assert not wide.errors
    t = wide.tables[wide.names.index("KRvKP")]
    assert all(t.entries[(f, 0)]["flags"] & TF.DTZ_WIDE for f in range(4))
    boards = random_boards(random.Random(9), ("KQvKR", "KRvKP"), 600)
    want = oracle_dtz(TB34, boards)
    assert oracle_dtz(tmp_path, boards) == want
    assert list(probe_all(wdl, wide, boards)) == want
