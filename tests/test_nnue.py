"""NNUE kernels and net files (uci_engine/kernels/nnue.py, uci_engine/nnue_file.py).

* Incremental accumulator == full refresh, exactly, after every move of random legal playouts
  from all perft.epd positions and a spread of perft960.epd ones (Chess960 parsing), for every
  input layout (plain, and king buckets with their refresh on a king move that changes its
  bucket or a<->h mirror); the moves are biased towards castling, en passant and promotions,
  and the test asserts that standard and Chess960 castling, en passant, promotions (with and
  without capture), null moves (nnue_copy) and bucket refreshes occurred. The parent row is
  never written (copy-on-make). One Finny table serves every playout, as in a search thread.
* The Finny table's rebuild == the full refresh, for both perspectives of 1,000 unrelated
  positions in a row through one table (every entry reused across positions), and its entries
  then hold exactly the pieces of the last position that used them.
* Quantised Numba inference == a float numpy forward pass of the dequantised weights, with
  features and buckets computed independently from python-chess, within the floor-division
  error (< 2 cp), on 1,000 positions, for SCReLU and CReLU nets (one with saturating
  accumulators), with output buckets and king buckets; a position and its colour-flipped
  mirror evaluate identically, and with king buckets also its a<->h mirror.
* Net files: save/load round trip of every architecture (the committed version-1 test net
  too), the shipped nets against their training records, and ValueError for truncated,
  foreign, other-version, unsupported-architecture, mismatched, corrupt, trailing-bytes and
  overflow-prone files.
"""
import os
import random
import struct

import chess
import numpy as np
import pytest

from uci_engine.fen import format_fen, parse_fen
from uci_engine.kernels import position as P
from uci_engine.kernels import nnue as N
from uci_engine.kernels.bitboard import NO_PIECE
from uci_engine.kernels.movegen import generate_legal
from uci_engine.nnue_file import (ACTIVATIONS, HEADER, HEADER_V1, MAGIC, NETS_DIR, Net, load_net,
                                  random_net, save_net, check_net, widened_net)

DATA = os.path.join(os.path.dirname(__file__), "data")
TEST_NET = os.path.join(NETS_DIR, "test_h32_screlu.nnue")
PLIES = 60


def _fens(name):
    with open(os.path.join(DATA, name)) as fh:
        return [ln.split(";")[0].strip() for ln in fh if ln.strip()]


STANDARD = _fens("perft.epd")
FISCHER = _fens("perft960.epd")[::10]           # 96 Chess960 positions


def _is960(fen):
    return any(c not in "KQkq-" for c in fen.split()[2])


@pytest.fixture(scope="module")
def nets():
    """One net of every architecture the kernels run: plain layout with one output (the
    committed version-1 file, CReLU, saturating "hot"), 8 output buckets, king buckets."""
    return {"file": load_net(TEST_NET),
            "crelu": random_net(16, 5, activation=N.ACT_CRELU),
            "hot": random_net(64, 7, ft_range=3.0, out_range=1.5),
            "buckets8": random_net(32, 13, output_buckets=8),
            "king4": random_net(32, 17, output_buckets=8, king_map="ranks4"),
            "king8": random_net(16, 19, ft_range=3.0, out_range=1.5, king_map="wing8")}


def _playouts(seed_base=0):
    """Yield (fen, chess960, [moves]) random legal playouts, special moves preferred half the
    time, with a null move now and then (encoded as P.NULL_MOVE)."""
    starts = [(f, _is960(f)) for f in STANDARD] + [(f, True) for f in FISCHER]
    buf = np.zeros(256, dtype=np.int32)
    for i, (fen, c960) in enumerate(starts):
        rng = random.Random(seed_base + i)
        st, mb = P.new_stack(PLIES + 2)
        parse_fen(fen, st, mb, 0, chess960=c960)
        line = []
        for ply in range(PLIES):
            n = int(generate_legal(st, np.int64(ply), buf))
            if n == 0:
                break
            moves = [int(m) for m in buf[:n]]
            special = [m for m in moves if (m >> 12) & 7 in (P.FLAG_EP, P.FLAG_CASTLE)
                       or (m >> 12) & 7 >= P.FLAG_PROMO]
            if special and rng.random() < 0.5:
                m = rng.choice(special)
            elif rng.random() < 0.04 and not P.in_check(st, np.int64(ply)):
                m = P.NULL_MOVE
            else:
                m = rng.choice(moves)
            if m == P.NULL_MOVE:
                P.make_null_move(st, mb, np.int64(ply))
            else:
                P.make_move(st, mb, np.int64(ply), np.int64(m))
            line.append(m)
        yield fen, c960, st, mb, line


def _orientation(st, ply, persp, net):
    """(bucket, mirrored) of perspective persp's own king in st row ply (Python oracle)."""
    ksq = int(st[ply, persp * 6 + 5]).bit_length() - 1 ^ (56 * persp)
    return net.king_map[ksq], (ksq & 7) >= 4


@pytest.mark.parametrize("which", ["hot", "king4", "king8"])
def test_incremental_equals_refresh(nets, which):
    net = nets[which]
    pk, params = net.packed(), net.params
    h = net.hidden
    seen = dict.fromkeys(["castling", "castling960", "en passant", "promotion",
                          "capture-promotion", "capture", "null"], 0)
    if net.king_buckets > 1:
        seen.update({"bucket refresh": 0, "mirror refresh": 0, "castling refresh": 0})
    checked = 0
    # one Finny table for every playout, as a search thread keeps one across positions
    cache, pieces = N.new_finny_table(pk)
    for fen, c960, st, mb, line in _playouts():
        acc = N.new_accumulators(h, len(line) + 2)
        ref = N.new_accumulators(h, len(line) + 2)
        N.nnue_refresh(st, np.int64(0), pk, acc, np.int64(0), params)
        for ply, m in enumerate(line):
            parent = acc[ply].copy()
            if m == P.NULL_MOVE:
                N.nnue_copy(acc, np.int64(ply))
                seen["null"] += 1
            else:
                # after make_move, as the search will call it (mb[ply] is the pre-move box)
                N.nnue_update(st, mb, np.int64(ply), np.int64(m), acc, np.int64(ply), pk, params,
                              cache, pieces)
                if net.king_buckets > 1:
                    us = int(st[ply, P.STM])
                    (b0, m0), (b1, m1) = (_orientation(st, r, us, net) for r in (ply, ply + 1))
                    if b0 != b1:
                        seen["bucket refresh"] += 1
                    if m0 != m1:
                        seen["mirror refresh"] += 1
                    if (b0, m0) != (b1, m1) and (m >> 12) & 7 == P.FLAG_CASTLE:
                        seen["castling refresh"] += 1
                flag = (m >> 12) & 7
                cap = int(st[ply + 1, P.CAPTURED]) != NO_PIECE
                if flag == P.FLAG_CASTLE:
                    seen["castling960" if st[ply, P.CHESS960] else "castling"] += 1
                elif flag == P.FLAG_EP:
                    seen["en passant"] += 1
                elif flag >= P.FLAG_PROMO:
                    seen["capture-promotion" if cap else "promotion"] += 1
                elif cap:
                    seen["capture"] += 1
            assert np.array_equal(acc[ply], parent), "nnue_update wrote the parent row"
            N.nnue_refresh(st, np.int64(ply + 1), pk, ref, np.int64(ply + 1), params)
            assert np.array_equal(acc[ply + 1], ref[ply + 1]), \
                f"{fen}: accumulator differs after {format_fen(st, mb, ply + 1)} (move {m:#x})"
            checked += 1
    assert checked > 5000
    for kind, count in seen.items():
        assert count >= 5, f"too few {kind} moves in the playouts: {seen}"


@pytest.mark.parametrize("which", ["hot", "king8"])
def test_lazy_materialize_equals_refresh(nets, which):
    """Lazy updates (kernels/static_eval.py): moves only marked pending along a playout, then
    the accumulator brought up to date at a few plies, across chains of 1 to 6 pending moves
    (null moves included), equals a refresh of that ply, and the marks end clean up to it."""
    from uci_engine.kernels import static_eval as SE
    net = nets[which]
    pk, params = net.packed(), net.params
    rng = random.Random(7)
    chains = 0
    for fen, c960, st, mb, line in _playouts():
        acc = N.new_search_accumulators(pk, len(line) + 2)
        stack, pending = acc[0], acc[3]
        ref = N.new_accumulators(net.hidden, len(line) + 2)
        N.nnue_refresh(st, np.int64(0), pk, stack, np.int64(0), params)
        ply = 0
        while ply < len(line):
            stop = min(len(line), ply + rng.randint(1, 6))
            for a in range(ply, stop):
                SE.nnue_push_move(acc, np.int64(line[a]), np.int64(a))
            assert (pending[ply + 1:stop + 1] == line[ply:stop]).all()
            SE.nnue_materialize(st, mb, np.int64(stop), acc, np.int64(stop), pk, params)
            assert (pending[:stop + 1] == N.ACC_CLEAN).all()
            N.nnue_refresh(st, np.int64(stop), pk, ref, np.int64(stop), params)
            assert np.array_equal(stack[stop], ref[stop]), \
                f"{fen}: lazy accumulator differs at {format_fen(st, mb, stop)}"
            chains += stop - ply > 1
            ply = stop
    assert chains > 100


@pytest.mark.parametrize("which", ["hot", "king4", "king8"])
def test_finny_rebuild_equals_refresh(nets, which):
    net = nets[which]
    pk, params = net.packed(), net.params
    cache, pieces = N.new_finny_table(pk)
    assert cache.shape == (2 * net.king_buckets, 2, net.hidden)
    assert pieces.shape == (2 * net.king_buckets, 2, 12) and not pieces.any()
    assert (cache == net.b_ft).all(), "an empty entry holds the b_ft row (no pieces)"
    st, mb = P.new_stack(2)
    acc = N.new_accumulators(net.hidden, 2)
    ref = N.new_accumulators(net.hidden, 2)
    used = {}
    for fen, c960 in _positions(1000):
        parse_fen(fen, st, mb, 0, chess960=c960)
        acc[:] = 0
        for persp in range(2):
            N.nnue_refresh_cached(st, np.int64(0), pk, acc, np.int64(1), np.int64(persp), params,
                                  cache, pieces)
            bucket, mirrored = _orientation(st, 0, persp, net)
            e = 2 * bucket + mirrored if net.king_buckets > 1 else 0
            assert np.array_equal(pieces[e, persp], st[0, :12]), fen
            used[e, persp] = used.get((e, persp), 0) + 1
        N.nnue_refresh(st, np.int64(0), pk, ref, np.int64(1), params)
        assert np.array_equal(acc[1], ref[1]), f"{fen}: the Finny rebuild differs"
        assert not acc[0].any(), "only row aply is written"
    if net.king_buckets > 1:
        assert len(used) >= 2 * net.king_buckets, f"too few entries used: {sorted(used)}"
    assert max(used.values()) > 100, "entries must be reused across positions"


# --- float oracle ----------------------------------------------------------------------------
def _features(board, persp, king_map=None):
    """Active inputs of a python-chess board from perspective persp (0 white, 1 black):
    384 * (colour != persp) + 64 * type + (sq ^ 56 * persp); with a 64-entry ``king_map``
    (king-bucketed layout) 768 * bucket of the own king's square is added and every square is
    mirrored a<->h while that king stands on files e-h."""
    base, flip = 0, 56 * persp
    if king_map is not None:
        ksq = board.king(chess.WHITE if persp == 0 else chess.BLACK) ^ flip
        base = 768 * king_map[ksq]
        flip ^= 7 if chess.square_file(ksq) >= 4 else 0
    out = []
    for sq, piece in board.piece_map().items():
        colour = 0 if piece.color == chess.WHITE else 1
        out.append(base + 384 * (colour != persp) + 64 * (piece.piece_type - 1) + (sq ^ flip))
    return out


def float_eval(net, board):
    """Float forward pass (centipawns, side to move's view) of the dequantised weights; the
    output bucket is (pieces - 2) // ceil(32 / B)."""
    w_ft = net.w_ft.astype(np.float64) / net.qa
    b_ft = net.b_ft.astype(np.float64) / net.qa
    buckets = net.w_out.shape[0] // 2
    bucket = (len(board.piece_map()) - 2) // -(-32 // buckets)
    w_out = net.w_out[2 * bucket:2 * bucket + 2].astype(np.float64) / net.qb
    out = net.out_biases[bucket] / (net.qa * net.qb)
    king_map = net.king_map if net.layout == N.LAYOUT_KING_MIRRORED else None
    stm = 0 if board.turn == chess.WHITE else 1
    for row, persp in enumerate((stm, 1 - stm)):
        a = np.clip(b_ft + w_ft[_features(board, persp, king_map)].sum(axis=0), 0.0, 1.0)
        if net.activation == N.ACT_SCRELU:
            a = a * a
        out += float(a @ w_out[row])
    return out * net.scale


def _positions(count):
    fens = []
    for fen, c960, st, mb, line in _playouts(seed_base=1000):
        for ply in range(0, len(line) + 1, 3):
            fens.append((format_fen(st, mb, ply), c960))
        if len(fens) >= count:
            break
    return fens[:count]


@pytest.mark.parametrize("which", ["file", "crelu", "hot", "buckets8", "king4", "king8"])
def test_quantised_matches_float(nets, which):
    net = nets[which]
    pk, params = net.packed(), net.params
    st, mb = P.new_stack(2)
    acc = N.new_accumulators(net.hidden, 2)
    positions = _positions(1000)
    assert len(positions) == 1000
    worst = 0.0
    values = set()
    saturated = 0
    for fen, c960 in positions:
        parse_fen(fen, st, mb, 0, chess960=c960)
        N.nnue_refresh(st, np.int64(0), pk, acc, np.int64(0), params)
        got = int(N.nnue_evaluate(st, np.int64(0), acc, np.int64(0), pk, params))
        want = float_eval(net, chess.Board(fen, chess960=c960))
        worst = max(worst, abs(got - want))
        values.add(got)
        saturated += int((acc[0] >= net.qa).sum())
        # floor of (x // QA) then of (y * scale // (QA * QB)): below 1 + scale / (QA * QB) cp
        assert abs(got - want) < 2.0, f"{fen}: numba {got}, float {want:.3f}"
    assert len(values) > 100, "evaluation nearly constant: the test would not see errors"
    if which == "hot":
        assert saturated > 1000, "the hot net should exercise the clamp at QA"


def test_packed_layout(nets):
    """Net.packed(): the w_ft rows, the b_ft row (bias_row), the 2 * B w_out rows."""
    for net in nets.values():
        pk = net.packed()
        f = net.w_ft.shape[0]
        assert pk.shape == (768 * net.king_buckets + 1 + 2 * net.output_buckets, net.hidden)
        assert int(N.bias_row(pk, net.params)) == f
        assert np.array_equal(pk[:f], net.w_ft) and np.array_equal(pk[f], net.b_ft)
        assert np.array_equal(pk[f + 1:], net.w_out)
    assert nets["file"].packed().shape[0] == N.PACKED_ROWS


def _evaluate(net, fen):
    st, mb = P.new_stack(2)
    parse_fen(fen, st, mb, 0)
    acc = N.new_accumulators(net.hidden, 2)
    pk, params = net.packed(), net.params
    N.nnue_refresh(st, np.int64(0), pk, acc, np.int64(0), params)
    return int(N.nnue_evaluate(st, np.int64(0), acc, np.int64(0), pk, params))


def test_widened_net_evaluates_as_the_original(nets):
    """widened_net (scripts/bench_net_sizes.py's nets): zero neurons and copied output rows
    change no evaluation of a plain net; a copied first layer with the mirrored king-bucket
    layout changes only positions whose evaluation depends on the a<->h mirror."""
    base = nets["file"]
    fens = [fen for fen, c960 in _positions(200)]
    want = [_evaluate(base, fen) for fen in fens]
    for hidden, buckets in ((32, 8), (64, 1), (96, 8)):
        wide = widened_net(base, hidden, output_buckets=buckets)
        assert (wide.hidden, wide.output_buckets) == (hidden, buckets)
        assert [_evaluate(wide, fen) for fen in fens] == want
    king = widened_net(base, 64, king_buckets="wing8")
    assert king.king_buckets == 8
    # kings on files a-d: no mirror, the same features in every bucket's copy
    a_to_d = [i for i, fen in enumerate(fens)
              if all(chess.square_file(chess.Board(fen).king(c)) < 4 for c in chess.COLORS)]
    assert len(a_to_d) > 20
    assert [_evaluate(king, fens[i]) for i in a_to_d] == [want[i] for i in a_to_d]
    with pytest.raises(ValueError):
        widened_net(base, 16)
    with pytest.raises(ValueError):
        widened_net(nets["buckets8"], 64)


@pytest.mark.parametrize("which", ["file", "buckets8", "king4"])
def test_mirror_symmetry(nets, which):
    """A position and its colour-flipped mirror evaluate identically."""
    net = nets[which]
    res = [(_evaluate(net, fen), _evaluate(net, chess.Board(fen).mirror().fen()))
           for fen, c960 in _positions(300) if not c960]
    assert len(res) > 100 and all(a == b for a, b in res)
    assert len({a for a, _ in res}) > 20


def test_king_buckets_mirror_files(nets):
    """With the mirrored king-bucket layout a position without castling rights and its a<->h
    mirror evaluate identically (the plain layout has no such symmetry)."""
    same = {}
    for which in ("king4", "file"):
        res = []
        for fen, c960 in _positions(400):
            board = chess.Board(fen, chess960=c960)
            if board.castling_rights:
                continue
            res.append(_evaluate(nets[which], board.fen())
                       == _evaluate(nets[which], board.transform(chess.flip_horizontal).fen()))
        same[which] = res
    assert len(same["king4"]) > 50 and all(same["king4"])
    assert not all(same["file"])


def test_feature_index_matches_oracle():
    board = chess.Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    st, mb = P.new_stack(2)
    parse_fen(board.fen(), st, mb, 0)
    out = np.zeros(32, dtype=np.int64)
    for persp in range(2):
        n = int(N.active_features(st, np.int64(0), np.int64(persp), out))
        assert sorted(out[:n].tolist()) == sorted(_features(board, persp))
    # white king e1 from white: 64 * 5 + 4; from black it is "their" king on e8
    assert N.feature_index(0, 5, 4) == 324 and N.feature_index(1, 5, 4) == 384 + 320 + 60


# --- files -----------------------------------------------------------------------------------
def _same(a, b):
    return (np.array_equal(a.w_ft, b.w_ft) and np.array_equal(a.b_ft, b.b_ft)
            and np.array_equal(a.w_out, b.w_out) and a.out_biases == b.out_biases
            and (a.qa, a.qb, a.scale, a.activation, a.layout, tuple(a.king_map))
            == (b.qa, b.qb, b.scale, b.activation, b.layout, tuple(b.king_map)))


def test_round_trip(tmp_path, nets):
    for name, net in nets.items():
        path = tmp_path / f"{name}.nnue"
        n = save_net(path, net)
        h, k, b = net.hidden, net.king_buckets, net.output_buckets
        want = HEADER.size + 2 * (768 * k * h + h + 2 * b * h + b)
        assert os.path.getsize(path) == n == want
        assert _same(load_net(path), net)
        assert load_net(path).architecture() == net.architecture()
    assert nets["king4"].architecture() == "(768x4 -> 32)x2 -> 8, SCReLU"
    # the committed test net (format version 1) is what scripts/make_test_net.py generates
    assert open(TEST_NET, "rb").read(12)[8:] == struct.pack("<I", 1)
    assert _same(load_net(TEST_NET), random_net(32, 11))


def test_shipped_nets_match_their_records():
    """Every net in uci_engine/nets/ with a training record (``<net>.json``) loads, and its
    header agrees with the record: hidden size, activation and quantisation."""
    import json
    records = sorted(f for f in os.listdir(NETS_DIR) if f.endswith(".nnue.json"))
    assert records, "no shipped net has a training record"
    for rec_name in records:
        with open(os.path.join(NETS_DIR, rec_name)) as fh:
            rec = json.load(fh)
        net_name = rec_name[:-len(".json")]
        net = load_net(os.path.join(NETS_DIR, net_name))
        assert (net.hidden, net.activation, net.qa, net.qb, net.scale) == \
            (rec["hidden"], ACTIVATIONS[rec["activation"]], rec["qa"], rec["qb"],
             rec["scale"]), rec_name
        assert rec["net"] == "uci_engine/nets/" + net_name, rec_name


def _bad(tmp_path, data, match):
    path = tmp_path / "bad.nnue"
    path.write_bytes(data)
    with pytest.raises(ValueError, match=match):
        load_net(path)


def test_rejects_bad_files(tmp_path):
    good = open(TEST_NET, "rb").read()              # format version 1
    assert len(good) > HEADER_V1.size
    _bad(tmp_path, b"", "bad magic")
    _bad(tmp_path, good[:5], "bad magic")
    _bad(tmp_path, good[:HEADER_V1.size - 3], "truncated header")
    _bad(tmp_path, good[:-1], "truncated payload")
    _bad(tmp_path, good[:HEADER_V1.size + 100], "truncated payload")
    _bad(tmp_path, good + b"\0\0", "unexpected bytes")
    _bad(tmp_path, b"\x8a\x00" * 5000, "bad magic")               # foreign binary
    _bad(tmp_path, b"PK\x03\x04" + good[4:], "bad magic")         # a zip, say
    # header fields: version, H (payload length then mismatches), digest
    _bad(tmp_path, good[:8] + struct.pack("<I", 3) + good[12:], "format version 3; this build")
    _bad(tmp_path, good[:12] + struct.pack("<I", 64) + good[16:], "does not match H=64")
    _bad(tmp_path, good[:12] + struct.pack("<I", 0) + good[16:], "hidden size 0")
    flipped = bytearray(good)
    flipped[HEADER_V1.size + 1000] ^= 1
    _bad(tmp_path, bytes(flipped), "digest mismatch")
    # unknown activation: rewrite header field (offset 28) keeping the digest valid
    _bad(tmp_path, good[:28] + struct.pack("<I", 9) + good[32:], "activation")


def test_rejects_architectures_this_build_cannot_run(tmp_path, nets):
    """Version-2 header fields (outside the digest): input layout, output buckets, king map."""
    path = tmp_path / "king.nnue"
    save_net(path, nets["king4"])
    good = path.read_bytes()
    assert good[40:104] == bytes(nets["king4"].king_map)
    _bad(tmp_path, good[:32] + struct.pack("<I", 5) + good[36:],
         "input layout 5 is not one this build can run")
    _bad(tmp_path, good[:36] + struct.pack("<I", 9) + good[40:], "9 output buckets")
    _bad(tmp_path, good[:36] + struct.pack("<I", 0) + good[40:], "0 output buckets")
    _bad(tmp_path, good[:36] + struct.pack("<I", 4) + good[40:], "payload length")
    asym = bytearray(good)
    asym[40 + 4] = 1                    # e1's bucket differs from d1's
    _bad(tmp_path, bytes(asym), "not symmetric")
    big = bytearray(good)
    big[40 + 60] = big[40 + 59] = 40    # d8 and e8 in bucket 40
    _bad(tmp_path, bytes(big), "40 king buckets|41 king buckets")
    plain = tmp_path / "plain.nnue"
    save_net(plain, nets["buckets8"])
    p = bytearray(plain.read_bytes())
    p[40] = 1
    _bad(tmp_path, bytes(p), "king map set for the plain input layout")


def test_rejects_overflow_prone_weights(tmp_path):
    net = random_net(16, 3)
    net.w_ft[:, 0] = 2000               # 32 pieces x 2000 > 32767
    with pytest.raises(ValueError, match="int16 accumulator"):
        check_net(net)
    net = random_net(16, 3)
    net.w_out[0, 0] = 200               # QA * 200 > 32767 (SCReLU product in int16)
    with pytest.raises(ValueError, match="SCReLU"):
        save_net(tmp_path / "x.nnue", net)
    assert not (tmp_path / "x.nnue").exists()
    big = random_net(300, 3)
    big.w_out[:] = 127                  # 300 * 255^2 * 127 > 2^31
    with pytest.raises(ValueError, match="int32"):
        check_net(big)
    assert MAGIC == b"UCENNUE\0" and isinstance(net, Net)
