"""A small plain-Python search that answers ``go`` while the compiled kernels are not ready yet.

On a machine where no compiled cache fits (an editable install, another Numba version, a slider
backend the install did not compile), the first start compiles the kernels for about 15 s. The
UCI loop answers ``isready`` at once all the same, and a ``go`` that arrives meanwhile waits for
the kernels as long as its time allows; when they are still not ready, this module picks the
move, and the engine says so in an ``info string`` (the move is far weaker than the real
search's). It uses python-chess's move generator: the engine's own is what is being compiled.

Technique: iterative-deepening alpha-beta (negamax) with a capture-only quiescence search,
material plus a centralisation bonus, MVV-LVA capture order (chessprogramming wiki: "Alpha-Beta",
"Quiescence Search", "MVV-LVA"); it stops at a deadline and plays the last finished depth's move.
"""
import time

import chess

#: material in centipawns (the classical 1/3/3/5/9 scale)
PIECE_CP = {chess.PAWN: 100, chess.KNIGHT: 320, chess.BISHOP: 330, chess.ROOK: 500,
            chess.QUEEN: 900, chess.KING: 0}
CENTRE_CP = 4            # per step closer to the centre, for knights, bishops and pawns
MATE_CP = 30000
MAX_DEPTH = 64
CHECK_EVERY = 256        # nodes between deadline checks


class _Timeout(Exception):
    pass


def _centrality(square):
    """0 (corner) .. 6 (centre): seven minus the Manhattan distance to the four centre
    squares."""
    f, r = chess.square_file(square), chess.square_rank(square)
    return 6 - (max(3 - f, f - 4) + max(3 - r, r - 4))


def evaluate(board):
    """Static evaluation (int, centipawns, side to move's view) of ``board``."""
    score = 0
    for square, piece in board.piece_map().items():
        cp = PIECE_CP[piece.piece_type]
        if piece.piece_type in (chess.PAWN, chess.KNIGHT, chess.BISHOP):
            cp += CENTRE_CP * _centrality(square)
        score += cp if piece.color == board.turn else -cp
    return score


def _mvv_lva(board, move):
    victim = board.piece_type_at(move.to_square) or chess.PAWN     # en passant: a pawn
    return 10 * PIECE_CP[victim] - PIECE_CP[board.piece_type_at(move.from_square)]


class _Search:
    def __init__(self, board, deadline):
        self.board, self.deadline, self.nodes = board, deadline, 0

    def _tick(self):
        self.nodes += 1
        if self.nodes % CHECK_EVERY == 0 and time.monotonic() >= self.deadline:
            raise _Timeout

    def quiescence(self, alpha, beta):
        self._tick()
        stand = evaluate(self.board)
        if stand >= beta:
            return stand
        alpha = max(alpha, stand)
        captures = sorted(self.board.generate_legal_captures(),
                          key=lambda m: -_mvv_lva(self.board, m))
        for move in captures:
            self.board.push(move)
            score = -self.quiescence(-beta, -alpha)
            self.board.pop()
            if score >= beta:
                return score
            alpha = max(alpha, score)
        return alpha

    def negamax(self, depth, alpha, beta, ply):
        self._tick()
        if self.board.is_checkmate():
            return -MATE_CP + ply
        if ply and (self.board.is_stalemate() or self.board.is_insufficient_material()
                    or self.board.is_repetition(2) or self.board.halfmove_clock >= 100):
            return 0
        if depth <= 0:
            return self.quiescence(alpha, beta)
        best = -MATE_CP
        for move in self.ordered(None):
            self.board.push(move)
            score = -self.negamax(depth - 1, -beta, -alpha, ply + 1)
            self.board.pop()
            if score > best:
                best = score
            alpha = max(alpha, score)
            if alpha >= beta:
                break
        return best

    def ordered(self, first):
        moves = list(self.board.legal_moves)
        moves.sort(key=lambda m: (m != first, -(_mvv_lva(self.board, m)
                                                if self.board.is_capture(m) else -10 ** 6)))
        return moves


def quick_move(board, seconds):
    """Search ``board`` (a ``chess.Board``, not changed) for about ``seconds`` (float, at least
    the first depth is finished); returns ``(move, depth, score_cp)``: the best move of the
    deepest finished iteration (``chess.Move``), that depth (plies) and its score (centipawns,
    side to move's view). Raises ValueError if the side to move has no legal move."""
    moves = list(board.legal_moves)
    if not moves:
        raise ValueError("no legal move")
    deadline = time.monotonic() + max(0.0, seconds)
    search = _Search(board.copy(stack=True), deadline)
    best, best_depth, best_score = moves[0], 0, 0
    for depth in range(1, MAX_DEPTH + 1):
        search.deadline = float("inf") if depth == 1 else deadline   # always finish depth 1
        try:
            alpha, iteration_best = -MATE_CP - 1, None
            for move in search.ordered(best):
                search.board.push(move)
                score = -search.negamax(depth - 1, -MATE_CP - 1, -alpha, 1)
                search.board.pop()
                if score > alpha:
                    alpha, iteration_best = score, move
        except _Timeout:
            break
        best, best_depth, best_score = iteration_best, depth, alpha
        if abs(alpha) >= MATE_CP - MAX_DEPTH or time.monotonic() >= deadline:
            break
    return best, best_depth, best_score
