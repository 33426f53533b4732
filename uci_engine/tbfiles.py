"""Syzygy WDL and DTZ files for the compiled probers (plain Python): memory-map every ``.rtbw``
(:class:`WdlTables`) or ``.rtbz`` file (:class:`DtzTables`) of a ``SyzygyPath``, read its header
and pack it into the int64 array the kernels of :mod:`uci_engine.kernels.tbprobe` and
:mod:`uci_engine.kernels.tbdtz` take (layout in :mod:`uci_engine.kernels.tbformat`).

Each file is mapped with ``numpy.memmap`` (read-only); only the header, the piece and order
bytes, the code-length table and the symbol pairs are read here (a few KiB per table). The
index, size and data regions are read by the kernels, a block at a time, when a position is
probed. The header layout is the Syzygy format as python-chess's ``chess/syzygy.py`` reads it
(``WdlTable.init_table_wdl``, ``setup_pairs``, ``setup_pieces_piece`` / ``_pawn``,
``set_norm_*``, ``calc_factors_*``, ``calc_symlen``) and Stockfish's tbprobe.cpp (``set``,
``set_sizes``, ``set_groups``).

A DTZ file has the same layout with three differences (python-chess ``DtzTable.init_table_dtz``,
tbprobe.cpp ``set_dtz_map``): it stores one side to move per pawn file, named by the DTZ flags
in the first byte of each pairs header (``E_FLAGS``); a table of one value stores 0 there;
and after the pairs headers come the value maps (four per mapped file, one per WDL class,
uint8 or, with ``DTZ_WIDE``, word-aligned uint16), which the packed entry locates with
``E_MAP`` / ``E_MAPLEN``.

A file that cannot be used (missing magic, a size that is not 64 k + 16 bytes, offsets or
counts that do not fit the file, piece codes that do not match its name) is left out with a
message in ``errors``; the other files load. Errors found later, while probing,
switch a table off in the packed array (``T_ENABLED``) and are reported by
:meth:`WdlTables.new_errors`.
"""
import os
import re

import numpy as np

from .kernels import tbformat as K

#: first four bytes of a WDL file (tbprobe.cpp: TBTable<WDL>::Magic; python-chess tbw_magic)
WDL_MAGIC = bytes([0x71, 0xE8, 0x23, 0x5D])
#: ... of a DTZ file (TBTable<DTZ>::Magic; python-chess tbz_magic)
DTZ_MAGIC = bytes([0xD7, 0x66, 0x0C, 0xA5])
#: a Syzygy file is 64 k + 16 bytes long (python-chess init_mmap)
FILE_ALIGN, FILE_TAIL = 64, 16
#: python-chess's piece letters, index = piece code & 7 - 1 ... in its order K Q R B N P
PCHR = "KQRBNP"
#: python-chess piece codes (type 1..6 = P N B R Q K; +8 black) of the letters
CODE = {"P": 1, "N": 2, "B": 3, "R": 4, "Q": 5, "K": 6}
TABLE_NAME = re.compile(r"^K[QRBNP]*vK[QRBNP]*$")
MAX_TB_PIECES = 7


class TableError(ValueError):
    """A file that is not a usable Syzygy WDL or DTZ table (message names the file)."""


def _normalize(name, mirror=False):
    """python-chess normalize_tablename: the stronger side first (pieces K Q R B N P)."""
    w, b = name.split("v")
    w = "".join(sorted(w, key=PCHR.index))
    b = "".join(sorted(b, key=PCHR.index))
    if mirror ^ ((len(w), [PCHR.index(c) for c in b]) < (len(b), [PCHR.index(c) for c in w])):
        return b + "v" + w
    return w + "v" + b


def _side_key(letters):
    """Octal counts of Q R B N P (the kernels' material_key digits for one colour)."""
    m = 0
    for c in "QRBNP":
        m = m * 8 + letters.count(c)
    return m


def key_of(white, black):
    """Material key (int) of the white letters ``white`` and black ``black`` (``"KQ"``)."""
    return _side_key(white) * 32768 + _side_key(black)


def _key_of_codes(codes, mirror=False):
    """Material key of a list of piece codes (colour bit 8 = black; python-chess recalc_key)."""
    letters = ["", ""]
    for c in codes:
        letters[((c >> 3) & 1) ^ mirror] += "PNBRQK"[(c & 7) - 1]
    return key_of(letters[0], letters[1])


class _Reader:
    """Bounds-checked little-endian reads of a mapped file."""

    def __init__(self, mm, name):
        self.mm = mm
        self.name = name

    def need(self, off, n):
        if off < 0 or off + n > len(self.mm):
            raise TableError(f"{self.name}: header points outside the file ({off} + {n} > "
                             f"{len(self.mm)} bytes)")

    def u8(self, off):
        self.need(off, 1)
        return int(self.mm[off])

    def u16(self, off):
        self.need(off, 2)
        return int(self.mm[off]) | int(self.mm[off + 1]) << 8

    def u32(self, off):
        self.need(off, 4)
        return int.from_bytes(bytes(self.mm[off:off + 4]), "little")


def _count_groups(pieces, norm, start):
    """Set ``norm[i]`` to the length of each run of equal piece codes in ``pieces`` from
    ``start`` on, at the run's first index (python-chess ``set_norm_piece`` / ``set_norm_pawn``
    after their leading group); ``norm`` is a list of ints, changed in place."""
    i = start
    while i < len(pieces):
        j = i
        while j < len(pieces) and pieces[j] == pieces[i]:
            norm[i] += 1
            j += 1
        i += norm[i]


class _Table:
    """One parsed WDL file (``dtz`` False) or DTZ file (``dtz`` True): header fields, entries
    (one per pawn file and side; a DTZ file has side 0 only) and the decoding pools (code
    bases, symbol run lengths)."""

    def __init__(self, path, dtz=False):
        self.path = path
        self.dtz = dtz
        self.name = os.path.splitext(os.path.basename(path))[0]
        self.file = os.path.basename(path)
        if not TABLE_NAME.match(self.name) or len(self.name) - 1 > MAX_TB_PIECES:
            raise TableError(f"{self.file}: not a Syzygy table name")
        size = os.path.getsize(path)
        if size < FILE_ALIGN + FILE_TAIL or size % FILE_ALIGN != FILE_TAIL:
            raise TableError(f"{self.file}: truncated or not a Syzygy file "
                             f"({size} bytes, not 64 k + 16)")
        self.mm = np.memmap(path, dtype=np.uint8, mode="r")
        self.size = size
        rd = _Reader(self.mm, self.file)
        if bytes(self.mm[:4]) != (DTZ_MAGIC if dtz else WDL_MAGIC):
            raise TableError(f"{self.file}: not a Syzygy {'DTZ' if dtz else 'WDL'} file "
                             f"(bad magic)")
        self.num = len(self.name) - 1
        self.has_pawns = "P" in self.name
        # python-chess Table.__init__ (its names "black_part, white_part" are the two halves)
        first, second = self.name.split("v")
        self.symmetric = _normalize(self.name) == _normalize(self.name, mirror=True)
        pawns = [second.count("P"), first.count("P")]
        if pawns[1] > 0 and (pawns[0] == 0 or pawns[1] < pawns[0]):
            pawns = [pawns[1], pawns[0]]
        self.pawns = pawns
        if not self.has_pawns:
            uniq = sum((first.count(p) == 1) + (second.count(p) == 1) for p in PCHR)
            self.enc = 0 if uniq >= 3 else 2
            if uniq < 2:
                raise TableError(f"{self.file}: unsupported piece encoding")
        else:
            self.enc = 0
        self.entries = {}          # (file, side) -> dict of entry fields
        self.pool = []             # int64 values: bases then run lengths, entry offsets relative
        self._parse(rd)

    # --- header ------------------------------------------------------------------------------
    def _parse(self, rd):
        flags = rd.u8(4)
        files = 4 if flags & 2 else 1
        # sides with piece orders (a DTZ file: one, in the low nibbles) and with data
        orders = 1 if self.dtz else 2
        sides = 1 if self.dtz or not flags & 1 else 2
        if self.has_pawns != (files == 4):
            raise TableError(f"{self.file}: header does not match the table name")
        self.files = files
        ptr = 5
        setups = {}
        if not self.has_pawns:
            for s in range(orders):
                setups[(0, s)] = self._setup_pieces(rd, ptr, s)
            ptr += self.num + 1
        else:
            step = 1 + (self.pawns[1] > 0)
            for f in range(4):
                for s in range(orders):
                    setups[(f, s)] = self._setup_pawns(rd, ptr, s, f)
                ptr += self.num + step
        ptr += ptr & 1
        pairs = {}
        for f in range(files):
            for s in range(sides):
                pairs[(f, s)], ptr = self._setup_pairs(rd, ptr, setups[(f, s)]["tbsize"])
        if self.dtz:
            ptr = self._setup_maps(rd, ptr, pairs, files)
        for region in ("index", "sizes"):
            for f in range(files):
                for s in range(sides):
                    d = pairs[(f, s)]
                    d[region] = ptr
                    ptr += d[region + "_bytes"]
        for f in range(files):
            for s in range(sides):
                d = pairs[(f, s)]
                ptr = (ptr + 0x3F) & ~0x3F
                d["data"] = ptr
                ptr += d["data_bytes"]
        if ptr > self.size:
            raise TableError(f"{self.file}: truncated ({self.size} bytes, the header needs "
                             f"{ptr})")
        for f in range(files):
            for s in range(orders):
                e = dict(setups[(f, s)])
                e.update(pairs[(f, min(s, sides - 1))])
                self.entries[(f, s)] = e
        codes = self.entries[(0, 0)]["pieces"]
        want = sorted(CODE[c] for c in self.name.split("v")[0]) + \
            sorted(CODE[c] | 8 for c in self.name.split("v")[1])
        for f in range(files):
            for s in range(orders):
                got = self.entries[(f, s)]["pieces"]
                if sorted(got) != sorted(want) and sorted(c ^ 8 for c in got) != sorted(want):
                    raise TableError(f"{self.file}: piece codes do not match the table name")
        if self.has_pawns:
            self.key = key_of(*self.name.split("v"))
            self.mkey = key_of(*reversed(self.name.split("v")))
            self.lead = codes[0]
        else:
            # some endgames are stored under another key than their file name (python-chess
            # recalc_key, talkchess.com/forum/viewtopic.php?p=695509)
            self.key = _key_of_codes(codes)
            self.mkey = _key_of_codes(codes, mirror=True)
            self.lead = 0

    def _setup_pieces(self, rd, ptr, side):
        shift = 4 * side
        order = (rd.u8(ptr) >> shift) & 0x0F
        pieces = [(rd.u8(ptr + 1 + i) >> shift) & 0x0F for i in range(self.num)]
        self._check_codes(pieces)
        norm = [0] * self.num
        norm[0] = 3 if self.enc == 0 else 2
        _count_groups(pieces, norm, norm[0])
        factor = [0] * MAX_TB_PIECES
        n = 64 - norm[0]
        f, i, k = 1, norm[0], 0
        while i < self.num or k == order:
            if k == order:
                factor[0] = f
                f *= K.PIVFAC[self.enc]
            else:
                factor[i] = f
                f *= int(K.BINOM[n, norm[i]]) if norm[i] < 8 else 0
                n -= norm[i]
                i += norm[i]
            k += 1
            if k > MAX_TB_PIECES:
                raise TableError(f"{self.file}: bad piece order {order}")
        return {"pieces": pieces, "norm": norm, "factor": factor, "tbsize": f}

    def _setup_pawns(self, rd, ptr, side, fl):
        shift = 4 * side
        p0, p1 = self.pawns
        j = 1 + (p1 > 0)
        order = (rd.u8(ptr) >> shift) & 0x0F
        order2 = (rd.u8(ptr + 1) >> shift) & 0x0F if p1 else 0x0F
        pieces = [(rd.u8(ptr + i + j) >> shift) & 0x0F for i in range(self.num)]
        self._check_codes(pieces)
        norm = [0] * self.num
        norm[0] = p0
        if p1:
            norm[p0] = p1
        _count_groups(pieces, norm, p0 + p1)
        factor = [0] * MAX_TB_PIECES
        i = norm[0]
        if order2 < 0x0F:
            i += norm[i]
        n = 64 - i
        f, k = 1, 0
        while i < self.num or k in (order, order2):
            if k == order:
                factor[0] = f
                f *= int(K.PFACTOR[norm[0] - 1, fl])
            elif k == order2:
                factor[norm[0]] = f
                f *= int(K.BINOM[48 - norm[0], norm[norm[0]]])
            else:
                factor[i] = f
                f *= int(K.BINOM[n, norm[i]])
                n -= norm[i]
                i += norm[i]
            k += 1
            if k > MAX_TB_PIECES:
                raise TableError(f"{self.file}: bad piece order {order}")
        return {"pieces": pieces, "norm": norm, "factor": factor, "tbsize": f}

    def _check_codes(self, pieces):
        for c in pieces:
            if not 1 <= (c & 7) <= 6:
                raise TableError(f"{self.file}: bad piece code {c}")

    def _setup_pairs(self, rd, ptr, tbsize):
        """python-chess setup_pairs: returns (fields, pointer after the pairs header)."""
        flags = rd.u8(ptr)
        if flags & 0x80:
            # the one value: stored for WDL, 0 for DTZ (python-chess setup_pairs,
            # talkchess.com/forum/viewtopic.php?p=698093)
            return ({"const": 1, "min_len": 0 if self.dtz else rd.u8(ptr + 1), "flags": flags,
                     "tbsize": tbsize, "index_bytes": 0, "sizes_bytes": 0, "data_bytes": 0},
                    ptr + 2)
        blocksize = rd.u8(ptr + 1)
        idxbits = rd.u8(ptr + 2)
        real_blocks = rd.u32(ptr + 4)
        nblocks = real_blocks + rd.u8(ptr + 3)
        max_len = rd.u8(ptr + 8)
        min_len = rd.u8(ptr + 9)
        if not (1 <= idxbits <= 40 and blocksize <= 31 and 1 <= min_len <= max_len <= 63):
            raise TableError(f"{self.file}: bad pairs header")
        h = max_len - min_len + 1
        nsyms = rd.u16(ptr + 10 + 2 * h)
        offset = ptr + 10
        sympat = ptr + 12 + 2 * h
        rd.need(sympat, 3 * nsyms)
        nxt = sympat + 3 * nsyms + (nsyms & 1)
        pat = np.asarray(self.mm[sympat:sympat + 3 * nsyms], dtype=np.int64).reshape(nsyms, 3)
        s1 = ((pat[:, 1] & 0xF) << 8) | pat[:, 0]
        s2 = (pat[:, 2] << 4) | (pat[:, 1] >> 4)
        symlen = self._symlen(s1.tolist(), s2.tolist(), nsyms)
        base = [0] * h
        for i in range(h - 2, -1, -1):
            base[i] = (base[i + 1] + rd.u16(offset + 2 * i) - rd.u16(offset + 2 * i + 2)) // 2
        mask = (1 << 64) - 1
        base = [((b << (64 - (min_len + i))) & mask) for i, b in enumerate(base)]
        num_indices = (tbsize + (1 << idxbits) - 1) >> idxbits
        return ({"const": 0, "flags": flags, "min_len": min_len, "max_len": max_len,
                 "idxbits": idxbits,
                 "blocksize": blocksize, "tbsize": tbsize, "nindex": num_indices,
                 "nblocks": nblocks, "real_blocks": real_blocks, "offset": offset,
                 "sympat": sympat, "nsyms": nsyms, "base": base, "symlen": symlen,
                 "index_bytes": 6 * num_indices, "sizes_bytes": 2 * nblocks,
                 "data_bytes": (1 << blocksize) * real_blocks}, nxt)

    def _setup_maps(self, rd, ptr, pairs, files):
        """Locate the DTZ value maps that follow the pairs headers (python-chess
        init_table_dtz, tbprobe.cpp set_dtz_map): per mapped file four maps (WDL classes
        draw, loss, cursed win, blessed loss; tbformat.WDL_TO_MAP), each a count then that
        many uint8, or with DTZ_WIDE a word-aligned uint16 count and uint16 values. Sets
        ``map`` (file offsets of the values) and ``maplen`` in each file's pairs fields;
        returns the word-aligned pointer after the maps."""
        for f in range(files):
            d = pairs[(f, 0)]
            d["map"], d["maplen"] = [0] * 4, [0] * 4
            if not d["flags"] & K.DTZ_MAPPED:
                continue
            width = 2 if d["flags"] & K.DTZ_WIDE else 1
            if width == 2:
                ptr += ptr & 1
            for i in range(4):
                n = rd.u16(ptr) if width == 2 else rd.u8(ptr)
                rd.need(ptr + width, width * n)
                d["map"][i] = ptr + width
                d["maplen"][i] = n
                ptr += width * (n + 1)
        return ptr + (ptr & 1)

    def _symlen(self, s1, s2, nsyms):
        """Run length - 1 of every symbol (python-chess calc_symlen, without recursion); a
        symbol pair that points outside the symbols or loops makes the file corrupt."""
        out = [-1] * nsyms
        for s in range(nsyms):
            stack = [s]
            while stack:
                x = stack[-1]
                if out[x] >= 0:
                    stack.pop()
                    continue
                if s2[x] == 0xFFF:
                    out[x] = 0
                    stack.pop()
                    continue
                a, b = s1[x], s2[x]
                if a >= nsyms or b >= nsyms or len(stack) > nsyms:
                    raise TableError(f"{self.file}: corrupt symbol table")
                if out[a] >= 0 and out[b] >= 0:
                    out[x] = out[a] + out[b] + 1
                    stack.pop()
                else:
                    stack.extend(y for y in (a, b) if out[y] < 0)
        return out


def _signed(v):
    """A uint64 bit pattern as a Python int in int64 range."""
    return v - (1 << 64) if v >= 1 << 63 else v


class _Tables:
    """The tables of one kind (``SUFFIX``) of a SyzygyPath, memory-mapped and packed for the
    kernels (:class:`WdlTables`, :class:`DtzTables`).

    ``array``: int64[...] (the layout of :mod:`uci_engine.kernels.tbformat`); ``names``:
    table names loaded; ``largest``: pieces of the largest; ``errors``: messages (str) for
    the files left out. The mapped files stay open as long as this object lives."""

    SUFFIX = ""
    DTZ = False

    def __init__(self, dirs=()):
        self.tables = []
        self.errors = []
        seen = set()
        for d in dirs:
            for fn in sorted(os.listdir(d)):
                if not fn.endswith(self.SUFFIX):
                    continue
                try:
                    t = _Table(os.path.join(d, fn), dtz=self.DTZ)
                except TableError as exc:
                    self.errors.append(str(exc))
                    continue
                except (OSError, ValueError) as exc:
                    self.errors.append(f"{fn}: {exc}")
                    continue
                if t.key in seen:
                    continue
                seen.add(t.key)
                self.tables.append(t)
        self.names = [t.name for t in self.tables]
        self.largest = max((t.num for t in self.tables), default=0)
        self.array = self._pack()
        self._reported = 0

    def _pack(self):
        tables = self.tables
        keys = []
        for n, t in enumerate(tables):
            keys.append((t.key, n))
            if t.mkey != t.key:
                keys.append((t.mkey, n))
        keys.sort()
        head = [0] * K.HEADER_LEN
        out = head
        head[K.H_NTABLES] = len(tables)
        head[K.H_LARGEST] = self.largest
        head[K.H_NKEYS] = len(keys)
        head[K.H_KEYS] = len(out)
        out += [k for k, _ in keys] + [n for _, n in keys]
        head[K.H_TABLES] = len(out)
        recs_at = len(out)
        out += [0] * (K.TREC_LEN * len(tables))
        for n, t in enumerate(tables):
            r = recs_at + n * K.TREC_LEN
            out[r + K.T_ADDR] = int(t.mm.ctypes.data)
            out[r + K.T_SIZE] = t.size
            out[r + K.T_NUM] = t.num
            out[r + K.T_HAS_PAWNS] = int(t.has_pawns)
            out[r + K.T_PAWNS0], out[r + K.T_PAWNS1] = t.pawns
            out[r + K.T_ENC] = t.enc
            out[r + K.T_SYMMETRIC] = int(t.symmetric)
            out[r + K.T_KEY] = t.key
            out[r + K.T_MKEY] = t.mkey
            out[r + K.T_FILES] = t.files
            out[r + K.T_ENABLED] = 1
            out[r + K.T_LEAD] = t.lead
            out[r + K.T_ENTRY] = len(out)
            ents = len(out)
            out += [0] * (K.EREC_LEN * 2 * t.files)
            for (f, s), e in t.entries.items():
                a = ents + (f * 2 + s) * K.EREC_LEN
                for i, c in enumerate(e["pieces"]):
                    out[a + K.E_PIECES + i] = c
                for i, c in enumerate(e["norm"]):
                    out[a + K.E_NORM + i] = c
                for i, c in enumerate(e["factor"]):
                    out[a + K.E_FACTOR + i] = c
                out[a + K.E_TBSIZE] = e["tbsize"]
                out[a + K.E_CONST] = e["const"]
                out[a + K.E_MINLEN] = e["min_len"]
                out[a + K.E_FLAGS] = e["flags"]
                for i, (at, n) in enumerate(zip(e.get("map", ()), e.get("maplen", ()))):
                    out[a + K.E_MAP + i] = at
                    out[a + K.E_MAPLEN + i] = n
                if e["const"]:
                    continue
                for fld, key in ((K.E_IDXBITS, "idxbits"), (K.E_BLOCKSIZE, "blocksize"),
                                 (K.E_MAXLEN, "max_len"), (K.E_INDEX, "index"),
                                 (K.E_NINDEX, "nindex"), (K.E_SIZES, "sizes"),
                                 (K.E_NBLOCKS, "nblocks"), (K.E_REALBLOCKS, "real_blocks"),
                                 (K.E_DATA, "data"), (K.E_OFFSET, "offset"),
                                 (K.E_SYMPAT, "sympat"), (K.E_NSYMS, "nsyms")):
                    out[a + fld] = e[key]
                out[a + K.E_BASE] = len(out)
                out += [_signed(b) for b in e["base"]]
                out[a + K.E_SYMLEN] = len(out)
                out += e["symlen"]
        return np.array(out, dtype=np.int64)

    def new_errors(self):
        """Messages (list of str) for the tables the kernels switched off since the last call:
        a probe found their data corrupt."""
        if int(self.array[K.H_ERRORS]) == self._reported:
            return []
        self._reported = int(self.array[K.H_ERRORS])
        out = []
        for n, t in enumerate(self.tables):
            r = int(self.array[K.H_TABLES]) + n * K.TREC_LEN
            if self.array[r + K.T_ENABLED] == 0 and not getattr(t, "reported", False):
                t.reported = True
                out.append(f"Syzygy table {t.file} is corrupt: probing of it is switched off")
        return out


class WdlTables(_Tables):
    """The ``.rtbw`` (WDL) tables of a SyzygyPath for :mod:`uci_engine.kernels.tbprobe`, with
    the search's probing options in the array's header (:meth:`set_options`)."""

    SUFFIX = ".rtbw"

    def set_options(self, limit, depth, rule50):
        """Write the probing options into the array: positions with at most
        ``min(limit, largest)`` pieces are probed (0: none), ``depth`` is SyzygyProbeDepth
        (plies), ``rule50`` Syzygy50MoveRule."""
        a = self.array
        a[K.H_CARD] = min(int(limit), self.largest)
        a[K.H_DEPTH] = int(depth)
        a[K.H_RULE50] = int(bool(rule50))


class DtzTables(_Tables):
    """The ``.rtbz`` (DTZ) tables of a SyzygyPath for :func:`uci_engine.kernels.tbdtz.probe_dtz`,
    which also needs the :class:`WdlTables` of the same path."""

    SUFFIX = ".rtbz"
    DTZ = True


def empty_array():
    """The packed array of no tables (int64[HEADER_LEN]): the search never probes."""
    return np.zeros(K.HEADER_LEN + 1, dtype=np.int64)


#: the ``tb`` argument of the search kernels while no tables are loaded, one array shared by
#: the driver and :meth:`uci_engine.syzygy.Tablebases.search_array` (never written)
NO_TABLES = empty_array()
