"""The compiled Syzygy WDL prober (:mod:`uci_engine.kernels.tbprobe`, loaded by
:mod:`uci_engine.tbfiles`) against python-chess's ``chess.syzygy.Tablebase.probe_wdl``, the
oracle, on random legal positions of every 3- and 4-man table (tests/data/syzygy34), and on
damaged copies of the files.
"""
import random
import shutil
from pathlib import Path

import chess
import chess.syzygy
import numpy as np
import pytest

from uci_engine.fen import parse_fen
from uci_engine.kernels import position as P
from uci_engine.kernels import state as SS
from uci_engine.kernels import tbformat as TF
from uci_engine.kernels import tbprobe as TP
from uci_engine.tbfiles import WdlTables
from uci_engine.tools.tbpositions import random_board, random_boards


TB34 = Path(__file__).parent / "data" / "syzygy34"
#: positions compared with python-chess, spread evenly over the 35 tables
POSITIONS = 100_000
#: extra KPvKP positions whose side to move may capture en passant
EP_POSITIONS = 500


def ep_board(rng):
    """A KPvKP position right after a double pawn push that the side to move can capture
    en passant (legal, python-chess validated), or None."""
    white_to_move = rng.random() < 0.5
    f = rng.randrange(8)
    df = rng.choice([d for d in (-1, 1) if 0 <= f + d < 8])
    board = chess.Board(None)
    if white_to_move:
        pushed, capturer, ep = chess.square(f, 4), chess.square(f + df, 4), chess.square(f, 5)
    else:
        pushed, capturer, ep = chess.square(f, 3), chess.square(f + df, 3), chess.square(f, 2)
    mover = chess.WHITE if white_to_move else chess.BLACK
    board.set_piece_at(pushed, chess.Piece(chess.PAWN, not mover))
    board.set_piece_at(capturer, chess.Piece(chess.PAWN, mover))
    free = [s for s in range(64) if s not in (pushed, capturer, ep, ep + (8 if white_to_move
                                                                          else -8))]
    k1, k2 = rng.sample(free, 2)
    board.set_piece_at(k1, chess.Piece(chess.KING, chess.WHITE))
    board.set_piece_at(k2, chess.Piece(chess.KING, chess.BLACK))
    board.turn = mover
    board.ep_square = ep
    return board if board.is_valid() and board.has_legal_en_passant() else None


def probe_all(tables, boards):
    """Our WDL of each board (int64 array), through :func:`tbprobe.probe_many`."""
    n = len(boards)
    st, mb = P.new_stack(n + 16)
    for i, b in enumerate(boards):
        parse_fen(b.fen(), st, mb, i)
    out = np.zeros(n, dtype=np.int64)
    TP.probe_many(tables.array, st, mb, np.arange(n, dtype=np.int64),
                  SS.new_move_buffers(), np.zeros(8, dtype=np.int64), out)
    return out


@pytest.fixture(scope="module")
def tables():
    return WdlTables([str(TB34)])


def test_loads_every_table(tables):
    assert len(tables.names) == 35 and not tables.errors and tables.largest == 4


def test_identity_with_python_chess(tables):
    """Every WDL equals python-chess's probe_wdl (100,000 random positions over the 35
    tables, plus en-passant positions)."""
    rng = random.Random(20261127)
    names = sorted(tables.names)
    per = -(-POSITIONS // len(names))
    boards = random_boards(rng, names, per)
    ep = 0
    while ep < EP_POSITIONS:
        b = ep_board(rng)
        if b is not None:
            boards.append(b)
            ep += 1
    ours = probe_all(tables, boards)
    with chess.syzygy.open_tablebase(str(TB34)) as oracle:
        want = [oracle.probe_wdl(b) for b in boards]
    bad = [(b.fen(), int(o), w) for b, o, w in zip(boards, ours, want) if o != w]
    assert not bad, (len(bad), bad[:10])
    assert len(boards) >= POSITIONS + EP_POSITIONS
    assert set(want) == {-2, 0, 2}     # no 3-4-man table holds a cursed win here


def test_missing_table_fails(tables, tmp_path):
    """A position whose table (or a capture's table) is not loaded gives TB_FAIL."""
    shutil.copy(TB34 / "KRvK.rtbw", tmp_path)
    only = WdlTables([str(tmp_path)])
    boards = [chess.Board("8/8/8/4k3/8/8/8/KQ6 w - - 0 1"),        # KQvK: not loaded
              chess.Board("8/8/8/4k3/8/8/8/KR6 w - - 0 1"),        # KRvK: loaded
              chess.Board("8/8/8/3rk3/8/8/8/KR6 w - - 0 1")]       # KRvKR: not loaded
    assert list(probe_all(only, boards)) == [TF.TB_FAIL, 2, TF.TB_FAIL]


def _flip(src, dst, offsets):
    data = bytearray(src.read_bytes())
    for off in offsets:
        data[off % len(data)] ^= 0xFF
    dst.write_bytes(bytes(data))


def _data_start(tables, name):
    """File offset (int) of the first compressed block of table ``name``."""
    a = tables.array
    rec = int(a[TF.H_TABLES]) + tables.names.index(name) * TF.TREC_LEN
    ent = int(a[rec + TF.T_ENTRY])
    return min(int(a[ent + k * TF.EREC_LEN + TF.E_DATA])
               for k in range(2 * int(a[rec + TF.T_FILES])))


def test_damaged_files(tables, tmp_path):
    """Damaged copies: a bad header or a truncated file is left out at load with a message;
    flipped bytes in the data never crash the prober, never give a value outside -2..2, and
    the intact tables keep answering exactly as python-chess."""
    for name in ("KRvK", "KQvKR", "KPvKP"):
        shutil.copy(TB34 / f"{name}.rtbw", tmp_path)
    _flip(TB34 / "KQvK.rtbw", tmp_path / "KQvK.rtbw", [0])             # magic
    (tmp_path / "KBvK.rtbw").write_bytes((TB34 / "KBvK.rtbw").read_bytes()[:-5])  # truncated
    size = (TB34 / "KRvKP.rtbw").stat().st_size
    start = _data_start(tables, "KRvKP")             # flips in the compressed blocks only
    rng = random.Random(7)
    _flip(TB34 / "KRvKP.rtbw", tmp_path / "KRvKP.rtbw",
          [rng.randrange(start, size - 16) for _ in range(200)])
    loaded = WdlTables([str(tmp_path)])
    assert sorted(loaded.names) == ["KPvKP", "KQvKR", "KRvK", "KRvKP"]
    assert len(loaded.errors) == 2 and all(("KQvK.rtbw" in e or "KBvK.rtbw" in e)
                                           for e in loaded.errors), loaded.errors
    rng = random.Random(8)
    damaged = [b for b in (random_board(rng, "KRvKP") for _ in range(6000)) if b]
    got = probe_all(loaded, damaged)
    assert all(v == TF.TB_FAIL or -2 <= v <= 2 for v in got)
    intact = [b for name in ("KRvK", "KQvKR", "KPvKP")
              for b in (random_board(rng, name) for _ in range(1500)) if b]
    good = tmp_path / "intact"                     # the oracle sees the intact files only
    good.mkdir()
    for name in ("KRvK", "KQvKR", "KPvKP"):
        shutil.copy(TB34 / f"{name}.rtbw", good)
    with chess.syzygy.open_tablebase(str(good)) as oracle:
        want = [oracle.get_wdl(b, TF.TB_FAIL) for b in intact]   # a capture into KQvK: fail
    assert list(probe_all(loaded, intact)) == want
    assert want.count(TF.TB_FAIL) < len(want) // 2


def test_corrupt_data_switches_the_table_off(tmp_path):
    """A file whose index points outside its data: the probe fails, the table is switched
    off and reported once by new_errors()."""
    data = bytearray((TB34 / "KRvKP.rtbw").read_bytes())
    loaded = WdlTables([str(TB34)])
    n = loaded.names.index("KRvKP")
    rec = int(loaded.array[TF.H_TABLES]) + n * TF.TREC_LEN
    ent = int(loaded.array[rec + TF.T_ENTRY])
    index = int(loaded.array[ent + TF.E_INDEX])
    nindex = int(loaded.array[ent + TF.E_NINDEX])
    for i in range(nindex):                      # every block number of file a, side 0: huge
        data[index + 6 * i:index + 6 * i + 4] = b"\xff\xff\xff\x7f"
    (tmp_path / "KRvKP.rtbw").write_bytes(bytes(data))
    bad = WdlTables([str(tmp_path)])
    board = chess.Board("8/8/8/4k3/8/8/p7/1R2K3 w - - 0 1")   # no capture; file a, white
    assert probe_all(bad, [board])[0] == TF.TB_FAIL
    msgs = bad.new_errors()
    assert len(msgs) == 1 and "KRvKP.rtbw" in msgs[0] and bad.new_errors() == []
    assert probe_all(bad, [board])[0] == TF.TB_FAIL              # stays off
