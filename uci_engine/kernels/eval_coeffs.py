"""Linear form of the evaluation: the weight vector layout and a compiled coefficient extractor.

Every number :mod:`uci_engine.kernels.evaluate` adds up lives in the generated module
:mod:`uci_engine.kernels.eval_weights`; flattened in the order of :data:`WEIGHT_SPEC` they form the
weight vector ``w`` (int64[N_WEIGHTS], centipawns). :func:`eval_coeffs` gives, for one position,
the sparse white-view coefficient vector ``c`` (integer counts, white minus black) with

    mg = sum(c[i] * w[i] for middlegame weights i),  eg = the same over endgame weights,
    evaluate(st, ply) == taper(mg, eg, phase, stm)    (exactly, integer arithmetic)

where ``taper`` is evaluate.py's floor taper ``(mg * phase + eg * (24 - phase)) // 24`` after
negating both for black to move. This is the linearisation Texel's tuning method needs
(chessprogramming wiki "Texel's Tuning Method"); see scripts/tune_eval.py.

Which terms are linear, and how:

* material, piece-square tables, mobility, pawn structure (doubled/isolated by file, passed by
  relative rank), pawn shield, bishop pair, rook open/semi-open file, tempo: linear as written
  (each weight is multiplied by a count of pieces/pawns/squares);
* mobility: a table by piece type and safe-square count whose entries are the weights (a linear
  reformulation of the former ``weight * (count - base)``);
* king danger: ``(table[units] * scale[attackers]) >> 7`` is not linear in its two tables, so the
  weights are the entries of the product table ``KING_DANGER_MG[attackers][units]`` indexed
  directly (a linear reformulation: the coefficient is a one-hot +-1 per side). The attack units
  per attacker type (``KS_UNIT`` in evaluate.py) and the game-phase weights are structural and
  stay fixed (they choose an index, they are not multiplied).

Nothing is a surrogate: the identity above is exact for every legal position.
"""
import numpy as np

#: Phase of a weight: middlegame (enters ``mg``) or endgame (enters ``eg``).
MG, EG = 0, 1

#: (name in eval_weights, shape, phase) in vector order. Shapes: MATERIAL by piece type
#: P N B R Q K; PST by piece type and wiki square index (a8 = 0 .. h1 = 63, white's view);
#: MOBILITY by piece type N B R Q and safe-square count 0..28; DOUBLED/ISOLATED by file a..h;
#: PASSED by relative rank 0..7; KING_DANGER by attacking-piece count 0..7 (7 = 7 or more)
#: and attack units 0..63 (63 = 63 or more).
WEIGHT_SPEC = (
    ("MATERIAL_MG", (6,), MG), ("MATERIAL_EG", (6,), EG),
    ("PST_MG", (6, 64), MG), ("PST_EG", (6, 64), EG),
    ("MOBILITY_MG", (4, 29), MG), ("MOBILITY_EG", (4, 29), EG),
    ("DOUBLED_MG", (8,), MG), ("DOUBLED_EG", (8,), EG),
    ("ISOLATED_MG", (8,), MG), ("ISOLATED_EG", (8,), EG),
    ("PASSED_MG", (8,), MG), ("PASSED_EG", (8,), EG),
    ("KING_DANGER_MG", (8, 64), MG),
    ("SHIELD1_MG", (), MG), ("SHIELD2_MG", (), MG),
    ("BISHOP_PAIR_MG", (), MG), ("BISHOP_PAIR_EG", (), EG),
    ("ROOK_OPEN_MG", (), MG), ("ROOK_OPEN_EG", (), EG),
    ("ROOK_SEMIOPEN_MG", (), MG), ("ROOK_SEMIOPEN_EG", (), EG),
    ("TEMPO_MG", (), MG),
)


def _layout():
    offsets = {}
    n = 0
    for name, shape, _ in WEIGHT_SPEC:
        offsets[name] = n
        n += int(np.prod(shape, dtype=np.int64))
    return offsets, n


#: dict name -> first index in the weight vector; total length.
OFFSETS, N_WEIGHTS = _layout()
#: bool[N_WEIGHTS]: True for endgame weights, False for middlegame ones.
IS_EG = np.zeros(N_WEIGHTS, dtype=np.bool_)
for _name, _shape, _phase in WEIGHT_SPEC:
    IS_EG[OFFSETS[_name]:OFFSETS[_name] + int(np.prod(_shape, dtype=np.int64))] = _phase == EG
