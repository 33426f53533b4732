"""NNUE constants shared by the kernels (:mod:`.nnue`) and the net-file code
(:mod:`uci_engine.nnue_file`). Plain Python, no numba import: the file loader can use them
before a slider backend is selected. Sources: bullet (github.com/jw1912/bullet,
examples/simple.rs) for QA, QB and the output scale; chessprogramming wiki "NNUE".
"""
N_FEATURES = 768                # 2 colours x 6 piece types x 64 squares (one king bucket)
COLOUR_STRIDE = 384             # 6 * 64: offset of the "their pieces" half
SQ_FLIP = 56                    # sq ^ 56 mirrors a square vertically (a1 <-> a8)
FILE_FLIP = 7                   # sq ^ 7 mirrors a square horizontally (a1 <-> h1)
MAX_ACTIVE = 32                 # at most 32 pieces on a legal board: active features per side

ACT_CRELU = 0                   # activation codes (the net file's header field)
ACT_SCRELU = 1

QA = 255                        # bullet's default quantisation of the first layer
QB = 64                         # ... of the output layer
OUTPUT_SCALE = 400              # net output units -> centipawns (bullet's SCALE)

# Input layouts (the net file's header field). LAYOUT_PLAIN: 768 inputs. LAYOUT_KING_MIRRORED:
# 768 inputs per bucket of the perspective's own king square, the board mirrored a<->h while
# that king stands on files e-h (bullet's ChessBucketsMirrored, Stockfish's HalfKA mirroring);
# the bucket of each square is the net's 64-entry king map.
LAYOUT_PLAIN = 0
LAYOUT_KING_MIRRORED = 1
LAYOUTS = {LAYOUT_PLAIN: "768 inputs", LAYOUT_KING_MIRRORED: "768 inputs per king bucket, mirrored"}
MAX_KING_BUCKETS = 32           # at most one per square of a half board
MAX_OUTPUT_BUCKETS = 8          # output buckets by piece count (bullet's MaterialCount<8>)
ALL_PIECES = 32                 # pieces at the start: output bucket = (pieces - 2) // ceil(32 / B)

#: named king-bucket maps (the 32 squares of files a-d, a1 b1 c1 d1 a2 ... d8, from the
#: perspective's own side); :func:`uci_engine.nnue_file.full_king_map` mirrors them to 64
KING_MAPS = {
    # 4 buckets by rank: the back rank, the second, the third and fourth, the rest
    "ranks4": (0, 0, 0, 0,  1, 1, 1, 1,  2, 2, 2, 2,  2, 2, 2, 2,
               3, 3, 3, 3,  3, 3, 3, 3,  3, 3, 3, 3,  3, 3, 3, 3),
    # 8 buckets: back rank split into the wing (a, b: castled) and centre files (c, d), the
    # second rank likewise, ranks 3 and 4, then the rest by the two halves of the files
    "wing8": (0, 0, 1, 1,  2, 2, 3, 3,  4, 4, 4, 4,  5, 5, 5, 5,
              6, 6, 6, 6,  6, 6, 6, 6,  7, 7, 7, 7,  7, 7, 7, 7),
}

# params (int64[PARAMS_LEN]) fields: the loaded net's run-time scalars
P_ACT, P_QA, P_QB, P_SCALE, P_OUT_BUCKETS, P_LAYOUT = range(6)
P_BIASES = 6                                  # output bias of bucket b: params[P_BIASES + b]
P_KING_MAP = P_BIASES + MAX_OUTPUT_BUCKETS    # 64 entries: king bucket of each square
PARAMS_LEN = P_KING_MAP + 64

# packed weights (Net.packed()): int16[F + 1 + 2 * B, H], rows 0..F-1 = w_ft (F = 768 x king
# buckets), then b_ft, then the 2 * B rows of w_out (bucket b: rows 2b, 2b + 1); one array
# argument instead of three for the search (call overhead). Without buckets: 771 rows.
PACKED_ROWS = N_FEATURES + 3
