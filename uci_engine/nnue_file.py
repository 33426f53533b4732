"""NNUE net files: load and save (plain Python, numpy only).

Format version 2 (all little-endian; the header records the architecture)::

    offset  size  field
    0       8     magic b"UCENNUE\\0"
    8       4     format version (uint32, FORMAT_VERSION)
    12      4     H, hidden size (uint32, 1..MAX_HIDDEN)
    16      4     QA, first-layer quantisation (uint32)
    20      4     QB, output quantisation (uint32)
    24      4     output scale (uint32, centipawns per net output unit)
    28      4     activation (uint32: 0 CReLU, 1 SCReLU)
    32      4     input layout (uint32: 0 plain 768, 1 king buckets mirrored; nnue_consts.LAYOUTS)
    36      4     B, output buckets (uint32, 1..MAX_OUTPUT_BUCKETS)
    40      64    king map: the king bucket (uint8) of each of the 64 squares, all 0 for layout 0
    104     8     payload length in bytes (uint64)
    112     16    BLAKE2b-128 digest of the payload
    128     ...   payload: int16 w_ft[768 * K, H], int16 b_ft[H], int16 w_out[2 * B, H],
                  int16 b_out[B]    (K = king buckets = largest map entry + 1)

Version 1 (the first nets: gen0..gen2) has no layout, bucket or map fields: its header ends at
the digest (offset 56) and it reads as layout 0, B = 1.

``w_ft`` rows are features (see :mod:`uci_engine.kernels.nnue` for the index), ``w_out[2b]``
meets the side to move's accumulator in output bucket b; quantisation as in bullet
(github.com/jw1912/bullet): ``w_ft``, ``b_ft`` scaled by QA, ``w_out`` by QB, ``b_out`` by
QA * QB.

:func:`load_net` raises ``ValueError`` with a reason for a file that is truncated, foreign (bad
magic), of another format version, of an architecture this build cannot run (input layout,
output buckets, king map), inconsistent (payload length vs the architecture, trailing bytes),
corrupt (digest) or whose weights could overflow the engine's int16 accumulators / int32
output sums. ``EvalFile`` then keeps the net it had.
"""
import hashlib
import os
import struct
from dataclasses import dataclass

import numpy as np

from .kernels.nnue_consts import (N_FEATURES, MAX_ACTIVE, ACT_CRELU, ACT_SCRELU, PARAMS_LEN,
                                  P_ACT, P_QA, P_QB, P_SCALE, P_OUT_BUCKETS, P_LAYOUT,
                                  P_BIASES, P_KING_MAP, QA, QB, OUTPUT_SCALE, LAYOUTS,
                                  LAYOUT_PLAIN, LAYOUT_KING_MIRRORED, MAX_KING_BUCKETS,
                                  MAX_OUTPUT_BUCKETS, KING_MAPS, FILE_FLIP)

MAGIC = b"UCENNUE\0"
FORMAT_VERSION = 2
HEADER = struct.Struct("<8sIIIIIIII64sQ16s")       # version 2
HEADER_V1 = struct.Struct("<8sIIIIIIQ16s")
MAX_HIDDEN = 4096
ACTIVATIONS = {"crelu": ACT_CRELU, "screlu": ACT_SCRELU}
INT16_MAX = 32767
INT32_MAX = 2**31 - 1
NETS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nets")
#: suffix of a net's float weights, which scripts/train_nnue.py writes beside every net file and
#: ``--init`` reads (the campaign commits them, docs/campaign.md); the engine never reads them
FLOAT_WEIGHTS_SUFFIX = ".f16.npz"
#: the net the engine loads at start (``EvalFile``'s default): generation 8, generation 7's
#: architecture (H256, 8 mirrored king buckets, 8 output buckets) fine-tuned on generation 7's
#: self-play (docs/nets.md); it scored 54.3 % against Ethereal 12 where generation 7 scored
#: 52.3 % in the same gauntlet and beat generation 7 at 5+0.05 in its SPRT (docs/campaign.md,
#: rows 125-129)
DEFAULT_NET = "gen8_h256_w8_o8.nnue"
#: the evaluation an engine starts with (``Use NNUE``'s default, the one switch point for
#: :class:`uci_engine.engine.Engine`, the UCI option and ``bench``): the NNUE, which beat the
#: hand-crafted evaluation at 5+0.05 and 10+0.1 (docs/strength.md). The hand-crafted
#: evaluation stays available with ``Use NNUE=false``, and is used when the shipped net cannot
#: be loaded
USE_NNUE_DEFAULT = True


def float_weights_path(out):
    """Where the float weights of net file ``out`` go (str): ``out`` without ``.nnue`` plus
    :data:`FLOAT_WEIGHTS_SUFFIX`."""
    base = out[:-len(".nnue")] if out.endswith(".nnue") else out
    return base + FLOAT_WEIGHTS_SUFFIX


def find_net(name):
    """Path (str) of net file ``name``: ``name`` itself when it exists, else the file of that
    name in :data:`NETS_DIR` (the shipped nets, as Stockfish looks for its default net next to
    the binary); ``name`` unchanged when neither exists (loading then raises OSError)."""
    if os.path.exists(name):
        return name
    shipped = os.path.join(NETS_DIR, os.path.basename(name))
    return shipped if os.path.exists(shipped) else name


def full_king_map(half):
    """The 64-entry king map (tuple of ints, square -> bucket, a1 = 0) of a 32-entry map of
    files a-d (a1 b1 c1 d1 a2 ... d8): files e-h take the bucket of their a<->h mirror, where
    the kernels also mirror the board (``nnue_consts.KING_MAPS`` names some)."""
    if len(half) != 32:
        raise ValueError(f"a half-board king map has 32 entries, not {len(half)}")
    return tuple(half[(sq >> 3) * 4 + min(sq & 7, (sq & 7) ^ FILE_FLIP)] for sq in range(64))


def input_layout_of(name):
    """``(layout, king_map)`` of the king-bucket map named ``name``: "none" gives the plain
    layout and an all-zero map, a key of ``nnue_consts.KING_MAPS`` the mirrored king-bucket
    layout and that map over 64 squares. Raises ValueError for another name."""
    if name == "none":
        return LAYOUT_PLAIN, (0,) * 64
    if name not in KING_MAPS:
        raise ValueError(f"unknown king-bucket map {name!r}: none, {', '.join(KING_MAPS)}")
    return LAYOUT_KING_MIRRORED, full_king_map(KING_MAPS[name])


@dataclass
class Net:
    """A quantised net ready for the kernels.

    ``w_ft`` int16[768 * K, H] (K king buckets), ``b_ft`` int16[H], ``w_out`` int16[2 * B, H]
    (B output buckets; C-contiguous), ``b_out`` int (B = 1) or sequence of B ints, ``qa``,
    ``qb``, ``scale`` ints, ``activation`` ACT_SCRELU or ACT_CRELU, ``layout`` LAYOUT_PLAIN or
    LAYOUT_KING_MIRRORED, ``king_map`` 64 ints (square -> bucket; all 0 for the plain layout);
    :attr:`params` is the int64[PARAMS_LEN] array the kernels take."""
    w_ft: np.ndarray
    b_ft: np.ndarray
    w_out: np.ndarray
    b_out: object
    qa: int = QA
    qb: int = QB
    scale: int = OUTPUT_SCALE
    activation: int = ACT_SCRELU
    layout: int = LAYOUT_PLAIN
    king_map: tuple = (0,) * 64

    @property
    def hidden(self):
        return int(self.b_ft.shape[0])

    @property
    def output_buckets(self):
        return int(self.w_out.shape[0]) // 2

    @property
    def king_buckets(self):
        return max(self.king_map) + 1 if self.layout == LAYOUT_KING_MIRRORED else 1

    @property
    def out_biases(self):
        """The B output biases (list of ints)."""
        return [int(self.b_out)] if np.ndim(self.b_out) == 0 else [int(b) for b in self.b_out]

    def architecture(self):
        """A one-line description (str), e.g. ``(768x4 -> 128)x2 -> 8, SCReLU``."""
        act = {ACT_SCRELU: "SCReLU", ACT_CRELU: "CReLU"}.get(self.activation, "?")
        kb = f"x{self.king_buckets}" if self.layout == LAYOUT_KING_MIRRORED else ""
        return f"(768{kb} -> {self.hidden})x2 -> {self.output_buckets}, {act}"

    @property
    def params(self):
        p = np.zeros(PARAMS_LEN, dtype=np.int64)
        p[P_ACT], p[P_QA], p[P_QB], p[P_SCALE] = self.activation, self.qa, self.qb, self.scale
        p[P_OUT_BUCKETS], p[P_LAYOUT] = self.output_buckets, self.layout
        biases = self.out_biases
        p[P_BIASES:P_BIASES + len(biases)] = biases
        p[P_KING_MAP:P_KING_MAP + 64] = self.king_map
        return p

    def packed(self):
        """All int16 weights in one C-contiguous int16[768 * K + 1 + 2 * B, H] array, the
        ``net`` argument of the kernels: the ``w_ft`` rows, the ``b_ft`` row, the ``w_out``
        rows (:func:`uci_engine.kernels.nnue.bias_row` finds the ``b_ft`` row)."""
        f = self.w_ft.shape[0]
        out = np.empty((f + 1 + self.w_out.shape[0], self.hidden), dtype=np.int16)
        out[:f] = self.w_ft
        out[f] = self.b_ft
        out[f + 1:] = self.w_out
        return out


def _payload_len(h, k=1, b=1):
    return 2 * (N_FEATURES * k * h + h + 2 * b * h + b)


def check_architecture(layout, buckets, king_map):
    """Raise ValueError unless this build runs input layout ``layout`` with ``buckets`` output
    buckets and the 64-entry ``king_map``; return the number of king buckets K (int)."""
    if layout not in LAYOUTS:
        known = "; ".join(f"{k} = {v}" for k, v in LAYOUTS.items())
        raise ValueError(f"input layout {layout} is not one this build can run ({known})")
    if not 1 <= buckets <= MAX_OUTPUT_BUCKETS:
        raise ValueError(f"{buckets} output buckets: this build runs 1..{MAX_OUTPUT_BUCKETS}")
    king_map = tuple(int(x) for x in king_map)
    if len(king_map) != 64:
        raise ValueError(f"king map of {len(king_map)} entries, not 64")
    if layout == LAYOUT_PLAIN:
        if any(king_map):
            raise ValueError("king map set for the plain input layout")
        return 1
    k = max(king_map) + 1
    if k > MAX_KING_BUCKETS:
        raise ValueError(f"{k} king buckets: this build runs 1..{MAX_KING_BUCKETS}")
    if any(king_map[sq] != king_map[sq ^ FILE_FLIP] for sq in range(64)):
        raise ValueError("king map not symmetric a<->h (the layout mirrors files e-h)")
    if set(king_map) != set(range(k)):
        raise ValueError(f"king map does not use every bucket 0..{k - 1}")
    return k


def check_net(net):
    """Raise ValueError unless ``net``'s architecture runs here (:func:`check_architecture`),
    its shapes agree and its weights are safe for the kernels: no int16 accumulator overflow
    (``|b_ft| + sum of the 32 largest |w_ft|`` per neuron fits int16; 32 = most pieces on a
    board) and no int32 overflow of the output sums (per output row ``sum act_max * |w_out|``
    < 2^31, act_max = QA^2 for SCReLU, QA for CReLU; and for SCReLU ``QA * |w_out|`` fits
    int16)."""
    h = net.hidden
    if not 1 <= h <= MAX_HIDDEN:
        raise ValueError(f"hidden size {h} out of range 1..{MAX_HIDDEN}")
    if net.w_out.ndim != 2 or net.w_out.shape[0] % 2 or net.w_out.shape[1] != h:
        raise ValueError(f"output weights of shape {net.w_out.shape}: expected (2 * B, {h})")
    b = net.output_buckets
    k = check_architecture(net.layout, b, net.king_map)
    if net.w_ft.shape != (N_FEATURES * k, h):
        raise ValueError(f"first-layer weights of shape {net.w_ft.shape}: expected "
                         f"({N_FEATURES * k}, {h}) for {k} king bucket(s) and H={h}")
    if len(net.out_biases) != b:
        raise ValueError(f"{len(net.out_biases)} output biases for {b} output buckets")
    if any(abs(x) > INT16_MAX for x in net.out_biases):
        raise ValueError("output bias out of the int16 range")
    if net.activation not in ACTIVATIONS.values():
        raise ValueError(f"unknown activation code {net.activation}")
    for name, v in (("QA", net.qa), ("QB", net.qb), ("scale", net.scale)):
        if not 1 <= v <= INT16_MAX:
            raise ValueError(f"{name} = {v} out of range 1..{INT16_MAX}")
    # the MAX_ACTIVE largest of each column by a partial sort (np.partition: linear time; for
    # an H256 net with 8 king buckets 25 ms of CPU against a full sort's 47 ms)
    a = np.abs(net.w_ft.astype(np.int64))
    kth = max(a.shape[0] - MAX_ACTIVE, 0)
    top = np.partition(a, kth, axis=0)[kth:].sum(axis=0)
    if int((top + np.abs(net.b_ft.astype(np.int64))).max()) > INT16_MAX:
        raise ValueError("first-layer weights could overflow the int16 accumulator")
    wo = np.abs(net.w_out.astype(np.int64))
    act_max = net.qa * net.qa if net.activation == ACT_SCRELU else net.qa
    if int((wo * act_max).sum(axis=1).max()) > INT32_MAX:
        raise ValueError("output weights could overflow the int32 output sum")
    if net.activation == ACT_SCRELU and int(wo.max()) * net.qa > INT16_MAX:
        raise ValueError("output weights too large for SCReLU (QA * |w_out| > 32767)")


def save_net(path, net):
    """Write ``net`` (:class:`Net`, checked by :func:`check_net`) to ``path`` in format
    version 2. Returns the number of bytes written."""
    check_net(net)
    payload = b"".join([np.ascontiguousarray(net.w_ft, dtype="<i2").tobytes(),
                        np.ascontiguousarray(net.b_ft, dtype="<i2").tobytes(),
                        np.ascontiguousarray(net.w_out, dtype="<i2").tobytes(),
                        np.array(net.out_biases, dtype="<i2").tobytes()])
    digest = hashlib.blake2b(payload, digest_size=16).digest()
    header = HEADER.pack(MAGIC, FORMAT_VERSION, net.hidden, net.qa, net.qb, net.scale,
                         net.activation, net.layout, net.output_buckets, bytes(net.king_map),
                         len(payload), digest)
    with open(path, "wb") as fh:
        fh.write(header)
        fh.write(payload)
    return len(header) + len(payload)


def load_net(path):
    """Read a net file (format version 1 or 2) into a :class:`Net`. Raises ValueError (reason
    in the message) for a truncated, foreign, unsupported, mismatched or corrupt file; OSError
    if it cannot be read."""
    with open(path, "rb") as fh:
        data = fh.read()
    if len(data) < len(MAGIC) or data[:len(MAGIC)] != MAGIC:
        raise ValueError(f"{path}: not an NNUE net of this engine (bad magic)")
    if len(data) < 12:
        raise ValueError(f"{path}: truncated header ({len(data)} bytes)")
    version = struct.unpack_from("<I", data, 8)[0]
    if version not in (1, FORMAT_VERSION):
        raise ValueError(f"{path}: format version {version}; this build reads versions 1 and "
                         f"{FORMAT_VERSION}")
    header = HEADER if version == FORMAT_VERSION else HEADER_V1
    if len(data) < header.size:
        raise ValueError(f"{path}: truncated header ({len(data)} of {header.size} bytes)")
    if version == 1:
        _, _, h, qa, qb, scale, act, plen, digest = HEADER_V1.unpack_from(data)
        layout, buckets, king_map = LAYOUT_PLAIN, 1, (0,) * 64
    else:
        (_, _, h, qa, qb, scale, act, layout, buckets, king_map, plen,
         digest) = HEADER.unpack_from(data)
        king_map = tuple(king_map)
    if not 1 <= h <= MAX_HIDDEN:
        raise ValueError(f"{path}: hidden size {h} out of range 1..{MAX_HIDDEN}")
    try:
        k = check_architecture(layout, buckets, king_map)
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None
    if plen != _payload_len(h, k, buckets):
        raise ValueError(f"{path}: payload length {plen} does not match H={h} "
                         f"({_payload_len(h, k, buckets)} bytes expected)")
    body = data[header.size:]
    if len(body) < plen:
        raise ValueError(f"{path}: truncated payload ({len(body)} of {plen} bytes)")
    if len(body) > plen:
        raise ValueError(f"{path}: {len(body) - plen} unexpected bytes after the payload")
    if hashlib.blake2b(body, digest_size=16).digest() != digest:
        raise ValueError(f"{path}: payload digest mismatch (corrupt file)")
    arr = np.frombuffer(body, dtype="<i2").astype(np.int16)
    f = N_FEATURES * k
    o = f * h
    biases = arr[o + h + 2 * buckets * h:]
    net = Net(w_ft=arr[:o].reshape(f, h).copy(), b_ft=arr[o:o + h].copy(),
              w_out=arr[o + h:o + h + 2 * buckets * h].reshape(2 * buckets, h).copy(),
              b_out=int(biases[0]) if buckets == 1 else [int(x) for x in biases],
              qa=qa, qb=qb, scale=scale, activation=act, layout=layout, king_map=king_map)
    try:
        check_net(net)
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None
    return net


def random_net(hidden, seed, activation=ACT_SCRELU, ft_range=1.0, out_range=1.0,
               output_buckets=1, king_map="none"):
    """A seeded random quantised :class:`Net` (tests and the committed test net): float weights
    uniform in +-ft_range (first layer, over sqrt-ish fan-in) and +-out_range (output),
    quantised like a trained net; ``output_buckets`` B and ``king_map`` (a name for
    :func:`input_layout_of`) set the architecture."""
    rng = np.random.default_rng(seed)
    layout, kmap = input_layout_of(king_map)
    k = max(kmap) + 1
    w_ft = rng.uniform(-ft_range, ft_range, (N_FEATURES * k, hidden)) * 0.25
    b_ft = rng.uniform(0.0, ft_range, hidden) * 0.5
    w_out = rng.uniform(-out_range, out_range, (2 * output_buckets, hidden))
    b_out = rng.uniform(-0.1, 0.1, output_buckets)
    q_out = [int(round(b * QA * QB)) for b in b_out]
    return Net(w_ft=np.round(w_ft * QA).astype(np.int16), b_ft=np.round(b_ft * QA).astype(np.int16),
               w_out=np.round(w_out * QB).astype(np.int16),
               b_out=q_out[0] if output_buckets == 1 else q_out,
               activation=activation, layout=layout, king_map=kmap)


def widened_net(net, hidden, king_buckets="none", output_buckets=1):
    """The plain net ``net`` (K = 1, B = 1) as a :class:`Net` with ``hidden`` >= net.hidden
    neurons (the new ones all zero), its first layer repeated for each king bucket of the
    ``king_buckets`` map (a name for :func:`input_layout_of`) and its output row and bias
    repeated ``output_buckets`` times. Raises ValueError for a net that already has buckets or
    a smaller ``hidden``. Used by ``scripts/bench_net_sizes.py`` to price an architecture
    without changing what the net computes."""
    if net.king_buckets != 1 or net.output_buckets != 1 or hidden < net.hidden:
        raise ValueError(f"cannot widen {net.architecture()} to hidden {hidden}")
    layout, kmap = input_layout_of(king_buckets)
    k = max(kmap) + 1
    w_ft = np.zeros((N_FEATURES * k, hidden), dtype=np.int16)
    for b in range(k):
        w_ft[b * N_FEATURES:(b + 1) * N_FEATURES, :net.hidden] = net.w_ft
    b_ft = np.zeros(hidden, dtype=np.int16)
    b_ft[:net.hidden] = net.b_ft
    w_out = np.zeros((2 * output_buckets, hidden), dtype=np.int16)
    for b in range(output_buckets):
        w_out[2 * b:2 * b + 2, :net.hidden] = net.w_out
    b_out = net.out_biases[0] if output_buckets == 1 else net.out_biases * output_buckets
    return Net(w_ft=w_ft, b_ft=b_ft, w_out=w_out, b_out=b_out, qa=net.qa, qb=net.qb,
               scale=net.scale, activation=net.activation, layout=layout, king_map=kmap)
