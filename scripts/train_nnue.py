#!/usr/bin/env python3
"""Train a (768 x K -> H) x 2 -> B NNUE on datagen output with PyTorch on the CPU; write a
quantised net file (uci_engine/nnue_file.py format) and a JSON record.

K king buckets (``--king-buckets NAME``, a map of ``nnue_consts.KING_MAPS``; ``none``: the
plain 768 inputs) and B output buckets by piece count (``--output-buckets``) as the engine's
kernels run them (uci_engine/kernels/nnue.py): each perspective's plain indices move to the
block ``768 * bucket`` of its own king's square, mirrored a<->h (``^ 7``) while that king
stands on files e-h; output bucket ``(pieces - 2) // ceil(32 / B)``.

Input: datagen text files, one position per line ``<FEN> | <score> | <result>`` (score in
centipawns and result 1.0 / 0.5 / 0.0, both from White's view; ``uci-engine datagen``), or
game-record files (``uci-engine datagen --format records``, told apart by their magic), read
through :func:`uci_engine.gamerecord.game_positions`, the reader of the ``to-text``
converter, so they give the positions and values of the converted text. ``--keep-noisy``
also takes the record positions whose best move is a capture or promotion.
They are converted once into a compact binary ``<data>.nnuebin.npy`` (numpy memmap, 68 bytes a
position: int16[32] input indices from the side to move's perspective, -1 padded; int16 score
and uint8 result (0, 1, 2 = loss, draw, win), both from the side to move's view; uint8
``mirror_ok``, 1 when the position has no castling rights), reused while it is newer than its
source and has this layout. A record file's conversion keeps a sidecar ``<data>.nnuebin.json``
(the source's bytes read and their BLAKE2b): after datagen appended games, only the new games
are converted and appended (about 20,000 positions a second on one core). The other
perspective's indices follow as ``((f + 384) % 768) ^ 56``.

``--mirror`` (data augmentation): each epoch, every training position without castling rights
is mirrored a<->h with probability 1/2, its indices ``f ^ 7``. Without castling rights chess is
symmetric under that mirror, so the mirrored position has the same score and result; the net
sees up to twice as many distinct positions (data-starved nets overfit: generation 1 reached a
training loss of 0.00383 against 0.00764 on held-out games). Validation positions are never
mirrored.

Model and loss follow bullet's simple example (github.com/jw1912/bullet, examples/simple.rs):
``out = SCReLU(acc_stm) . w_out[0] + SCReLU(acc_ntm) . w_out[1] + b_out`` with
``acc = b_ft + sum w_ft[features]``, prediction ``sigmoid(out * SCALE / S)``, target
``lambda * result + (1 - lambda) * sigmoid(score / S)`` (WDL blend, side to move's view),
mean squared error; Adam, cosine learning-rate decay, weights clipped to +-1.98 after every step
(so QA- and QB-quantised values fit int16 and the engine's int32 output sums, see
nnue_file.check_net). The last ``--val`` fraction of the positions (of the data files in the
order given) is held out for the validation loss: datagen writes each game's positions
together, so the held-out positions come from games the net never saw. A random split would
hold out positions of the training games, whose shared result the net learns by heart: a net
trained on 344,354 positions (about 3,600 games, lambda 0.5) had a loss of 0.0117 on such a
split, 0.0088 on its training positions and 0.0384 on the positions of later games.
Checkpoints (``<out>.ckpt``) after every epoch; ``--resume`` continues from one.

Float weights for the campaign (docs/campaign.md): after training, the model's float weights are
also written as ``<out minus .nnue>.f16.npz`` (float16, about 0.2 MB for a (768 -> 128) x 2 -> 8
net, small enough to commit; the ``.ckpt`` with its Adam moments stays local). ``--init PATH``
starts a training from such a file, or from a quantised net file (``.nnue``, its integers divided
by QA and QB again), instead of from random weights: a lost data set then costs the hours to
play new data, not the generation. The architecture must be the one asked for; the optimiser
starts afresh. The record's ``init_val_loss`` is the start's own loss on the held-out positions,
before any step: the figure a fine-tuned candidate must beat (``--epochs 0`` measures only that).

``--widen`` (with ``--init``) lets the start be a smaller net of the plain layout or of the same
king-bucket map, with the same activation and output buckets: a bigger net then begins where a
trained one stands instead of from random weights, which matters while the data is scarce for
its size (function-preserving growth, Net2Net: Chen, Goodfellow and Shlens, 2016). The start's
hidden neurons keep their weights; each new neuron keeps the model's fresh random input weights
and gets output weights of zero, so the output is unchanged and the new neurons still learn
(their output weights' gradients are their activations times the error). A plain start goes to
king buckets by copying its 768 input rows into every bucket. A bucketed perspective whose king
stands on files e-h sees its board mirrored a<->h, so one orientation of the rows is exact for
it and the other for a king on files a-d. ``--widen-kings east`` (the default) copies the rows
mirrored: the grown net gives the start's output exactly while both kings stand on files e-h,
where most kings stand (at home on e1 or castled short: in generation 5's self-play every
``wing8`` bucket held more perspectives mirrored than not, and in 65 % of the positions both
kings stood on files e-h); ``west`` copies them as they are, exact while both kings stand on
files a-d. Where the kings stand on opposite halves no orientation is exact, as a plain net is
not mirror-symmetric (a bucketed net is, exactly). On the tail of generation 5's data ``gen6a``
grown into factorised ``wing8`` started at 0.007301 held-out loss with ``east`` and 0.007327
with ``west`` (its own 0.005701), and 2 epochs later stood at 0.005953 against 0.006120
(docs/nets.md). Averaging each row with its mirror's does worse (generation 5d: 0.00962 against
0.00776 unaveraged): ``--mirror`` makes a net nearly symmetric as a function, not neuron by
neuron (a neuron's mirror image is another neuron).

``--factorise`` (with king buckets) trains each input twice over: its row in its king bucket's
block and a shared factor row for the same piece on the same (mirrored) square, whatever the
bucket. The net file holds their sum, so the engine sees the same architecture. Every position
then teaches the factor, which the buckets refine: a remedy for king buckets' hunger for data
(the "feature factorization" with virtual features of Stockfish's trainer, nnue-pytorch's
docs/nnue.md; bullet's factorised king buckets, whose factor also starts at zero). A start
from ``--init`` goes into the bucket rows, with the factor at zero, so it is exact (a
factorised run's own float weights also hold its factor, ``w_factor``, which goes back into the
factor rows, so that the run goes on where it stood); a plain
start grown with ``--widen`` goes into the factor instead, with its neurons' bucket rows at
zero (the same function as copying it into every bucket). ``--bucket-decay WD`` shrinks the
bucket rows alone by ``lr * WD`` a step (decoupled weight decay, Loshchilov and Hutter's
AdamW), so a bucket departs from the shared factor only as far as the data keeps pulling it.
On 4.7 M positions the factoriser lowered a ``wing8`` net's held-out loss (0.005966 against
0.006069 at H128), still above the plain net's 0.005810 (docs/nets.md).

``--init-decay WD`` (with ``--init``) pulls every weight towards its start by ``lr * WD`` of the
distance a step (at most all of it), the decoupled form (as AdamW's) of L2-SP, the penalty on the
distance from the pretrained weights of Li, Grandvalet and Davoine, "Explicit Inductive Bias for
Transfer Learning with Convolutional Networks" (ICML 2018). A fine-tuning run on a session's few
million positions then moves the net only as far as the new data keeps pulling it, where plain
fine-tuning on 0.5 M positions of generation 7's own play left it worse on their held-out tail
than its start (docs/campaign.md row 76). ``--bucket-decay`` still pulls the bucket rows towards
the factor beside it.

``S`` (``--wdl-scale``, centipawns per logit) is by default fitted to the training data: the
value that minimises the mean squared error between ``sigmoid(score / S)`` and the results
(scipy ``minimize_scalar``, as ``K`` in Texel tuning). Then the two halves of the target agree
and the net's centipawns keep the scale of the scores it learnt from, the scale the search's
margins were set in. bullet's fixed 400 suits Stockfish-scaled data; on our 5,000-node self-play
the fit gave about 133 (a +100 cp score won about 68 %), and with 400 a net would come out about
twice as large as the hand-crafted evaluation's centipawns.

The engine never imports torch: only this script does.

Usage: python scripts/train_nnue.py DATA [DATA2 ...] --out uci_engine/nets/NAME.nnue
           [--hidden 128] [--output-buckets 1] [--king-buckets none] [--epochs 10]
           [--batch 16384] [--lr 1e-3] [--lambda 0.5]
           [--val 0.02] [--activation screlu] [--seed 0] [--threads 1] [--resume]
           [--bin-dir DIR] [--wdl-scale fit|CP] [--mirror] [--keep-noisy] [--init PATH]
           [--widen] [--widen-kings east|west] [--factorise] [--bucket-decay 0]
           [--init-decay 0]
"""
import argparse
import hashlib
import json
import math
import os
import subprocess
import sys
import time

import numpy as np

from uci_engine.dataformat import numbered_records, parse_line
from uci_engine.gamerecord import is_record_file, game_positions
from uci_engine.kernels.nnue_consts import (N_FEATURES, COLOUR_STRIDE, SQ_FLIP, MAX_ACTIVE, QA,
                                            QB, OUTPUT_SCALE, ALL_PIECES, LAYOUT_PLAIN,
                                            KING_MAPS)
from uci_engine.nnue_file import (Net, save_net, load_net, ACTIVATIONS, check_architecture,
                                  check_net, input_layout_of, float_weights_path)

HERE = os.path.dirname(os.path.abspath(__file__))

WDL_SCALE = 400.0           # bullet's fixed centipawns per logit (--wdl-scale 400)
WDL_SCALE_RANGE = (50.0, 1000.0)    # bounds of the fitted scale, centipawns per logit
WDL_FIT_SAMPLE = 1_000_000  # positions the scale is fitted on (a seeded sample)
WEIGHT_CLIP = 1.98          # bullet's default clipping: 1.98 * QB = 126.7 fits the int16 checks
SCORE_CLIP = 32000          # centipawns kept in the int16 score field (mate scores saturate)
PAD = -1
RECORD_DTYPE = np.dtype([("f", "<i2", (MAX_ACTIVE,)), ("score", "<i2"), ("result", "u1"),
                         ("mirror_ok", "u1")])
FILE_MIRROR = 7             # index ^ 7 mirrors a feature's square a<->h (384 and 64 are x8)
#: the files of the kings for which a plain start grown into mirrored king buckets is exact
#: (``--widen-kings``, the module docstring); east (e-h) holds most kings
WIDEN_KINGS = ("east", "west")
KING = 5                    # piece type of the king (uci_engine.kernels.position.KING)
PIECE_OF = {c: i for i, c in enumerate("PNBRQKpnbrqk")}
CONVERT_CHUNK = 1 << 20     # positions converted per block (bounds the Python objects held)


def fen_features(fen):
    """(int list of active inputs from the side to move's perspective, stm 0/1) of a FEN:
    ``384 * (colour != stm) + 64 * type + (sq ^ 56 * stm)``."""
    fields = fen.split()
    placement, side = fields[0], fields[1]
    stm = 0 if side == "w" else 1
    feats = []
    rank, file = 7, 0
    for ch in placement:
        if ch == "/":
            rank -= 1
            file = 0
        elif ch.isdigit():
            file += int(ch)
        else:
            p = PIECE_OF[ch]
            colour, ptype = divmod(p, 6)
            sq = rank * 8 + file
            feats.append(COLOUR_STRIDE * (colour != stm) + 64 * ptype + (sq ^ (SQ_FLIP * stm)))
            file += 1
    return feats, stm


def other_perspective(f):
    """Indices of the other side's perspective from the side to move's (int array, -1 kept)."""
    return np.where(f < 0, f, ((f + COLOUR_STRIDE) % N_FEATURES) ^ SQ_FLIP)


def text_records(path):
    """``(where, Record)`` of every position of a datagen text file (where = ``path:line``).
    Raises ValueError at the first malformed line. (A game-record file is read by
    :func:`convert` through :func:`uci_engine.gamerecord.game_positions`.)"""
    for lineno, line in numbered_records(path):
        yield f"{path}:{lineno}", parse_line(line, f"{path}:{lineno}")


def _encode(block):
    """RECORD_DTYPE array of a list of ``(where, Record)``."""
    rec = np.zeros(len(block), dtype=RECORD_DTYPE)
    rec["f"] = PAD
    for i, (where, data) in enumerate(block):
        feats, stm = fen_features(data.fen)
        if len(feats) > MAX_ACTIVE:
            raise ValueError(f"{where}: position {data.fen!r}: {len(feats)} pieces, at most "
                             f"{MAX_ACTIVE}")
        rec["f"][i, :len(feats)] = feats
        rec["score"][i] = max(-SCORE_CLIP, min(SCORE_CLIP, data.stm_score))
        rec["result"][i] = round(data.stm_result * 2)
        rec["mirror_ok"][i] = data.fen.split()[2] == "-"
    return rec


def _source_digest(path, nbytes):
    """BLAKE2b (hex str) of the first ``nbytes`` bytes of the file ``path``."""
    h = hashlib.blake2b(digest_size=32)
    with open(path, "rb") as fh:
        left = nbytes
        while left > 0:
            chunk = fh.read(min(left, 1 << 24))
            if not chunk:
                break
            h.update(chunk)
            left -= len(chunk)
    return h.hexdigest()


def _sidecar(out):
    """The path of a converted record file's sidecar (``<name>.nnuebin.json``)."""
    return out[:-len(".npy")] + ".json"


def _converted_prefix(path, out, keep_noisy):
    """``(records, source_bytes)`` of a conversion of record file ``path`` that can be read on:
    ``out`` (memory-mapped, RECORD_DTYPE) holds the kept positions of the games in the first
    ``source_bytes`` bytes of ``path``, as its sidecar says, and those bytes are unchanged (their
    BLAKE2b). ``(None, 0)`` when there is none (no sidecar, another layout or filter, a shorter
    or rewritten source)."""
    try:
        with open(_sidecar(out), encoding="utf-8") as fh:
            side = json.load(fh)
        rec = np.load(out, mmap_mode="r")
        nbytes = int(side["source_bytes"])
        if (rec.dtype == RECORD_DTYPE and len(rec) == int(side["records"])
                and bool(side["keep_noisy"]) == bool(keep_noisy)
                and nbytes <= os.path.getsize(path)
                and _source_digest(path, nbytes) == side["source_blake2b"]):
            return rec, nbytes
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None, 0


def convert(path, out=None, bin_dir=None, keep_noisy=False):
    """Convert a datagen text or game-record file to the binary training file (returns its
    path): ``out``, or ``<bin_dir or the source's directory>/<name>.nnuebin.npy`` (a record
    file read with ``keep_noisy``: ``<name>.noisy.nnuebin.npy``; a missing folder is made);
    reuse an existing one of this layout (RECORD_DTYPE): for a text file one newer than
    ``path``; for a record file one whose sidecar ``<name>.nnuebin.json`` (source bytes read,
    their BLAKE2b, records, filter) covers the whole file, and after datagen appended games
    only the new games are converted and appended (``_converted_prefix``), whatever the files'
    times. Raises ValueError naming the first malformed line (text) or the byte offset of the
    first corrupt game (records). A path that is itself a converted file (``.nnuebin.npy``) is
    returned as it is, so a run can read a snapshot while datagen still appends to the source."""
    if out is None and path.endswith(".nnuebin.npy"):
        return path
    records = is_record_file(path)
    if out is None:
        noisy = ".noisy" if keep_noisy and records else ""
        out = os.path.join(bin_dir or os.path.dirname(os.path.abspath(path)),
                           os.path.basename(path) + noisy + ".nnuebin.npy")
    # A record file is judged by its conversion's sidecar (bytes read and their digest), never by
    # modification times: a copy made with plain ``cp`` (a snapshot of a file datagen appends to,
    # its conversion copied after it) has a conversion newer than its source but shorter.
    if (not records and os.path.exists(out) and os.path.getmtime(out) >= os.path.getmtime(path)
            and np.load(out, mmap_mode="r").dtype == RECORD_DTYPE):
        return out
    prefix, start = _converted_prefix(path, out, keep_noisy) if records else (None, 0)
    if prefix is not None and start == os.path.getsize(path):
        return out
    end = start                             # the source bytes converted (record files)

    def game_records():
        nonlocal end
        for game, kept in game_positions(path, keep_noisy, start):
            for data in kept:
                yield path, data
            end = game.end

    parts, block = [] if prefix is None else [prefix], []
    for item in game_records() if records else text_records(path):
        block.append(item)
        if len(block) == CONVERT_CHUNK:
            parts.append(_encode(block))
            block = []
    parts.append(_encode(block))
    rec = np.concatenate(parts)
    del parts, prefix
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    tmp = out + ".tmp.npy"
    np.save(tmp, rec)
    os.replace(tmp, out)
    if records:
        side = {"source": os.path.basename(path), "source_bytes": end,
                "source_blake2b": _source_digest(path, end), "records": len(rec),
                "keep_noisy": bool(keep_noisy)}
        with open(_sidecar(out) + ".tmp", "w", encoding="utf-8") as fh:
            json.dump(side, fh, indent=1)
        os.replace(_sidecar(out) + ".tmp", _sidecar(out))
    return out


def load_records(paths, bin_dir=None, keep_noisy=False):
    return [np.load(convert(p, bin_dir=bin_dir, keep_noisy=keep_noisy), mmap_mode="r")
            for p in paths]


# --- model ------------------------------------------------------------------------------------
def make_model(hidden, activation="screlu", output_buckets=1, king_buckets="none",
               factorise=False):
    """The float model (torch Module) of a ``(768 x K -> hidden) x 2 -> output_buckets`` net;
    ``king_buckets`` names its king map ("none": the plain layout). ``factorise`` (king buckets
    only, the module docstring) adds the 768 shared factor rows. Raises ValueError for a
    factoriser without king buckets."""
    import torch
    layout, king_map = input_layout_of(king_buckets)
    if factorise and layout == LAYOUT_PLAIN:
        raise ValueError("the factoriser needs king buckets (--king-buckets)")
    king_map = np.array(king_map, dtype=np.int64)
    n_inputs = N_FEATURES * (int(king_map.max()) + 1)
    n_rows = n_inputs + (N_FEATURES if factorise else 0)    # the factor rows follow the buckets

    class NNUE(torch.nn.Module):
        """Float model of the engine's net: ``forward(stm_idx, ntm_idx, bucket)`` (long[N, 32]
        indices of :meth:`inputs`, long[N, 64] with the factoriser; ``pad`` = padding; long[N]
        output buckets) -> raw output (float[N]); centipawns = raw * OUTPUT_SCALE. The
        embedding ``ft`` holds the ``n_inputs`` rows of the net's inputs, then with the
        factoriser the 768 factor rows, then the padding row; :meth:`ft_weights` gives the
        net's merged input weights."""

        def __init__(self):
            super().__init__()
            self.hidden = hidden
            self.activation = activation
            self.output_buckets = output_buckets
            self.king_buckets = king_buckets
            self.layout = layout
            self.king_map = king_map
            self.n_inputs = n_inputs
            self.factorised = bool(factorise)
            self.pad = n_rows
            self.ft = torch.nn.EmbeddingBag(n_rows + 1, hidden, mode="sum",
                                            padding_idx=n_rows)
            self.ft_bias = torch.nn.Parameter(torch.zeros(hidden))
            self.out = torch.nn.Linear(2 * hidden, output_buckets)
            with torch.no_grad():
                self.ft.weight.uniform_(-0.1, 0.1)
                self.ft.weight[n_inputs:].zero_()   # the factor starts at zero (bullet)
                self.ft_bias.fill_(0.1)

        def ft_weights(self):
            """The net's input weights (float tensor[n_inputs, H], detached): each bucket's
            rows plus the factor rows when factorised (what :func:`quantise` writes)."""
            w = self.ft.weight.detach()
            if not self.factorised:
                return w[:n_inputs].clone()
            blocks = w[:n_inputs].reshape(-1, N_FEATURES, hidden)
            return (blocks + w[n_inputs:n_rows]).reshape(n_inputs, hidden)

        def factor_weights(self):
            """The shared factor rows (float tensor[768, H], detached) of a factorised model,
            None for another."""
            if not self.factorised:
                return None
            return self.ft.weight.detach()[n_inputs:n_rows].clone()

        def set_ft_weights(self, w, factor=None):
            """Set the net's input weights to ``w`` (float tensor[n_inputs, H]), so that
            :meth:`ft_weights` returns ``w``: the factor rows take ``factor`` (float
            tensor[768, H]; factorised models only) or zeros, the bucket rows the rest."""
            with torch.no_grad():
                self.ft.weight[n_inputs:].zero_()
                if factor is None:
                    self.ft.weight[:n_inputs] = w.to(self.ft.weight.dtype)
                    return
                f = factor.to(self.ft.weight.dtype)
                self.ft.weight[n_inputs:n_rows] = f
                self.ft.weight[:n_inputs] = (w.to(f.dtype).reshape(-1, N_FEATURES, hidden)
                                             - f).reshape(n_inputs, hidden)

        def decay_buckets(self, rate):
            """Shrink the bucket rows of a factorised model by the factor ``1 - rate``
            (decoupled weight decay, AdamW's form, on what each bucket adds to the factor)."""
            with torch.no_grad():
                self.ft.weight[:n_inputs].mul_(1.0 - rate)

        def inputs(self, f):
            """Input indices (int64[N, 32], -1 padded) of plain 768-layout indices ``f`` of one
            perspective: unchanged without king buckets; else ``768 * bucket + (f ^ 7 *
            mirrored)`` with the bucket and mirror of that perspective's own king (its
            feature is ``64 * KING + square``, the first block of 384). With the factoriser
            (int64[N, 64]) each input's factor row ``n_inputs + (f ^ 7 * mirrored)`` follows."""
            if layout == LAYOUT_PLAIN:
                return f
            own_king = (f >= 64 * KING) & (f < 64 * KING + 64)
            ksq = np.where(own_king, f - 64 * KING, -1).max(axis=1)
            flip = np.where((ksq & 7) >= 4, 7, 0)
            base = N_FEATURES * self.king_map[ksq]
            g = np.where(f < 0, f, base[:, None] + (f ^ flip[:, None]))
            if not self.factorised:
                return g
            return np.concatenate([g, np.where(g < 0, g, n_inputs + g % N_FEATURES)], axis=1)

        def buckets(self, f):
            """Output bucket (int64[N]) of each row of indices ``f``: (pieces - 2) //
            ceil(32 / B)."""
            pieces = (f >= 0).sum(axis=1)
            width = -(-ALL_PIECES // output_buckets)
            return np.clip((pieces - 2) // width, 0, output_buckets - 1)

        def act(self, x):
            x = x.clamp(0.0, 1.0)
            return x * x if self.activation == "screlu" else x

        def forward(self, stm_idx, ntm_idx, bucket):
            a = self.act(self.ft(stm_idx) + self.ft_bias)
            b = self.act(self.ft(ntm_idx) + self.ft_bias)
            y = self.out(torch.cat([a, b], dim=1))
            return y.gather(1, bucket.unsqueeze(1)).squeeze(1)

        def clip(self):
            """Clip every weight to what the net file can hold; factorised, the factor rows
            and each bucket's merged rows (:meth:`ft_weights`) to +-WEIGHT_CLIP."""
            with torch.no_grad():
                self.ft.weight.clamp_(-WEIGHT_CLIP, WEIGHT_CLIP)
                self.ft.weight[n_rows].zero_()
                if self.factorised:
                    factor = self.ft.weight[n_inputs:n_rows]
                    blocks = self.ft.weight[:n_inputs].view(-1, N_FEATURES, hidden)
                    blocks.copy_((blocks + factor).clamp(-WEIGHT_CLIP, WEIGHT_CLIP) - factor)
                self.ft_bias.clamp_(-WEIGHT_CLIP, WEIGHT_CLIP)
                lim = out_clip(hidden, activation)
                self.out.weight.clamp_(-lim, lim)
                self.out.bias.clamp_(-WEIGHT_CLIP, WEIGHT_CLIP)

    return NNUE()


def out_clip(hidden, activation):
    """Output-weight clip (float): 1.98, tightened so per-perspective int32 sums cannot overflow
    (``H * QA^2 * QB * clip < 2^31`` for SCReLU)."""
    act_max = QA * QA if activation == "screlu" else QA
    return min(WEIGHT_CLIP, 0.999 * (2**31 - 1) / (hidden * act_max * QB))


def batch_tensors(rec, idx, mirror_rng=None, model=None):
    """(stm long[N, 32], ntm long[N, 32], bucket long[N], score float[N], result float[N]) for
    rows ``idx``: ``model``'s input indices (:meth:`inputs`: long[N, 64] with the factoriser;
    the plain layout without a model) with ``model.pad`` (768 without a model) as padding, and
    output buckets. With ``mirror_rng`` (numpy Generator), each row whose ``mirror_ok`` is
    set is mirrored a<->h (indices ``^ FILE_MIRROR``) with probability 1/2 (a no-op for the
    king-bucketed layout, which mirrors by itself)."""
    import torch
    r = rec[np.sort(idx)]
    f = r["f"].astype(np.int64)
    if mirror_rng is not None:
        flip = (r["mirror_ok"] == 1) & (mirror_rng.random(len(r)) < 0.5)
        f[flip] = np.where(f[flip] < 0, f[flip], f[flip] ^ FILE_MIRROR)
    g = other_perspective(f)
    pad = N_FEATURES if model is None else model.pad
    bucket = np.zeros(len(r), dtype=np.int64) if model is None else model.buckets(f)
    if model is not None:
        f, g = model.inputs(f), model.inputs(g)
    f[f < 0] = pad
    g[g < 0] = pad
    return (torch.from_numpy(f), torch.from_numpy(g), torch.from_numpy(bucket),
            torch.from_numpy(r["score"].astype(np.float32)),
            torch.from_numpy(r["result"].astype(np.float32) / 2.0))


def loss_fn(model, batch, lam, wdl_scale=WDL_SCALE):
    import torch
    stm, ntm, bucket, score, result = batch
    pred = torch.sigmoid(model(stm, ntm, bucket) * OUTPUT_SCALE / wdl_scale)
    target = lam * result + (1.0 - lam) * torch.sigmoid(score / wdl_scale)
    return torch.mean((pred - target) ** 2)


def fit_wdl_scale(rec, idx, seed=0):
    """The scale S (float, centipawns per logit) minimising the mean squared error between
    ``sigmoid(score / S)`` and the game results (0, 0.5, 1) of records ``idx`` (at most
    WDL_FIT_SAMPLE of them, a seeded sample), bounded to WDL_SCALE_RANGE."""
    from scipy.optimize import minimize_scalar
    if len(idx) > WDL_FIT_SAMPLE:
        idx = np.random.default_rng(seed).choice(idx, WDL_FIT_SAMPLE, replace=False)
    r = rec[np.sort(idx)]
    score = r["score"].astype(np.float64)
    result = r["result"].astype(np.float64) / 2.0

    def mse(s):
        return float(np.mean((1.0 / (1.0 + np.exp(-score / s)) - result) ** 2))

    return float(minimize_scalar(mse, bounds=WDL_SCALE_RANGE, method="bounded").x)


def quantise(model, qb=QB):
    """The model's weights as a :class:`Net` (int16, bullet's quantisation: the first layer by
    QA, the output weights by ``qb``, its biases by QA * ``qb``; the file's header carries
    ``qb``, which the engine reads). Raises ValueError if the weights could overflow the
    engine's integer arithmetic (nnue_file.check_net; :func:`largest_qb` finds a ``qb`` that
    fits)."""
    w_ft = model.ft_weights().numpy()
    b_ft = model.ft_bias.detach().numpy()
    w_out = model.out.weight.detach().numpy().reshape(2 * model.output_buckets, model.hidden)
    b_out = [int(round(float(b) * QA * qb)) for b in model.out.bias.detach().numpy()]

    def q(x, s):
        x = np.round(np.asarray(x, dtype=np.float64) * s)
        if np.abs(x).max(initial=0) > 32767:
            raise ValueError(f"weights of up to {np.abs(x).max():.0f} steps do not fit int16")
        return x.astype(np.int16)

    return Net(w_ft=q(w_ft, QA), b_ft=q(b_ft, QA), w_out=q(w_out, qb),
               b_out=b_out[0] if model.output_buckets == 1 else b_out, qb=qb,
               activation=ACTIVATIONS[model.activation],
               layout=model.layout,
               king_map=tuple(int(x) for x in model.king_map))


def largest_qb(model):
    """The largest output quantisation QB (int) with which :func:`quantise` gives a net the
    engine accepts (nnue_file.check_net: ``QA * |w_out|`` fits int16, the output sums int32,
    the output biases int16). The output layer's rounding is most of what quantisation costs
    in held-out loss (docs/nets.md, "What the quantisation costs"), and a larger QB makes its
    steps finer at no cost in speed. Raises ValueError if not even QB = 1 fits."""
    w = float(model.out.weight.detach().abs().max())
    b = float(model.out.bias.detach().abs().max())
    qb = 32767
    if w > 0:       # round(|w| * qb) <= 32767 // QA
        qb = min(qb, int(((32767 // QA) + 0.5) / w))
    if b > 0:       # round(|b| * QA * qb) <= 32767
        qb = min(qb, int(32767.5 / (QA * b)))
    for q in range(max(qb, 1), 0, -1):
        try:
            check_net(quantise(model, q))
            return q
        except ValueError:
            continue
    raise ValueError("the output layer fits no QB")


def _set_rounded(model, weights, qb=None, first_layer=False):
    """Load ``weights`` (float64 tensors ``w_ft, b_ft, w_out, b_out``) into ``model`` (its
    factor rows, if any, set to zero), the first layer rounded to multiples of 1/QA when
    ``first_layer``, the output weights to 1/``qb`` and its biases to 1/(QA * ``qb``) unless
    ``qb`` is None."""
    import torch
    w_ft, b_ft, w_out, b_out = weights

    def r(x, s):
        return x if s is None else torch.round(x * s) / s

    qa = QA if first_layer else None
    with torch.no_grad():
        model.set_ft_weights(r(w_ft, qa).float(), None)
        model.ft_bias.copy_(r(b_ft, qa))
        model.out.weight.copy_(r(w_out, qb))
        model.out.bias.copy_(r(b_out, None if qb is None else QA * qb))


def quant_losses(model, rec, idx, qbs, lam=0.0, wdl_scale=WDL_SCALE, batch=16384):
    """What the int16 quantisation costs in held-out loss: ``{label: loss}`` on rows ``idx``
    of ``rec`` for the float weights (``float``), the first layer rounded to 1/QA alone, and for
    each QB in ``qbs`` the output layer rounded alone and both layers (the net file's rounding,
    :func:`quantise`). ``model`` ends holding its float weights merged (factor rows zero), so
    call it after the float weights are saved."""
    weights = tuple(x.detach().clone().double() for x in
                    (model.ft_weights(), model.ft_bias, model.out.weight, model.out.bias))
    model.eval()
    out = {}

    def run(label, qb, first_layer):
        _set_rounded(model, weights, qb, first_layer)
        out[label] = evaluate_loss(model, rec, idx, lam, batch, wdl_scale)

    run("float", None, False)
    run(f"first layer /{QA}", None, True)
    for qb in qbs:
        run(f"output /{qb}", qb, False)
        run(f"both /{QA}, /{qb}", qb, True)
    _set_rounded(model, weights)
    return out


def _architecture_of(model):
    return {"hidden": int(model.hidden), "activation": model.activation,
            "output_buckets": int(model.output_buckets), "king_buckets": model.king_buckets}


def save_float_weights(model, path):
    """Write the model's float weights to ``path`` (a compressed ``.npz``): ``w_ft``
    float16[n_inputs, H] (the net's input weights, :meth:`ft_weights`: factor rows merged,
    padding left out), ``b_ft`` float16[H], ``w_out``
    float16[B, 2H], ``b_out`` float16[B], and ``architecture``, a JSON string of hidden,
    activation, output_buckets and king_buckets; a factorised model adds ``w_factor``
    float16[768, H], its factor rows, so that a run that goes on with ``--factorise`` starts
    with the same split between factor and buckets (``--bucket-decay`` shrinks the buckets
    towards that factor, not towards zero). float16 keeps 11 bits of mantissa: finer than
    the net file's 1/QA steps for every weight of magnitude under 4 (the clip is 1.98)."""
    def f16(t):
        return t.detach().numpy().astype(np.float16)

    tmp = path + ".tmp.npz"
    extra = {}
    if model.factorised:
        extra["w_factor"] = f16(model.factor_weights())
    np.savez_compressed(tmp, w_ft=f16(model.ft_weights()), b_ft=f16(model.ft_bias),
                        w_out=f16(model.out.weight), b_out=f16(model.out.bias),
                        architecture=np.array(json.dumps(_architecture_of(model))), **extra)
    os.replace(tmp, path)


def widen_weights(model, w_ft, b_ft, w_out, src_hidden, src_plain):
    """The float weights of a smaller start grown to ``model``'s size (``--widen``, the module
    docstring): ``w_ft`` float[768 x K0, H0], ``b_ft`` float[H0] and ``w_out`` float[B, 2 H0]
    of a start with ``src_hidden`` = H0 neurons, of the plain layout when ``src_plain`` (K0 = 1)
    or else of the model's own king-bucket map. Returns ``(w_ft, b_ft, w_out)`` of the model's
    shapes, float64: neurons H0.. keep the model's current (fresh random) input weights and
    biases, with zero output weights."""
    H0, H = src_hidden, model.hidden
    if src_plain and model.layout != LAYOUT_PLAIN:
        w_ft = np.tile(w_ft, (model.n_inputs // N_FEATURES, 1))     # the same rows a bucket
    ft = model.ft_weights().numpy().astype(np.float64)
    ft[:, :H0] = w_ft
    bias = model.ft_bias.detach().numpy().astype(np.float64)
    bias[:H0] = b_ft
    out = np.zeros((w_out.shape[0], 2 * H))
    out[:, :H0] = w_out[:, :H0]             # the side to move's half
    out[:, H:H + H0] = w_out[:, H0:]        # the other side's half
    return ft, bias, out


def init_weights(model, path, widen=False, widen_kings="east"):
    """Set ``model``'s float weights from ``path``: a float-weights file of
    :func:`save_float_weights`, or a quantised net file (``.nnue``; ``w_ft`` and ``b_ft``
    divided by QA, ``w_out`` by QB, the output biases by QA * QB, the inverse of
    :func:`quantise`). With ``widen``, a smaller start of the plain layout or the model's
    king-bucket map is grown to the model (:func:`widen_weights`); a plain start grown into
    king buckets is copied in the orientation exact for kings on the files ``widen_kings``
    names (``east``: its rows mirrored a<->h; ``west``: as they are; the module docstring).
    A factorised model started from a float-weights file of the same architecture that holds
    ``w_factor`` takes that factor and the rest in its bucket rows (the same merged weights);
    from any other start the bucket rows take the weights and the factor starts at zero.
    Returns a dict naming the file, its SHA-256 and its kind (and ``widened_from``, the start's
    architecture, and ``widen_kings`` when it was grown), for the record. Raises ValueError
    when the file's architecture differs from the model's (with ``widen``: when it cannot be
    grown to it) or ``widen_kings`` is not one of :data:`WIDEN_KINGS`, and OSError or
    ValueError for a file that cannot be read."""
    import hashlib
    import torch
    with open(path, "rb") as fh:
        sha = hashlib.sha256(fh.read()).hexdigest()
    want = _architecture_of(model)
    saved_factor = None         # a factorised run's own factor rows (float-weights files only)
    if path.endswith(".nnue"):
        net = load_net(path)
        same_inputs = (net.layout == model.layout
                       and tuple(net.king_map) == tuple(int(x) for x in model.king_map))
        have = {"hidden": net.hidden, "output_buckets": net.output_buckets,
                "activation": {v: k for k, v in ACTIVATIONS.items()}.get(net.activation),
                "king_buckets": (model.king_buckets if same_inputs
                                 else "none" if net.layout == LAYOUT_PLAIN
                                 else net.architecture())}
        w_ft = net.w_ft.astype(np.float64) / net.qa
        b_ft = net.b_ft.astype(np.float64) / net.qa
        w_out = net.w_out.astype(np.float64).reshape(net.output_buckets, 2 * net.hidden) / net.qb
        b_out = np.array(net.out_biases, dtype=np.float64) / (net.qa * net.qb)
        kind = "net"
    else:
        with np.load(path, allow_pickle=False) as z:
            have = json.loads(str(z["architecture"]))
            w_ft, b_ft, w_out, b_out = (z[k].astype(np.float64)
                                        for k in ("w_ft", "b_ft", "w_out", "b_out"))
            saved_factor = z["w_factor"].astype(np.float64) if "w_factor" in z else None
        kind = "float16 weights"
    src_plain = have.get("king_buckets") == "none"
    into_buckets = src_plain and model.layout != LAYOUT_PLAIN   # plain rows copied per bucket
    widened = None
    factor = None
    if widen and have != want:
        growable = (have["activation"] == want["activation"]
                    and have["output_buckets"] == want["output_buckets"]
                    and have["hidden"] <= want["hidden"]
                    and (src_plain or have["king_buckets"] == want["king_buckets"]))
        if not growable:
            raise ValueError(f"{path}: architecture {have} cannot be grown to {want} (the same "
                             "activation and output buckets, no more hidden neurons, the plain "
                             "layout or the same king buckets)")
        if widen_kings not in WIDEN_KINGS:
            raise ValueError(f"widen_kings {widen_kings!r}: one of {WIDEN_KINGS}")
        if into_buckets and widen_kings == "east":
            w_ft = w_ft[np.arange(N_FEATURES) ^ FILE_MIRROR]    # exact for kings on files e-h
        if src_plain and model.factorised:
            # the plain rows are what every bucket shares: they go into the factor
            factor = np.zeros((N_FEATURES, model.hidden))
            factor[:, :have["hidden"]] = w_ft
        w_ft, b_ft, w_out = widen_weights(model, w_ft, b_ft, w_out, have["hidden"], src_plain)
        widened = have
    elif have != want:
        raise ValueError(f"{path}: architecture {have} is not the one being trained {want}")
    elif model.factorised and saved_factor is not None:
        factor = saved_factor
    with torch.no_grad():
        model.set_ft_weights(torch.from_numpy(w_ft),
                             None if factor is None else torch.from_numpy(factor))
        model.ft_bias.copy_(torch.from_numpy(b_ft))
        model.out.weight.copy_(torch.from_numpy(w_out))
        model.out.bias.copy_(torch.from_numpy(b_out))
    started = {"path": os.path.abspath(path), "sha256": sha, "kind": kind}
    if widened is not None:
        started["widened_from"] = widened
        if into_buckets:
            started["widen_kings"] = widen_kings
    return started


def evaluate_loss(model, rec, idx, lam, batch, wdl_scale=WDL_SCALE):
    import torch
    total, n = 0.0, 0
    with torch.no_grad():
        for s in range(0, len(idx), batch):
            part = idx[s:s + batch]
            total += float(loss_fn(model, batch_tensors(rec, part, model=model), lam,
                                   wdl_scale)) * len(part)
            n += len(part)
    return total / max(n, 1)


def _commit():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, text=True,
                              capture_output=True, timeout=10).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def data_provenance(paths):
    """What made each data file (list of dicts, one a file): its datagen sidecar's kept
    positions, finished games, evaluating net (SHA-256), nodes, seed, engine commit and command;
    ``{"data": path, "sidecar": None}`` for a file without one."""
    out = []
    for path in paths:
        try:
            with open(path + ".json", encoding="utf-8") as fh:
                side = json.load(fh)
        except (OSError, ValueError):
            out.append({"data": os.path.abspath(path), "sidecar": None})
            continue
        games = sum(b - a + 1 for a, b in side.get("done", []))
        out.append({"data": os.path.abspath(path), "positions": side.get("positions"),
                    "games": games, "net_sha256": side.get("net_sha256"),
                    "nodes": side.get("nodes"), "seed": side.get("seed"),
                    "format": side.get("format"), "commit": side.get("commit"),
                    "command": side.get("command")})
    return out


class StartPull:
    """Decoupled L2-SP (Li, Grandvalet and Davoine, ICML 2018; the module docstring): holds a
    copy of every parameter of ``model`` as it stands now (the start), and each call
    ``pull(rate)`` moves every parameter that fraction of the way back to it,
    ``p += min(1, rate) * (p0 - p)`` (``rate`` 0 leaves it, 1 or more restores the start
    exactly). Memory: one more copy of the model's float32 weights (7.1 MB for (768x8 -> 256)x2
    -> 8 factorised)."""

    def __init__(self, model):
        self.pairs = [(p, p.detach().clone()) for p in model.parameters()]

    def __call__(self, rate):
        import torch
        w = min(1.0, float(rate))
        if w <= 0.0:
            return
        with torch.no_grad():
            for p, p0 in self.pairs:
                p.lerp_(p0, w)


def train(data, out, hidden=128, epochs=10, batch=16384, lr=1e-3, lam=0.5, val=0.02,
          activation="screlu", seed=0, threads=1, resume=False, progress=True, bin_dir=None,
          wdl_scale=None, mirror=False, keep_noisy=False, output_buckets=1, king_buckets="none",
          init=None, widen=False, factorise=False, bucket_decay=0.0, widen_kings="east",
          init_decay=0.0, qb=QB, quant_qbs=()):
    """Train and write ``out`` (net file) and ``out + '.json'`` (record). Returns
    (model, record dict). ``wdl_scale``: centipawns per logit of the loss's sigmoids, or None
    to fit it to the training positions (:func:`fit_wdl_scale`). ``mirror``: the a<->h
    augmentation of positions without castling rights (module docstring). ``keep_noisy``:
    game-record files also give positions whose best move is noisy. ``output_buckets`` and
    ``king_buckets`` (a name of ``nnue_consts.KING_MAPS`` or "none"): the architecture.
    ``init``: a float-weights or net file the model starts from (:func:`init_weights`; ignored
    when ``resume`` finds a checkpoint); ``widen``: it may be a smaller net, grown to this one
    (:func:`widen_weights`), a plain one into king buckets exact for kings on the files
    ``widen_kings`` names (:func:`init_weights`); ``factorise``: train king buckets with the
    shared factor rows (module docstring; raises ValueError without king buckets);
    ``bucket_decay``: the decoupled weight decay of its bucket rows (a factorised model only;
    ValueError otherwise); ``init_decay``: the pull of every weight towards its start, a
    fraction ``min(1, lr * init_decay)`` of the distance after each step (:class:`StartPull`;
    ValueError without ``init``); ``qb``: the net file's output quantisation, an int or "max"
    (:func:`largest_qb`); ``quant_qbs``: QB values for the record's ``quant_loss``, what the
    rounding costs on the held-out positions (:func:`quant_losses`; none by default). Also
    writes the float weights (:func:`uci_engine.nnue_file.float_weights_path`)."""
    import torch
    from tqdm import tqdm
    # an architecture the engine cannot run fails here, not after the training
    layout, king_map = input_layout_of(king_buckets)
    check_architecture(layout, output_buckets, king_map)
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    model = make_model(hidden, activation, output_buckets, king_buckets, factorise)
    if bucket_decay and not model.factorised:
        raise ValueError("bucket decay needs the factoriser (--factorise)")
    # a start the architecture refuses fails here too, before the data is converted
    started_from = init_weights(model, init, widen, widen_kings) if init else None
    if init_decay and not started_from:
        raise ValueError("init decay needs a start (--init)")
    pull = StartPull(model) if init_decay else None
    # the checkpoint after the first epoch would fail on a missing folder: make it first
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    recs = load_records(data, bin_dir, keep_noisy)
    rec = np.concatenate([np.asarray(r) for r in recs]) if len(recs) > 1 else recs[0]
    n = len(rec)
    rng = np.random.default_rng(seed)
    n_val = int(round(n * val))
    train_idx, val_idx = np.arange(n - n_val), np.arange(n - n_val, n)   # tail: later games
    if len(train_idx) == 0:
        raise ValueError("no training positions")
    fitted = wdl_scale is None
    if fitted:
        wdl_scale = fit_wdl_scale(rec, train_idx, seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    steps_per_epoch = math.ceil(len(train_idx) / batch)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs * steps_per_epoch,
                                                       eta_min=lr * 0.01)
    # the start's own loss on the held-out games: what the training must beat (a fine-tuned
    # candidate against its parent, docs/campaign.md)
    init_val = None
    if started_from and n_val:
        model.eval()
        init_val = evaluate_loss(model, rec, val_idx, lam, batch, wdl_scale)
    ckpt = out + ".ckpt"
    first_epoch = 0
    history = []
    if resume and os.path.exists(ckpt):
        state = torch.load(ckpt)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        sched.load_state_dict(state["sched"])
        first_epoch, history = state["epoch"], state["history"]
    for epoch in range(first_epoch, epochs):
        model.train()
        order = rng.permutation(train_idx)
        bar = tqdm(range(steps_per_epoch), desc=f"epoch {epoch + 1}/{epochs}",
                   disable=not progress, unit="batch", mininterval=1.0)
        t0 = time.monotonic()
        seen, running = 0, 0.0
        for step in bar:
            part = order[step * batch:(step + 1) * batch]
            loss = loss_fn(model, batch_tensors(rec, part, rng if mirror else None, model),
                           lam, wdl_scale)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if bucket_decay:
                model.decay_buckets(sched.get_last_lr()[0] * bucket_decay)
            if pull is not None:
                pull(sched.get_last_lr()[0] * init_decay)
            sched.step()
            model.clip()
            seen += len(part)
            running += float(loss.detach()) * len(part)
            bar.set_postfix(loss=f"{running / seen:.5f}",
                            pos_s=f"{seen / max(time.monotonic() - t0, 1e-9):.0f}")
        model.eval()
        v = evaluate_loss(model, rec, val_idx, lam, batch, wdl_scale) if n_val else None
        history.append({"epoch": epoch + 1, "train_loss": running / seen, "val_loss": v,
                        "lr": sched.get_last_lr()[0],
                        "pos_per_s": seen / max(time.monotonic() - t0, 1e-9)})
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(),
                    "sched": sched.state_dict(), "epoch": epoch + 1, "history": history}, ckpt)
    # the largest QB the engine accepts, found once: the net file's with "max", the record's
    # with quant_qbs (the float weights are the same for both)
    best_qb = largest_qb(model) if qb == "max" or quant_qbs else None
    net = quantise(model, best_qb if qb == "max" else int(qb))
    save_net(out, net)
    save_float_weights(model, float_weights_path(out))
    record = {"data": [os.path.abspath(p) for p in data], "positions": n,
              "sources": data_provenance(data),
              "train_positions": int(len(train_idx)), "val_positions": int(n_val),
              "hidden": hidden, "activation": activation, "output_buckets": output_buckets,
              "king_buckets": king_buckets, "factorised": bool(factorise),
              "bucket_decay": bucket_decay, "init_decay": init_decay,
              "architecture": net.architecture(),
              "lambda": lam, "epochs": epochs,
              "batch": batch, "lr": lr, "schedule": "cosine to lr/100", "seed": seed,
              "wdl_scale": wdl_scale, "wdl_scale_fitted": fitted, "mirror": bool(mirror),
              "init": started_from, "init_val_loss": init_val,
              "float_weights": os.path.abspath(float_weights_path(out)),
              "qa": QA, "qb": int(net.qb), "scale": OUTPUT_SCALE,
              "history": history, "commit": _commit(), "net": os.path.abspath(out),
              "command": " ".join([os.path.basename(sys.argv[0])] + sys.argv[1:])}
    if quant_qbs and n_val:
        record["quant_loss"] = quant_losses(model, rec, val_idx, quant_qbs, lam, wdl_scale,
                                            batch)
        record["largest_qb"] = best_qb
    with open(out + ".json", "w") as fh:
        json.dump(record, fh, indent=1)
    return model, record


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    ap.add_argument("data", nargs="+",
                    help="datagen text files (FEN | score | result) or game-record files")
    ap.add_argument("--out", required=True, help="net file to write (.nnue)")
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--output-buckets", type=int, default=1,
                    help="output buckets by piece count (1..8; bullet's MaterialCount)")
    ap.add_argument("--king-buckets", choices=["none"] + sorted(KING_MAPS), default="none",
                    help="king-bucket map of the inputs (mirrored a<->h), or none")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--batch", type=int, default=16384)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--lambda", dest="lam", type=float, default=0.5,
                    help="weight of the game result in the target (0 = score only)")
    ap.add_argument("--val", type=float, default=0.02,
                    help="validation fraction, held out from the end of the data (later games)")
    ap.add_argument("--activation", choices=sorted(ACTIVATIONS), default="screlu")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    ap.add_argument("--resume", action="store_true", help="continue from OUT.ckpt")
    ap.add_argument("--bin-dir", help="where the binary records go (default: next to the data)")
    ap.add_argument("--wdl-scale", default="fit",
                    help="centipawns per logit of the loss's sigmoids, or 'fit' (default): "
                         "fitted to the data's scores and results; 400 is bullet's")
    ap.add_argument("--mirror", action="store_true",
                    help="mirror positions without castling rights a<->h at random (augmentation)")
    ap.add_argument("--keep-noisy", action="store_true",
                    help="game-record files: also positions whose best move is a capture or "
                         "promotion (text files hold what datagen kept)")
    ap.add_argument("--init", help="start from these weights: a float-weights file (.f16.npz, "
                                   "written beside every net) or a net file (.nnue)")
    ap.add_argument("--widen", action="store_true",
                    help="--init may be a smaller net (fewer hidden neurons, or the plain "
                         "layout where king buckets are asked for): grow it to this one")
    ap.add_argument("--widen-kings", choices=WIDEN_KINGS, default="east",
                    help="--widen of a plain start into king buckets: exact for kings on files "
                         "e-h (east, where most stand) or a-d (west)")
    ap.add_argument("--factorise", action="store_true",
                    help="with --king-buckets: train shared factor rows beside the buckets, "
                         "merged into every bucket in the net file")
    ap.add_argument("--bucket-decay", type=float, default=0.0,
                    help="with --factorise: decoupled weight decay of the bucket rows (each "
                         "step shrinks them by lr * this), pulling the net towards its factor")
    ap.add_argument("--init-decay", type=float, default=0.0,
                    help="with --init: pull every weight towards its start by lr * this of the "
                         "distance each step (L2-SP, decoupled)")
    ap.add_argument("--qb", default=str(QB),
                    help=f"output quantisation of the net file: an integer ({QB}, bullet's) or "
                         "'max', the largest the engine's integers allow (finer output steps)")
    ap.add_argument("--quant-loss", default="",
                    help="comma-separated QB values: print what rounding the weights costs in "
                         "held-out loss, by layer (with --epochs 0 --init F.f16.npz: F's)")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    try:
        quant_qbs = [int(x) for x in args.quant_loss.split(",") if x.strip()]
    except ValueError:
        ap.error(f"--quant-loss {args.quant_loss!r}: comma-separated integers")
    if args.qb != "max" and not (args.qb.isdigit() and 1 <= int(args.qb) <= 32767):
        ap.error(f"--qb {args.qb!r}: an integer 1..32767 or 'max'")
    if args.bucket_decay and not args.factorise:
        ap.error("--bucket-decay needs --factorise")
    if args.factorise and args.king_buckets == "none":
        ap.error("--factorise needs --king-buckets")
    if args.widen and not args.init:
        ap.error("--widen needs --init")
    if args.init_decay and not args.init:
        ap.error("--init-decay needs --init")
    wdl_scale = None if args.wdl_scale == "fit" else float(args.wdl_scale)
    _, record = train(args.data, args.out, args.hidden, args.epochs, args.batch, args.lr,
                      args.lam, args.val, args.activation, args.seed, args.threads, args.resume,
                      progress=not args.no_progress, bin_dir=args.bin_dir, wdl_scale=wdl_scale,
                      mirror=args.mirror, keep_noisy=args.keep_noisy,
                      output_buckets=args.output_buckets, king_buckets=args.king_buckets,
                      init=args.init, widen=args.widen, factorise=args.factorise,
                      bucket_decay=args.bucket_decay, widen_kings=args.widen_kings,
                      init_decay=args.init_decay, qb=args.qb, quant_qbs=quant_qbs)
    line = f"wrote {args.out}"
    if record["history"]:
        last = record["history"][-1]
        line += f": train loss {last['train_loss']:.5f}, val loss {last['val_loss']}"
    if record["init_val_loss"] is not None:
        line += f"; the start's val loss {record['init_val_loss']}"
    print(line)
    if "quant_loss" in record:
        base = record["quant_loss"]["float"]
        print(f"held-out loss by rounding ({record['val_positions']:,} positions):")
        for label, loss in record["quant_loss"].items():
            print(f"  {label:<22} {loss:.7f}  {loss - base:+.7f}")
        print(f"  largest QB that fits: {record['largest_qb']}")


if __name__ == "__main__":
    main()
