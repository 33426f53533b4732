"""Polyglot opening books (plain Python, through python-chess's ``chess.polyglot``).

What the UCI options ``OwnBook`` and ``BookFile`` drive: when ``OwnBook`` is on and the book
has the position, ``go`` answers at once with a move drawn at random in proportion to the
book's weights (``MemoryMappedReader.weighted_choice``; format: chessprogramming wiki
"PolyGlot", 16-byte big-endian entries sorted by Zobrist key). python-chess is imported lazily;
without it :meth:`Book.load` raises :class:`BookError` with an install hint.
"""
import os
import random

#: bytes per polyglot entry: key u64, move u16, weight u16, learn u32 (all big-endian).
ENTRY_BYTES = 16


class BookError(ValueError):
    """A ``BookFile`` that cannot be used (message suitable for ``info string error:``)."""


def _check_polyglot(path):
    """Raise :class:`BookError` unless ``path`` looks like a polyglot book: a non-empty whole
    number of 16-byte entries whose keys are sorted (the readers binary-search them)."""
    import numpy as np
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise BookError(f"BookFile: cannot read {path!r}: {exc.strerror or exc}") from None
    if size == 0 or size % ENTRY_BYTES:
        raise BookError(f"BookFile: {path!r} is not a polyglot book "
                        f"(size {size} is not a positive multiple of {ENTRY_BYTES} bytes)")
    keys = np.frombuffer(data, dtype=">u8")[::ENTRY_BYTES // 8]
    if np.any(keys[1:] < keys[:-1]):
        raise BookError(f"BookFile: {path!r} is not a polyglot book (entries not sorted by key)")


class Book:
    """The loaded polyglot book (or none). ``rng`` is the random source of the weighted choice
    (a ``random.Random``; seed it for reproducible games)."""

    def __init__(self, rng=None):
        self._reader = None
        self.path = ""
        self.entries = 0
        self.rng = rng or random.Random()

    @property
    def loaded(self):
        return self._reader is not None

    def load(self, path):
        """Open the book at ``path`` (``""`` or ``"<empty>"`` closes it). Returns the number of
        entries. Raises :class:`BookError` (python-chess missing, unreadable file, not a
        polyglot book); the book opened before stays in use."""
        path = path.strip()
        if path in ("", "<empty>"):
            self.close()
            return 0
        try:
            import chess.polyglot
        except ImportError:
            raise BookError("BookFile needs python-chess (pip install chess)") from None
        if not os.path.isfile(path):
            raise BookError(f"BookFile: no such file {path!r}")
        _check_polyglot(path)
        try:
            reader = chess.polyglot.open_reader(path)
        except (OSError, ValueError) as exc:
            raise BookError(f"BookFile: cannot open {path!r}: {exc}") from None
        self.close()
        self._reader = reader
        self.path = path
        self.entries = len(reader)
        return self.entries

    def close(self):
        if self._reader is not None:
            self._reader.close()
        self._reader = None
        self.path = ""
        self.entries = 0

    def probe(self, fen, chess960=False):
        """A book move for ``fen``: ``(move_uci, ponder_uci_or_None)`` or None when the book
        has no entry. The move is a weighted random choice; the ponder move is the heaviest
        book reply, if any. Castling is written king-to-g/c-file, or king-takes-rook when
        ``chess960``."""
        if self._reader is None:
            return None
        import chess
        board = chess.Board(fen, chess960=chess960)
        try:
            entry = self._reader.weighted_choice(board, random=self.rng)
        except IndexError:
            return None
        move = entry.move
        if move not in board.legal_moves:
            return None
        text = board.uci(move)
        board.push(move)
        ponder = None
        try:
            reply = self._reader.find(board).move
            if reply in board.legal_moves:
                ponder = board.uci(reply)
        except IndexError:
            pass
        return text, ponder
