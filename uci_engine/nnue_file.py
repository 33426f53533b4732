"""NNUE net files: load and save (plain Python, numpy only).

Format (all little-endian)::

    offset  size  field
    0       8     magic b"UCENNUE\\0"
    8       4     format version (uint32, FORMAT_VERSION)
    12      4     H, hidden size (uint32, 1..MAX_HIDDEN)
    16      4     QA, first-layer quantisation (uint32)
    20      4     QB, output quantisation (uint32)
    24      4     output scale (uint32, centipawns per net output unit)
    28      4     activation (uint32: 0 CReLU, 1 SCReLU)
    32      8     payload length in bytes (uint64)
    40      16    BLAKE2b-128 digest of the payload
    56      ...   payload: int16 w_ft[768, H], int16 b_ft[H], int16 w_out[2, H], int16 b_out

``w_ft`` rows are features (see :mod:`uci_engine.kernels.nnue` for the index), ``w_out[0]``
meets the side to move's accumulator; quantisation as in bullet (github.com/jw1912/bullet):
``w_ft``, ``b_ft`` scaled by QA, ``w_out`` by QB, ``b_out`` by QA * QB.

:func:`load_net` raises ``ValueError`` with a reason for a file that is truncated, foreign (bad
magic), of another format version, inconsistent (payload length vs H, trailing bytes), corrupt
(digest) or whose weights could overflow the engine's int16 accumulators / int32 output sums.
"""
import hashlib
import os
import struct
from dataclasses import dataclass

import numpy as np

from .kernels.nnue_consts import (N_FEATURES, MAX_ACTIVE, ACT_CRELU, ACT_SCRELU, PARAMS_LEN, P_BIAS,
                           P_ACT, P_QA, P_QB, P_SCALE, QA, QB, OUTPUT_SCALE, ROW_B_FT,
                           ROW_W_OUT, PACKED_ROWS)

MAGIC = b"UCENNUE\0"
FORMAT_VERSION = 1
HEADER = struct.Struct("<8sIIIIIIQ16s")
MAX_HIDDEN = 4096
ACTIVATIONS = {"crelu": ACT_CRELU, "screlu": ACT_SCRELU}
INT16_MAX = 32767
INT32_MAX = 2**31 - 1
NETS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nets")
#: the net the engine loads at start (``EvalFile``'s default): generation 2, trained on
#: self-play of generations 0 and 1 (README "The shipped net"); it beat generation 1 at 5+0.05
#: (SPRT H1, docs/strength.md)
DEFAULT_NET = "gen2_h128.nnue"
#: the evaluation an engine starts with (``Use NNUE``'s default, the one switch point for
#: :class:`uci_engine.engine.Engine`, the UCI option and ``bench``): the NNUE, which beat the
#: hand-crafted evaluation at 5+0.05 and 10+0.1 (docs/strength.md). The hand-crafted
#: evaluation stays available with ``Use NNUE=false``, and is used when the shipped net cannot
#: be loaded
USE_NNUE_DEFAULT = True


def find_net(name):
    """Path (str) of net file ``name``: ``name`` itself when it exists, else the file of that
    name in :data:`NETS_DIR` (the shipped nets, as Stockfish looks for its default net next to
    the binary); ``name`` unchanged when neither exists (loading then raises OSError)."""
    if os.path.exists(name):
        return name
    shipped = os.path.join(NETS_DIR, os.path.basename(name))
    return shipped if os.path.exists(shipped) else name


@dataclass
class Net:
    """A quantised net ready for the kernels.

    ``w_ft`` int16[768, H], ``b_ft`` int16[H], ``w_out`` int16[2, H] (C-contiguous),
    ``b_out`` int, ``qa``, ``qb``, ``scale`` ints, ``activation`` ACT_SCRELU or ACT_CRELU;
    :attr:`params` is the int64[PARAMS_LEN] array :func:`nnue_evaluate` takes."""
    w_ft: np.ndarray
    b_ft: np.ndarray
    w_out: np.ndarray
    b_out: int
    qa: int = QA
    qb: int = QB
    scale: int = OUTPUT_SCALE
    activation: int = ACT_SCRELU

    @property
    def hidden(self):
        return int(self.b_ft.shape[0])

    @property
    def params(self):
        p = np.zeros(PARAMS_LEN, dtype=np.int64)
        p[P_BIAS], p[P_ACT], p[P_QA], p[P_QB], p[P_SCALE] = (
            self.b_out, self.activation, self.qa, self.qb, self.scale)
        return p

    def packed(self):
        """All int16 weights in one C-contiguous int16[PACKED_ROWS, H] array: rows 0..767
        ``w_ft``, row ROW_B_FT ``b_ft``, rows ROW_W_OUT, ROW_W_OUT + 1 ``w_out``. The kernels
        take it (or views of it) in place of the separate arrays: ``nnue_update(..., packed)``
        reads only feature rows, ``nnue_refresh(st, ply, packed, packed[ROW_B_FT], ...)``,
        ``nnue_evaluate(..., packed[ROW_W_OUT:ROW_W_OUT + 2], params)``."""
        out = np.empty((PACKED_ROWS, self.hidden), dtype=np.int16)
        out[:N_FEATURES] = self.w_ft
        out[ROW_B_FT] = self.b_ft
        out[ROW_W_OUT:ROW_W_OUT + 2] = self.w_out
        return out


def _payload_len(h):
    return 2 * (N_FEATURES * h + h + 2 * h + 1)


def check_net(net):
    """Raise ValueError unless ``net``'s shapes agree and its weights are safe for the kernels:
    no int16 accumulator overflow (``|b_ft| + sum of the 32 largest |w_ft|`` per neuron fits
    int16; 32 = most pieces on a board) and no int32 overflow of the output sums (per
    perspective ``sum act_max * |w_out|`` < 2^31, act_max = QA^2 for SCReLU, QA for CReLU; and
    for SCReLU ``QA * |w_out|`` fits int16)."""
    h = net.hidden
    if not 1 <= h <= MAX_HIDDEN:
        raise ValueError(f"hidden size {h} out of range 1..{MAX_HIDDEN}")
    if net.w_ft.shape != (N_FEATURES, h) or net.w_out.shape != (2, h):
        raise ValueError(f"weight shapes {net.w_ft.shape}, {net.w_out.shape} do not match H={h}")
    if net.activation not in ACTIVATIONS.values():
        raise ValueError(f"unknown activation code {net.activation}")
    for name, v in (("QA", net.qa), ("QB", net.qb), ("scale", net.scale)):
        if not 1 <= v <= INT16_MAX:
            raise ValueError(f"{name} = {v} out of range 1..{INT16_MAX}")
    top = np.sort(np.abs(net.w_ft.astype(np.int64)), axis=0)[-MAX_ACTIVE:].sum(axis=0)
    if int((top + np.abs(net.b_ft.astype(np.int64))).max()) > INT16_MAX:
        raise ValueError("first-layer weights could overflow the int16 accumulator")
    wo = np.abs(net.w_out.astype(np.int64))
    act_max = net.qa * net.qa if net.activation == ACT_SCRELU else net.qa
    if int((wo * act_max).sum(axis=1).max()) > INT32_MAX:
        raise ValueError("output weights could overflow the int32 output sum")
    if net.activation == ACT_SCRELU and int(wo.max()) * net.qa > INT16_MAX:
        raise ValueError("output weights too large for SCReLU (QA * |w_out| > 32767)")


def save_net(path, net):
    """Write ``net`` (:class:`Net`, checked by :func:`check_net`) to ``path`` in the format
    above. Returns the number of bytes written."""
    check_net(net)
    payload = b"".join([np.ascontiguousarray(net.w_ft, dtype="<i2").tobytes(),
                        np.ascontiguousarray(net.b_ft, dtype="<i2").tobytes(),
                        np.ascontiguousarray(net.w_out, dtype="<i2").tobytes(),
                        np.array([net.b_out], dtype="<i2").tobytes()])
    digest = hashlib.blake2b(payload, digest_size=16).digest()
    header = HEADER.pack(MAGIC, FORMAT_VERSION, net.hidden, net.qa, net.qb, net.scale,
                         net.activation, len(payload), digest)
    with open(path, "wb") as fh:
        fh.write(header)
        fh.write(payload)
    return len(header) + len(payload)


def load_net(path):
    """Read a net file into a :class:`Net`. Raises ValueError (reason in the message) for a
    truncated, foreign, mismatched or corrupt file; OSError if it cannot be read."""
    with open(path, "rb") as fh:
        data = fh.read()
    if len(data) < len(MAGIC) or data[:len(MAGIC)] != MAGIC:
        raise ValueError(f"{path}: not an NNUE net of this engine (bad magic)")
    if len(data) < HEADER.size:
        raise ValueError(f"{path}: truncated header ({len(data)} of {HEADER.size} bytes)")
    _, version, h, qa, qb, scale, act, plen, digest = HEADER.unpack_from(data)
    if version != FORMAT_VERSION:
        raise ValueError(f"{path}: format version {version}, expected {FORMAT_VERSION}")
    if not 1 <= h <= MAX_HIDDEN:
        raise ValueError(f"{path}: hidden size {h} out of range 1..{MAX_HIDDEN}")
    if plen != _payload_len(h):
        raise ValueError(f"{path}: payload length {plen} does not match H={h} "
                         f"({_payload_len(h)} bytes expected)")
    body = data[HEADER.size:]
    if len(body) < plen:
        raise ValueError(f"{path}: truncated payload ({len(body)} of {plen} bytes)")
    if len(body) > plen:
        raise ValueError(f"{path}: {len(body) - plen} unexpected bytes after the payload")
    if hashlib.blake2b(body, digest_size=16).digest() != digest:
        raise ValueError(f"{path}: payload digest mismatch (corrupt file)")
    arr = np.frombuffer(body, dtype="<i2").astype(np.int16)
    o = N_FEATURES * h
    net = Net(w_ft=arr[:o].reshape(N_FEATURES, h).copy(), b_ft=arr[o:o + h].copy(),
              w_out=arr[o + h:o + 3 * h].reshape(2, h).copy(), b_out=int(arr[o + 3 * h]),
              qa=qa, qb=qb, scale=scale, activation=act)
    try:
        check_net(net)
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None
    return net


def random_net(hidden, seed, activation=ACT_SCRELU, ft_range=1.0, out_range=1.0):
    """A seeded random quantised :class:`Net` (tests and the committed test net): float weights
    uniform in +-ft_range (first layer, over sqrt-ish fan-in) and +-out_range (output),
    quantised like a trained net."""
    rng = np.random.default_rng(seed)
    w_ft = rng.uniform(-ft_range, ft_range, (N_FEATURES, hidden)) * 0.25
    b_ft = rng.uniform(0.0, ft_range, hidden) * 0.5
    w_out = rng.uniform(-out_range, out_range, (2, hidden))
    b_out = rng.uniform(-0.1, 0.1)
    return Net(w_ft=np.round(w_ft * QA).astype(np.int16), b_ft=np.round(b_ft * QA).astype(np.int16),
               w_out=np.round(w_out * QB).astype(np.int16), b_out=int(round(b_out * QA * QB)),
               activation=activation)
