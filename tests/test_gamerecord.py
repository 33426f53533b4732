"""Compact game records (uci_engine/gamerecord.py): games written from python-chess (castling on
both sides, en passant, under-promotion, a Chess960 start) read back with the same start,
moves, scores and results; the text they convert to parses with python-chess and replays
legally; a corrupt or truncated file raises ValueError naming the byte offset; a small datagen
run in records format converts to the lines the text format writes for the same seed; the
trainer reads records through the same iterator."""
import hashlib
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import chess
import numpy as np
import pytest

from uci_engine import datagen as D
from uci_engine import gamerecord as G
from uci_engine.dataformat import format_line, parse_line

from conftest import load_script

DATA = Path(__file__).parent / "data"
BOOK_PATH = DATA / "openings" / "noob_2moves.epd"
NODES = 200

# (start FEN, chess960, scripted UCI moves, random plies after them)
STARTS = [
    # both castlings of both sides: 4. O-O ... 6... O-O-O, and 4... O-O 5. O-O-O
    (chess.STARTING_FEN, False,
     "e2e4 e7e5 g1f3 b8c6 f1c4 d7d6 e1g1 c8g4 d2d3 d8d7 b1c3 e8c8", 30),
    (chess.STARTING_FEN, False, "d2d4 g8f6 c1f4 g7g6 b1c3 f8g7 d1d2 e8g8 e1c1", 30),
    # en passant at once, then under-promotions
    ("4k3/P7/8/3pP3/8/8/6p1/4K3 w - d6 0 40", False, "e5d6 g2g1r e1e2 e8d7 a7a8n", 20),
    # Chess960: king e1, rooks b1 and g1; both castlings are legal at once (king takes rook)
    ("1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w KQkq - 0 1", True, "e1g1 e8b8", 30),
    ("1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w KQkq - 0 1", True, "e1b1 e8g8", 30),
    (chess.STARTING_FEN, False, "", 120),
    (chess.STARTING_FEN, False, "", 120),
]


def _special(board, move):
    return (board.is_castling(move) or board.is_en_passant(move)
            or move.promotion not in (None, chess.QUEEN))


def _play(rng, fen, chess960, script, n_random):
    """python-chess moves of one game: the script, then random legal plies that prefer
    castling, en passant and under-promotion when they are legal."""
    board = chess.Board(fen, chess960=chess960)
    assert board.is_valid(), fen
    moves = []
    for uci in script.split():
        move = board.parse_uci(uci)
        moves.append(move)
        board.push(move)
    for _ in range(n_random):
        legal = list(board.legal_moves)
        if not legal:
            break
        special = [m for m in legal if _special(board, m)]
        move = rng.choice(special) if special and rng.random() < 0.7 else rng.choice(legal)
        moves.append(move)
        board.push(move)
    return moves


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """A record file of the STARTS games and, per game, (fen, chess960, moves, codes, scores,
    result)."""
    rng = random.Random(31)
    path = tmp_path_factory.mktemp("records") / "games.grec"
    games = []
    blob = G.MAGIC
    for fen, chess960, script, n in STARTS:
        moves = _play(rng, fen, chess960, script, n)
        board = chess.Board(fen, chess960=chess960)
        codes = []
        for move in moves:
            codes.append(G.move_code(board, move))
            board.push(move)
        # the first plies unscored (a datagen opening), some mate scores, else centipawns
        scores = [G.SCORE_NONE if i < 3 else
                  rng.choice([32000 - i, -(32000 - i)]) if rng.random() < 0.05 else
                  rng.randint(-3000, 3000) for i in range(len(moves))]
        result = rng.choice([0.0, 0.5, 1.0])
        blob += G.encode_game(fen, list(zip(codes, scores)), result)
        games.append((fen, chess960, moves, codes, scores, result))
    path.write_bytes(blob)
    return path, games


def test_mate_bound_is_the_searchs():
    from uci_engine.kernels.state import MATE_BOUND
    from uci_engine.kernels import position as P
    assert G.MATE_BOUND == MATE_BOUND
    assert (G.FLAG_NORMAL, G.FLAG_EP, G.FLAG_CASTLE, G.FLAG_PROMO) == \
        (P.FLAG_NORMAL, P.FLAG_EP, P.FLAG_CASTLE, P.FLAG_PROMO)


def test_layout_sizes():
    assert (G.HEADER_BYTES, G.PLY_BYTES, len(G.MAGIC)) == (32, 4, 8)
    assert int.from_bytes(G.MAGIC, "little").bit_count() > 32       # never an occupancy


def test_games_cover_the_special_moves(written):
    _, games = written
    seen = set()
    for fen, chess960, moves, _, _, _ in games:
        board = chess.Board(fen, chess960=chess960)
        for move in moves:
            if board.is_kingside_castling(move):
                seen.add(("O-O", board.turn, chess960))
            if board.is_queenside_castling(move):
                seen.add(("O-O-O", board.turn, chess960))
            if board.is_en_passant(move):
                seen.add("ep")
            if move.promotion and move.promotion != chess.QUEEN:
                seen.add("underpromotion")
            board.push(move)
    for side in (chess.WHITE, chess.BLACK):
        for kind in ("O-O", "O-O-O"):
            assert (kind, side, False) in seen
    assert ("O-O", chess.WHITE, True) in seen and ("O-O-O", chess.WHITE, True) in seen
    assert {"ep", "underpromotion"} <= seen


def test_games_read_back_with_the_same_start_moves_scores_and_result(written):
    path, games = written
    read = list(G.read_games(path))
    assert len(read) == len(games)
    offset = len(G.MAGIC)
    for game, (fen, chess960, moves, codes, scores, result) in zip(read, games):
        assert game.offset == offset
        offset += G.HEADER_BYTES + G.PLY_BYTES * len(moves) + G.TERMINATOR_BYTES
        start = chess.Board(fen, chess960=chess960)
        assert game.start == start.fen(en_passant="xfen")
        assert game.plies["move"].tolist() == codes
        assert game.plies["score"].tolist() == scores
        assert game.result == result
        # the replay is the game: the same positions and moves, every move legal
        board = chess.Board(fen, chess960=chess960)
        n = 0
        for (b, move, score), orig in zip(G.replay(path, game), moves):
            assert b.fen() == board.fen()
            assert b.is_legal(move) and board.is_legal(orig)
            assert G.move_code(b, move) == G.move_code(board, orig)
            board.push(orig)
            n += 1
        assert n == len(moves)
    assert offset == path.stat().st_size


def test_text_lines_parse_and_match_the_games(written, tmp_path):
    path, games = written
    out = tmp_path / "games.txt"
    n = G.to_text(path, out)
    lines = out.read_text().splitlines()
    assert n == len(lines) > 100
    expect = []
    for fen, chess960, moves, _, scores, result in games:
        board = chess.Board(fen, chess960=chess960)
        for move, score in zip(moves, scores):
            quiet = not (board.is_capture(move) or move.promotion)
            if score != G.SCORE_NONE and abs(score) < G.MATE_BOUND and quiet \
                    and not board.is_check():
                expect.append((board.fen(en_passant="xfen"), score, result))
            board.push(move)
    assert [tuple(parse_line(line)) for line in lines] == expect
    for line in lines:
        board = chess.Board(parse_line(line).fen)
        assert board.is_valid() and not board.is_check()
    noisy = G.to_text(path, tmp_path / "noisy.txt", keep_noisy=True)
    assert noisy > n


def test_cli_to_text_and_stats(written, tmp_path):
    path, _ = written
    out = tmp_path / "cli.txt"
    run = subprocess.run([sys.executable, "-m", "uci_engine.gamerecord", "to-text", str(path),
                          str(out)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert out.read_text() == "".join(format_line(*rec) + "\n" for rec in G.iter_positions(path))
    st = G.stats(path)
    assert st["games"] == len(STARTS) and st["bytes"] == path.stat().st_size
    assert st["positions"] == len(out.read_text().splitlines())


def _error(path):
    with pytest.raises(ValueError) as info:
        list(G.iter_positions(path))
    return str(info.value)


def test_corrupt_files_raise_value_error_with_the_offset(written, tmp_path):
    path, games = written
    data = path.read_bytes()
    second = len(G.MAGIC) + G.HEADER_BYTES + G.PLY_BYTES * len(games[0][2]) + 4
    bad = tmp_path / "bad.grec"

    bad.write_bytes(data[:second + 50])                        # cut inside game 2
    assert f"offset {second}:" in _error(bad) and "truncated" in _error(bad)

    bad.write_bytes(data[:second + 10])                        # cut inside its header
    assert f"offset {second}:" in _error(bad)

    bad.write_bytes(data + b"\x01\x02")                         # trailing bytes
    assert f"offset {len(data)}:" in _error(bad)

    bad.write_bytes(b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 | 0 | 0.5\n")
    assert "offset 0:" in _error(bad)                           # a text file

    ply = len(G.MAGIC) + G.HEADER_BYTES + 2 * G.PLY_BYTES       # game 1, ply 2
    for code in (3 << 12 | 12 | 28 << 6,                         # flag 3
                 chess.H8 | chess.H1 << 6):                      # well-formed, illegal
        b = bytearray(data)
        b[ply:ply + 2] = code.to_bytes(2, "little")
        bad.write_bytes(bytes(b))
        assert f"offset {ply}:" in _error(bad)

    b = bytearray(data)
    b[second + 24] = 7                                           # side to move 7
    bad.write_bytes(bytes(b))
    assert f"offset {second}:" in _error(bad)

    b = bytearray(data)
    b[second + 8] = 0x66                                         # piece code 6: invalid
    bad.write_bytes(bytes(b))
    assert f"offset {second}:" in _error(bad)


def test_concatenated_files_read_as_one(written, tmp_path):
    path, games = written
    both = tmp_path / "both.grec"
    both.write_bytes(path.read_bytes() * 2)
    assert len(list(G.read_games(both))) == 2 * len(games)


# --- datagen in records format ---------------------------------------------------------------
def _run(out, fmt, games):
    settings = D.Settings(nodes=NODES, seed=5, book=D.read_book(BOOK_PATH), fmt=fmt,
                          book_name=str(BOOK_PATH))
    from uci_engine import backend
    return D.run(str(out), settings, backend.selected(), games=games, workers=1,
                 progress=False, log=lambda s: None)


def test_datagen_records_convert_to_the_text_formats_lines(tmp_path, capsys):
    text, rec, conv = tmp_path / "d.txt", tmp_path / "d.grec", tmp_path / "conv.txt"
    s_text = _run(text, "text", 2)
    _run(rec, "records", 1)
    s_rec = _run(rec, "records", 2)                             # resumes: plays game 1 only
    assert s_rec["games"] == 1
    whole = rec.read_bytes()
    rec.write_bytes(whole + whole[8:8 + 50])                # a crash in the middle of a game
    assert G.complete_bytes(rec) == len(whole)
    _run(rec, "records", 2)                                  # nothing to play: truncates
    assert rec.read_bytes() == whole
    G.to_text(rec, conv)
    assert conv.read_text() == text.read_text()
    n = len(conv.read_text().splitlines())
    assert n == s_text["positions"] > 0
    per_position = rec.stat().st_size / n
    print(f"records: {rec.stat().st_size} bytes, {n} positions, {per_position:.2f} bytes a "
          f"position; text: {text.stat().st_size / n:.1f} bytes a position")
    assert per_position < text.stat().st_size / n / 5
    side = json.loads(Path(str(rec) + ".json").read_text())
    assert side["format"] == "records" and side["net_sha256"] == "hand-crafted"
    assert (side["nodes"], side["seed"], side["book"]) == (NODES, 5, str(BOOK_PATH))
    assert side["commit"] and side["command"].startswith("uci-engine")
    with pytest.raises(ValueError):
        _run(rec, "text", 3)                                  # a record file as text: refused
    with pytest.raises(ValueError):
        _run(text, "records", 3)
    bare = tmp_path / "bare.grec"                          # no sidecar: told by the magic
    bare.write_bytes(rec.read_bytes())
    with pytest.raises(ValueError, match="is a game-record file"):
        _run(bare, "text", 1)
    bare.write_bytes(text.read_bytes())
    with pytest.raises(ValueError, match="is not a game-record file"):
        _run(bare, "records", 1)


def test_cli_datagen_writes_records_and_the_sidecar(tmp_path):
    out = tmp_path / "cli.grec"
    cmd = [sys.executable, "-m", "uci_engine", "datagen", "--out", str(out), "--format",
           "records", "--games", "1", "--nodes", str(NODES), "--workers", "1", "--seed", "2",
           "--quiet", "--book", str(BOOK_PATH)]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert G.is_record_file(out) and len(list(G.read_games(out))) == 1
    side = json.loads(Path(str(out) + ".json").read_text())
    assert side["command"] == "uci-engine " + " ".join(cmd[3:])
    assert side["settings"]["format"] == "records"


def test_net_digest_is_the_files_sha256():
    net = Path(D.__file__).parent / "nets" / "gen2_h128.nnue"
    settings = D.Settings(nodes=NODES, eval_file=str(net))
    assert settings.net_sha256 == hashlib.sha256(net.read_bytes()).hexdigest()


def test_trainer_reads_records_as_their_text(written, tmp_path):
    T = load_script("train_nnue")
    path, _ = written
    text = tmp_path / "games.txt"
    G.to_text(path, text)
    a = np.load(T.convert(str(path), bin_dir=str(tmp_path)))
    b = np.load(T.convert(str(text), bin_dir=str(tmp_path)))
    assert len(a) > 100 and a.tobytes() == b.tobytes()
    noisy = np.load(T.convert(str(path), bin_dir=str(tmp_path), keep_noisy=True))
    assert len(noisy) > len(a)


def test_read_games_reads_on_from_a_games_end(written, tmp_path):
    path, _ = written
    games = list(G.read_games(path))
    assert len(games) > 3 and games[0].offset == len(G.MAGIC)
    for a, b in zip(games, games[1:]):
        assert a.end == b.offset                           # ends are the next game's start
    assert games[-1].end == path.stat().st_size
    k = len(games) // 2
    later = list(G.read_games(path, games[k].end))
    assert [g.offset for g in later] == [g.offset for g in games[k + 1:]]
    assert list(G.read_games(path, games[-1].end)) == []
    kept = {game.offset: records for game, records in G.game_positions(path)}
    assert list(G.iter_positions(path, start=games[k].end)) == [
        r for g in games[k + 1:] for r in kept[g.offset]]
    for bad in (games[k].end + 2, path.stat().st_size + 4, -4):
        with pytest.raises(ValueError, match="not a game's start"):
            list(G.read_games(path, bad))


def test_trainer_converts_only_the_games_appended(written, tmp_path, monkeypatch):
    """A record file datagen appended to is converted on from where the last conversion ended
    (its sidecar), to the same records as a conversion of the whole file; a source whose
    converted part changed is converted again from its start."""
    T = load_script("train_nnue")
    path, _ = written
    whole = path.read_bytes()
    games = list(G.read_games(path))
    k = len(games) // 2
    starts = []

    def spy(p, keep_noisy=False, start=0):
        starts.append(start)
        return G.game_positions(p, keep_noisy, start)
    monkeypatch.setattr(T, "game_positions", spy)
    ref = np.load(T.convert(str(path), out=str(tmp_path / "ref.nnuebin.npy")))
    src = tmp_path / "grow.grec"

    def write(data):                        # newer than the conversion, however coarse the clock
        src.write_bytes(data)
        if out is not None:
            t = Path(out).stat().st_mtime + 1
            os.utime(src, (t, t))
    out = None
    write(whole[:games[k].end])
    out = T.convert(str(src))
    side = json.loads(Path(out[:-4] + ".json").read_text())
    assert side["source_bytes"] == games[k].end and side["records"] == len(np.load(out))
    write(whole[:games[k].end] + G.MAGIC + whole[games[k].end:])     # a resumed run
    out = T.convert(str(src))
    assert starts == [0, 0, games[k].end]
    assert np.load(out).tobytes() == ref.tobytes() and len(ref) > 100
    assert json.loads(Path(out[:-4] + ".json").read_text())["source_bytes"] == len(whole) + 8
    # the converted part rewritten (another game first): converted again from the start
    write(G.MAGIC + whole[games[1].offset:] + whole[games[0].offset:games[0].end])
    out = T.convert(str(src))
    assert starts[-1] == 0 and len(np.load(out)) == len(ref)
    assert np.load(out).tobytes() != ref.tobytes()
    # the filter must match: the noisy file is its own conversion
    noisy = T.convert(str(src), keep_noisy=True)
    assert noisy != out and starts[-1] == 0 and len(np.load(noisy)) > len(ref)


def test_trainer_reads_on_a_snapshot_whose_conversion_is_newer(written, tmp_path):
    """A snapshot copied with plain ``cp`` (the record file, then its older and shorter
    conversion, which so gets the newer time) is converted on from its sidecar: the times of
    the files never make a short conversion stand for a longer source."""
    T = load_script("train_nnue")
    path, _ = written
    whole = path.read_bytes()
    games = list(G.read_games(path))
    k = len(games) // 2
    ref = np.load(T.convert(str(path), out=str(tmp_path / "ref.nnuebin.npy")))
    src = tmp_path / "snap.grec"
    src.write_bytes(whole[:games[k].end])
    out = T.convert(str(src))
    short = len(np.load(out))
    assert 0 < short < len(ref)
    src.write_bytes(whole)                                  # datagen appended the other games
    t = src.stat().st_mtime + 10
    os.utime(out, (t, t))                                   # the conversion copied after it
    assert np.load(T.convert(str(src))).tobytes() == ref.tobytes()
    assert json.loads(Path(out[:-4] + ".json").read_text())["source_bytes"] == len(whole)
    # a conversion that covers the whole file is read as it is, whatever the times
    os.utime(src, (t + 10, t + 10))
    before = Path(out).stat().st_mtime_ns
    assert T.convert(str(src)) == out and Path(out).stat().st_mtime_ns == before


def test_wdl_fit_reads_records_as_their_text(written, tmp_path):
    F = load_script("fit_wdl")
    path, _ = written
    text = tmp_path / "games.txt"
    n = G.to_text(path, text)
    *a, a_count = F.load([str(path)], 10**6, 0)
    *b, b_count = F.load([str(text)], 10**6, 0)
    assert len(a[0]) > 50
    for x, y in zip(a, b):
        assert np.array_equal(x, y)
    assert a_count == b_count == [n]
