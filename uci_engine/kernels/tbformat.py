"""Syzygy WDL and DTZ format constants shared by the loader (:mod:`uci_engine.tbfiles`, plain
Python) and the probers (:mod:`.tbprobe`, :mod:`.tbdtz`, compiled): the layout of the packed
int64 array ``tb`` that describes the loaded tables (one array for the ``.rtbw`` files, one of
the same layout for the ``.rtbz`` files), and the format's index tables.

No Numba here: the loader imports this module before the kernels' backend is selected.
Sources: python-chess ``chess/syzygy.py`` (the tables TRIANGLE ... KK_IDX, PAWNIDX, PFACTOR,
PIVFAC) and Stockfish ``src/syzygy/tbprobe.cpp`` (``init``, the same tables).
"""
import numpy as np

#: a probe that found no answer (missing table, read out of bounds, corrupt data)
TB_FAIL = np.int64(-100)
#: a DTZ probe that found no answer; TB_FAIL (-100) is itself a DTZ (a loss in 100 plies), so
#: the DTZ prober fails with a value far outside every DTZ (|DTZ| < 2 * 65535 + 200)
DTZ_FAIL = np.int64(-(1 << 30))

# --- layout of the packed array ``tb`` (int64; built by uci_engine/tbfiles.py) ----------------
# header
H_CARD = 0          # probe positions with at most this many pieces (0: no probing)
H_DEPTH = 1         # SyzygyProbeDepth (plies)
H_RULE50 = 2        # Syzygy50MoveRule (0/1)
H_NTABLES = 3       # tables
H_LARGEST = 4       # pieces of the largest table
H_NKEYS = 5         # material keys in the lookup list
H_KEYS = 6          # offset of the sorted keys (H_NKEYS), followed by their table numbers
H_ERRORS = 7        # probes that failed on a corrupt table (the kernels count them)
H_TABLES = 8        # offset of the first table record
HEADER_LEN = 16
# table record (TREC_LEN int64 each)
T_ADDR = 0          # address of the mapped file
T_SIZE = 1          # file size (bytes)
T_NUM = 2           # pieces
T_HAS_PAWNS = 3
T_PAWNS0 = 4        # pawns of the leading colour
T_PAWNS1 = 5        # pawns of the other colour
T_ENC = 6           # piece encoding: 0 (three unique pieces) or 2 (the two kings first)
T_SYMMETRIC = 7     # both sides have the same material
T_KEY = 8           # material key of the table's first side as white
T_MKEY = 9          # ... as black
T_ENTRY = 10        # offset of the first entry record: entries (file f, side s) at f * 2 + s
                    # (a DTZ file stores one side: its entries are s = 0)
T_FILES = 11        # 1, or 4 for pawn tables (files a..d of the leading pawn)
T_ENABLED = 12      # 0 once a probe found the file corrupt
T_LEAD = 13         # piece code of the leading piece (pawn tables)
TREC_LEN = 16
# entry record (one per pawn file and side to move)
E_PIECES = 0        # int[7] piece codes in index order (python-chess codes: type 1..6 | 8 black)
E_NORM = 7          # int[7] group sizes
E_FACTOR = 14       # int[7] index factors
E_TBSIZE = 21       # positions indexed
E_CONST = 22        # 1: every position has the value E_MINLEN (no compressed data)
E_IDXBITS = 23
E_BLOCKSIZE = 24    # log2 of the block size (bytes)
E_MINLEN = 25       # shortest code length (or the constant value)
E_MAXLEN = 26
E_INDEX = 27        # file offset of the index table (6 bytes per entry)
E_NINDEX = 28
E_SIZES = 29        # file offset of the block size table (uint16 per block)
E_NBLOCKS = 30      # blocks in the size table
E_REALBLOCKS = 31   # blocks in the data
E_DATA = 32         # file offset of the first block
E_OFFSET = 33       # file offset of the uint16 first symbol per code length
E_SYMPAT = 34       # file offset of the symbol pairs (3 bytes per symbol)
E_NSYMS = 35
E_BASE = 36         # offset in ``tb`` of the uint64 code bases per length (bit patterns)
E_SYMLEN = 37       # offset in ``tb`` of the run length - 1 per symbol
E_FLAGS = 38        # the pairs header's flags byte (DTZ: the DTZ_* bits below)
E_MAP = 39          # DTZ: int[4] file offsets of the four value maps (0: not mapped)
E_MAPLEN = 43       # DTZ: int[4] values in each map
EREC_LEN = 48

# --- DTZ tables (python-chess DtzTable; tbprobe.cpp TBFlag, WDLMap, map_score) ----------------
# flag bits of a DTZ entry (the first byte of its pairs header)
DTZ_STM = 1         # the side to move the file stores: 0 its first side, 1 its second
DTZ_MAPPED = 2      # stored values index the value map of the position's WDL
DTZ_WIN_PLIES = 4   # wins stored in plies (else in moves: doubled when read)
DTZ_LOSS_PLIES = 8  # losses stored in plies
DTZ_WIDE = 16       # the value maps hold uint16 (else uint8)
#: value map used for each WDL + 2 (loss, blessed loss, draw, cursed win, win): python-chess
#: WDL_TO_MAP, tbprobe.cpp WDLMap
WDL_TO_MAP = np.array([1, 3, 0, 2, 0], dtype=np.int64)
#: flag that marks the values of WDL + 2 as plies: python-chess PA_FLAGS
PA_FLAGS = np.array([DTZ_LOSS_PLIES, 0, 0, 0, DTZ_WIN_PLIES], dtype=np.int64)
#: DTZ of a position whose best zeroing move is an en-passant capture of WDL + 2:
#: python-chess WDL_TO_DTZ
WDL_TO_DTZ = np.array([-1, -101, 0, 101, 1], dtype=np.int64)

# --- the format's constant tables (python-chess chess/syzygy.py; tbprobe.cpp "init") ---------
# pawnless index of the first piece's square within the a1-d1-d4 triangle
TRIANGLE = np.array([
    6, 0, 1, 2, 2, 1, 0, 6, 0, 7, 3, 4, 4, 3, 7, 0, 1, 3, 8, 5, 5, 8, 3, 1, 2, 4, 5, 9, 9, 5, 4, 2,
    2, 4, 5, 9, 9, 5, 4, 2, 1, 3, 8, 5, 5, 8, 3, 1, 0, 7, 3, 4, 4, 3, 7, 0, 6, 0, 1, 2, 2, 1, 0, 6,
], dtype=np.int64)
# squares below the a1-h8 diagonal, numbered (diagonal squares 28..35)
LOWER = np.array([
    28, 0, 1, 2, 3, 4, 5, 6, 0, 29, 7, 8, 9, 10, 11, 12, 1, 7, 30, 13, 14, 15, 16, 17,
    2, 8, 13, 31, 18, 19, 20, 21, 3, 9, 14, 18, 32, 22, 23, 24, 4, 10, 15, 19, 22, 33, 25, 26,
    5, 11, 16, 20, 23, 25, 34, 27, 6, 12, 17, 21, 24, 26, 27, 35,
], dtype=np.int64)
# squares of the two long diagonals, numbered
DIAG = np.array([
    0, 0, 0, 0, 0, 0, 0, 8, 0, 1, 0, 0, 0, 0, 9, 0, 0, 0, 2, 0, 0, 10, 0, 0, 0, 0, 0, 3, 11, 0, 0, 0,
    0, 0, 0, 12, 4, 0, 0, 0, 0, 0, 13, 0, 0, 5, 0, 0, 0, 14, 0, 0, 0, 0, 6, 0, 15, 0, 0, 0, 0, 0, 0, 7,
], dtype=np.int64)
# leading pawn: index of its square within its file group (files a-d, ranks 2-7)
FLAP = np.array([
    0, 0, 0, 0, 0, 0, 0, 0, 0, 6, 12, 18, 18, 12, 6, 0, 1, 7, 13, 19, 19, 13, 7, 1,
    2, 8, 14, 20, 20, 14, 8, 2, 3, 9, 15, 21, 21, 15, 9, 3, 4, 10, 16, 22, 22, 16, 10, 4,
    5, 11, 17, 23, 23, 17, 11, 5, 0, 0, 0, 0, 0, 0, 0, 0,
], dtype=np.int64)
# other pawns of the leading colour: square order
PTWIST = np.array([
    0, 0, 0, 0, 0, 0, 0, 0, 47, 35, 23, 11, 10, 22, 34, 46, 45, 33, 21, 9, 8, 20, 32, 44,
    43, 31, 19, 7, 6, 18, 30, 42, 41, 29, 17, 5, 4, 16, 28, 40, 39, 27, 15, 3, 2, 14, 26, 38,
    37, 25, 13, 1, 0, 12, 24, 36, 0, 0, 0, 0, 0, 0, 0, 0,
], dtype=np.int64)
INVFLAP = np.array([8, 16, 24, 32, 40, 48, 9, 17, 25, 33, 41, 49,
                    10, 18, 26, 34, 42, 50, 11, 19, 27, 35, 43, 51], dtype=np.int64)
FILE_TO_FILE = np.array([0, 1, 2, 3, 3, 2, 1, 0], dtype=np.int64)
# the 462 placements of two kings (first king in the triangle, not adjacent), -1 illegal
KK_IDX = np.array([
    [-1, -1, -1, 0, 1, 2, 3, 4, -1, -1, -1, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17,
     18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41,
     42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57],
    [58, -1, -1, -1, 59, 60, 61, 62, 63, -1, -1, -1, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75,
     76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99,
     100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115],
    [116, 117, -1, -1, -1, 118, 119, 120, 121, 122, -1, -1, -1, 123, 124, 125,
     126, 127, 128, 129, 130, 131, 132, 133, 134, 135, 136, 137, 138, 139, 140, 141,
     142, 143, 144, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154, 155, 156, 157,
     158, 159, 160, 161, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171, 172, 173],
    [174, -1, -1, -1, 175, 176, 177, 178, 179, -1, -1, -1, 180, 181, 182, 183,
     184, -1, -1, -1, 185, 186, 187, 188, 189, 190, 191, 192, 193, 194, 195, 196,
     197, 198, 199, 200, 201, 202, 203, 204, 205, 206, 207, 208, 209, 210, 211, 212,
     213, 214, 215, 216, 217, 218, 219, 220, 221, 222, 223, 224, 225, 226, 227, 228],
    [229, 230, -1, -1, -1, 231, 232, 233, 234, 235, -1, -1, -1, 236, 237, 238,
     239, 240, -1, -1, -1, 241, 242, 243, 244, 245, 246, 247, 248, 249, 250, 251,
     252, 253, 254, 255, 256, 257, 258, 259, 260, 261, 262, 263, 264, 265, 266, 267,
     268, 269, 270, 271, 272, 273, 274, 275, 276, 277, 278, 279, 280, 281, 282, 283],
    [284, 285, 286, 287, 288, 289, 290, 291, 292, 293, -1, -1, -1, 294, 295, 296,
     297, 298, -1, -1, -1, 299, 300, 301, 302, 303, -1, -1, -1, 304, 305, 306,
     307, 308, 309, 310, 311, 312, 313, 314, 315, 316, 317, 318, 319, 320, 321, 322,
     323, 324, 325, 326, 327, 328, 329, 330, 331, 332, 333, 334, 335, 336, 337, 338],
    [-1, -1, 339, 340, 341, 342, 343, 344, -1, -1, 345, 346, 347, 348, 349, 350,
     -1, -1, 441, 351, 352, 353, 354, 355, -1, -1, -1, 442, 356, 357, 358, 359,
     -1, -1, -1, -1, 443, 360, 361, 362, -1, -1, -1, -1, -1, 444, 363, 364,
     -1, -1, -1, -1, -1, -1, 445, 365, -1, -1, -1, -1, -1, -1, -1, 446],
    [-1, -1, -1, 366, 367, 368, 369, 370, -1, -1, -1, 371, 372, 373, 374, 375,
     -1, -1, -1, 376, 377, 378, 379, 380, -1, -1, -1, 447, 381, 382, 383, 384,
     -1, -1, -1, -1, 448, 385, 386, 387, -1, -1, -1, -1, -1, 449, 388, 389,
     -1, -1, -1, -1, -1, -1, 450, 390, -1, -1, -1, -1, -1, -1, -1, 451],
    [452, 391, 392, 393, 394, 395, 396, 397, -1, -1, -1, -1, 398, 399, 400, 401,
     -1, -1, -1, -1, 402, 403, 404, 405, -1, -1, -1, -1, 406, 407, 408, 409,
     -1, -1, -1, -1, 453, 410, 411, 412, -1, -1, -1, -1, -1, 454, 413, 414,
     -1, -1, -1, -1, -1, -1, 455, 415, -1, -1, -1, -1, -1, -1, -1, 456],
    [457, 416, 417, 418, 419, 420, 421, 422, -1, 458, 423, 424, 425, 426, 427, 428,
     -1, -1, -1, -1, -1, 429, 430, 431, -1, -1, -1, -1, -1, 432, 433, 434,
     -1, -1, -1, -1, -1, 435, 436, 437, -1, -1, -1, -1, -1, 459, 438, 439,
     -1, -1, -1, -1, -1, -1, 460, 440, -1, -1, -1, -1, -1, -1, -1, 461],
], dtype=np.int64)


def _binomials():
    """BINOM[n, k] = n choose k (int64[64, 8]; 0 where k > n)."""
    b = np.zeros((64, 8), dtype=np.int64)
    for n in range(64):
        b[n, 0] = 1
        for k in range(1, 8):
            b[n, k] = 0 if n == 0 else b[n - 1, k - 1] + b[n - 1, k]
    return b


BINOM = _binomials()


def _pawn_tables():
    """PAWNIDX[t][flap] and PFACTOR[t][file] (t = leading pawns - 1): the index of the leading
    pawns' placements by the first pawn's FLAP square, and their count per file (python-chess
    PAWNIDX/PFACTOR, tbprobe.cpp init)."""
    idx = np.zeros((5, 24), dtype=np.int64)
    fac = np.zeros((5, 4), dtype=np.int64)
    for t in range(5):
        for f in range(4):
            s = 0
            for j in range(6 * f, 6 * f + 6):
                idx[t, j] = s
                s += 1 if t == 0 else int(BINOM[PTWIST[INVFLAP[j]], t])
            fac[t, f] = s
    return idx, fac


PAWNIDX, PFACTOR = _pawn_tables()
#: the pawnless encodings' placements of their first group (enc 0: three unique pieces;
#: enc 1: unused in chess; enc 2: the two kings), python-chess calc_factors_piece
PIVFAC = (31332, 28056, 462)


