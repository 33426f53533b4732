"""NNUE constants shared by the kernels (:mod:`.nnue`) and the net-file code
(:mod:`uci_engine.nnue_file`). Plain Python, no numba import: the file loader can use them
before a slider backend is selected. Sources: bullet (github.com/jw1912/bullet,
examples/simple.rs) for QA, QB and the output scale; chessprogramming wiki "NNUE".
"""
N_FEATURES = 768                # 2 colours x 6 piece types x 64 squares
COLOUR_STRIDE = 384             # 6 * 64: offset of the "their pieces" half
SQ_FLIP = 56                    # sq ^ 56 mirrors a square vertically (a1 <-> a8)
MAX_ACTIVE = 32                 # at most 32 pieces on a legal board: active features per side

ACT_CRELU = 0                   # activation codes (the net file's header field)
ACT_SCRELU = 1

QA = 255                        # bullet's default quantisation of the first layer
QB = 64                         # ... of the output layer
OUTPUT_SCALE = 400              # net output units -> centipawns (bullet's SCALE)

# params (int64[PARAMS_LEN]) fields
P_BIAS, P_ACT, P_QA, P_QB, P_SCALE = range(5)
PARAMS_LEN = 5


# packed weights (Net.packed()): int16[PACKED_ROWS, H], rows 0..767 = w_ft, then b_ft, then the
# two w_out rows; one array argument instead of three for the search (call overhead)
ROW_B_FT = N_FEATURES
ROW_W_OUT = N_FEATURES + 1
PACKED_ROWS = N_FEATURES + 3
