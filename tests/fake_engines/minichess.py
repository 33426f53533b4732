"""Tiny stdlib-only chess move generator and UCI loop for the fake test engines.

Not fast, not clever: it knows the rules (castling, en passant, promotion, check) well enough
to play random legal moves from any FEN, which is all the runner's fault tests need.

Behaviour is selected by ``run(mode=..., after=N)`` (N counts the engine's moves in the
current game; ``ucinewgame`` resets it):

* ``random``  -- a well-behaved random mover (answers ``go`` at once).
* ``illegal`` -- after N own moves, plays an illegal move (a legal-looking e2e5-style jump).
* ``nogo``    -- after N own moves, never answers ``go`` (nor ``stop``) but keeps answering
  ``isready`` -- a hung search.
* ``exit``    -- after N own moves, exits when asked to move (a crash mid-game).
* ``flag``    -- on its move N+1 thinks for its whole clock + 0.3 s, then answers (loses on
  time unless the time margin forgives it); all other moves are instant.
* ``stall``   -- after N own moves, hangs on the next ``isready`` (no ``readyok``, stops
  reading its input): a stalled connection.
* ``slowready`` -- answers the first ``isready`` after each ``ucinewgame`` N tenths of a
  second late (an engine still loading at a game's start), then plays like ``random``.
"""

import random
import sys
import time

FILES = "abcdefgh"
N, S, E, W = 8, -8, 1, -1
KNIGHT = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]
KING = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]
ROOK_DIRS = [(1, 0), (-1, 0), (0, 1), (0, -1)]
BISHOP_DIRS = [(1, 1), (1, -1), (-1, 1), (-1, -1)]
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def sq(name):
    return FILES.index(name[0]) + 8 * (int(name[1]) - 1)


def name(s):
    return FILES[s % 8] + str(s // 8 + 1)


class Pos:
    def __init__(self, fen=START):
        parts = fen.split()
        self.b = ["."] * 64
        rows = parts[0].split("/")
        for r, row in enumerate(rows):
            f = 0
            for ch in row:
                if ch.isdigit():
                    f += int(ch)
                else:
                    self.b[(7 - r) * 8 + f] = ch
                    f += 1
        self.white = parts[1] == "w"
        self.castle = parts[2] if len(parts) > 2 and parts[2] != "-" else ""
        self.ep = sq(parts[3]) if len(parts) > 3 and parts[3] != "-" else None

    def copy(self):
        p = Pos.__new__(Pos)
        p.b, p.white, p.castle, p.ep = self.b[:], self.white, self.castle, self.ep
        return p


def own(ch, white):
    return ch != "." and ch.isupper() == white


def attacked(b, s, by_white):
    f, r = s % 8, s // 8
    for df, dr in KNIGHT:
        ff, rr = f + df, r + dr
        if 0 <= ff < 8 and 0 <= rr < 8 and b[rr * 8 + ff] == ("N" if by_white else "n"):
            return True
    for df, dr in KING:
        ff, rr = f + df, r + dr
        if 0 <= ff < 8 and 0 <= rr < 8 and b[rr * 8 + ff] == ("K" if by_white else "k"):
            return True
    pr = r - 1 if by_white else r + 1
    for df in (-1, 1):
        ff = f + df
        if 0 <= ff < 8 and 0 <= pr < 8 and b[pr * 8 + ff] == ("P" if by_white else "p"):
            return True
    for dirs, pieces in ((ROOK_DIRS, "RQ"), (BISHOP_DIRS, "BQ")):
        targets = pieces if by_white else pieces.lower()
        for df, dr in dirs:
            ff, rr = f + df, r + dr
            while 0 <= ff < 8 and 0 <= rr < 8:
                ch = b[rr * 8 + ff]
                if ch != ".":
                    if ch in targets:
                        return True
                    break
                ff += df
                rr += dr
    return False


def pseudo(p):
    b, w = p.b, p.white
    out = []
    for s in range(64):
        ch = b[s]
        if not own(ch, w):
            continue
        f, r = s % 8, s // 8
        kind = ch.upper()
        if kind == "P":
            d = 1 if w else -1
            last = 7 if w else 0
            r1 = r + d
            if 0 <= r1 < 8:
                t = r1 * 8 + f
                if b[t] == ".":
                    out += [(s, t, pr) for pr in ("qrbn" if r1 == last else [None])]
                    home = 1 if w else 6
                    t2 = (r + 2 * d) * 8 + f
                    if r == home and b[t2] == ".":
                        out.append((s, t2, None))
                for df in (-1, 1):
                    ff = f + df
                    if 0 <= ff < 8:
                        t = r1 * 8 + ff
                        if (b[t] != "." and not own(b[t], w)) or t == p.ep:
                            out += [(s, t, pr) for pr in ("qrbn" if r1 == last else [None])]
        elif kind in "NK":
            for df, dr in (KNIGHT if kind == "N" else KING):
                ff, rr = f + df, r + dr
                if 0 <= ff < 8 and 0 <= rr < 8 and not own(b[rr * 8 + ff], w):
                    out.append((s, rr * 8 + ff, None))
            if kind == "K":
                rank = 0 if w else 7
                if s == rank * 8 + 4 and not attacked(b, s, not w):
                    ks, qs = ("K", "Q") if w else ("k", "q")
                    if ks in p.castle and b[s + 1] == "." and b[s + 2] == "." \
                            and b[s + 3] == ("R" if w else "r") \
                            and not attacked(b, s + 1, not w) and not attacked(b, s + 2, not w):
                        out.append((s, s + 2, None))
                    if qs in p.castle and b[s - 1] == "." and b[s - 2] == "." and b[s - 3] == "." \
                            and b[s - 4] == ("R" if w else "r") \
                            and not attacked(b, s - 1, not w) and not attacked(b, s - 2, not w):
                        out.append((s, s - 2, None))
        else:
            dirs = ROOK_DIRS if kind == "R" else BISHOP_DIRS if kind == "B" else ROOK_DIRS + BISHOP_DIRS
            for df, dr in dirs:
                ff, rr = f + df, r + dr
                while 0 <= ff < 8 and 0 <= rr < 8:
                    t = rr * 8 + ff
                    if own(b[t], w):
                        break
                    out.append((s, t, None))
                    if b[t] != ".":
                        break
                    ff += df
                    rr += dr
    return out


def make(p, m):
    s, t, pr = m
    q = p.copy()
    b = q.b
    ch = b[s]
    kind = ch.upper()
    if kind == "P" and t == p.ep:
        b[t + (-8 if p.white else 8)] = "."
    if kind == "K" and abs(t - s) == 2:
        if t > s:
            b[s + 1], b[s + 3] = b[s + 3], "."
        else:
            b[s - 1], b[s - 4] = b[s - 4], "."
    b[t] = ch
    b[s] = "."
    if pr:
        b[t] = pr.upper() if p.white else pr
    q.ep = (s + t) // 2 if kind == "P" and abs(t - s) == 16 else None
    rights = q.castle
    for square, lose in ((4, "KQ"), (60, "kq"), (0, "Q"), (7, "K"), (56, "q"), (63, "k")):
        if s == square or t == square:
            rights = "".join(c for c in rights if c not in lose)
    q.castle = rights
    q.white = not p.white
    return q


def legal(p):
    out = []
    for m in pseudo(p):
        q = make(p, m)
        k = q.b.index("K" if p.white else "k")
        if not attacked(q.b, k, not p.white):
            out.append(m)
    return out


def uci(m):
    return name(m[0]) + name(m[1]) + (m[2] or "")


def parse_move(p, text):
    for m in legal(p):
        if uci(m) == text:
            return m
    raise ValueError(text)


def parse_position(tokens):
    i = 0
    if tokens[0] == "startpos":
        p = Pos()
        i = 1
    else:  # fen
        j = tokens.index("moves") if "moves" in tokens else len(tokens)
        p = Pos(" ".join(tokens[1:j]))
        i = j
    if i < len(tokens) and tokens[i] == "moves":
        for mv in tokens[i + 1:]:
            p = make(p, parse_move(p, mv))
    return p


def illegal_move(p):
    """A move text that is syntactically fine but illegal here."""
    legal_set = {uci(m) for m in legal(p)}
    for s in range(64):
        if own(p.b[s], p.white):
            for t in range(64):
                txt = name(s) + name(t)
                if s != t and txt not in legal_set and not own(p.b[t], p.white):
                    return txt
    return "a1a1"


def run(mode="random", after=0, engine_name=None):
    out = sys.stdout
    rng = random.Random(12345)
    pos = Pos()
    moves_made = 0
    new_game = False

    def send(line):
        out.write(line + "\n")
        out.flush()

    while True:
        line = sys.stdin.readline()
        if not line:
            return
        tokens = line.split()
        if not tokens:
            continue
        cmd = tokens[0]
        if cmd == "uci":
            send(f"id name {engine_name or 'Fake-' + mode}")
            send("id author tests")
            send("option name Hash type spin default 16 min 1 max 1024")
            send("uciok")
        elif cmd == "isready":
            if mode == "stall" and moves_made >= after:
                while True:  # hang: never answer (nor read stdin) again
                    time.sleep(3600)
            if mode == "slowready" and new_game:
                time.sleep(after / 10.0)
            new_game = False
            send("readyok")
        elif cmd == "ucinewgame":
            moves_made = 0  # faults are counted per game
            new_game = True
        elif cmd == "position":
            pos = parse_position(tokens[1:])
        elif cmd == "go":
            faulty = mode not in ("random", "slowready") and moves_made >= after
            if faulty and mode == "exit":
                sys.exit(3)
            if faulty and mode == "nogo":
                # keep answering isready, ignore go and stop
                while True:
                    l2 = sys.stdin.readline()
                    if not l2:
                        return
                    if l2.strip() == "isready":
                        send("readyok")
            if mode == "flag" and moves_made == after:  # overrun once, then play on
                key = "wtime" if pos.white else "btime"
                ms = 1000
                if key in tokens:
                    ms = int(tokens[tokens.index(key) + 1])
                elif "movetime" in tokens:
                    ms = int(tokens[tokens.index("movetime") + 1])
                time.sleep(ms / 1000.0 + 0.3)
            moves = legal(pos)
            moves_made += 1
            if faulty and mode == "illegal":
                send(f"bestmove {illegal_move(pos)}")
            elif moves:
                send("info depth 1 score cp 0")
                send(f"bestmove {uci(rng.choice(moves))}")
            else:
                send("bestmove (none)")
        elif cmd == "quit":
            return


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "random"
    after = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    run(mode, after)


if __name__ == "__main__":
    main()
