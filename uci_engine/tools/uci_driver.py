"""A UCI engine as a subprocess seen line by line: the raw protocol view.

For what python-chess's ``chess.engine`` hides or refuses: exact replies and their timing
(``uciok`` and ``readyok`` after launch), engine-specific commands (``go perft``, ``d``),
malformed input. Ordinary GUI-style traffic (positions, searches, options) should go through
``chess.engine.SimpleEngine`` instead.

A reader thread per pipe moves the engine's stdout lines into a queue, so every read can have a
timeout; every stdout line read is kept in :attr:`UciPipe.log` (and stderr, when piped, in
:attr:`UciPipe.stderr`).
"""
import queue
import shutil
import subprocess
import sys
import threading
import time
from typing import Callable, Iterator

#: seconds a single read waits by default (a warm engine answers in milliseconds)
READ_TIMEOUT = 10.0
#: seconds to wait for the engine to exit after ``quit`` before killing it
QUIT_TIMEOUT = 10.0
#: seconds to wait for the exit status once stdout has closed (for the EOFError message)
EXIT_WAIT = 1.0


def engine_cmd() -> list[str]:
    """Our engine's command line: the installed ``uci-engine`` console script, else
    ``python -m uci_engine`` with this interpreter."""
    exe = shutil.which("uci-engine")
    return [exe] if exe else [sys.executable, "-m", "uci_engine"]


class UciPipe:
    """Engine ``cmd`` (argv list; default :func:`engine_cmd`) started with pipes.

    ``env``: the child's environment (default: ours). ``stderr``: ``subprocess.PIPE`` (default:
    collected in :attr:`stderr`) or e.g. ``subprocess.DEVNULL``. :attr:`t0` is the
    ``time.perf_counter()`` just before the launch, for start-up timings. Reads raise
    TimeoutError when nothing arrives in time and EOFError when the engine has exited."""

    def __init__(self, cmd=None, env=None, stderr=subprocess.PIPE):
        self.log: list[str] = []
        self.stderr: list[str] = []
        self._lines: queue.Queue = queue.Queue()
        self.t0 = time.perf_counter()
        self.proc = subprocess.Popen(cmd or engine_cmd(), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=stderr, text=True,
                                     bufsize=1, env=env)
        threading.Thread(target=self._pump, daemon=True).start()
        if stderr == subprocess.PIPE:
            threading.Thread(target=self._drain_stderr, daemon=True).start()

    def _pump(self):
        for line in self.proc.stdout:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)

    def _drain_stderr(self):
        for line in self.proc.stderr:
            self.stderr.append(line)

    def send(self, *lines: str) -> None:
        """Write each line (newline added) and flush."""
        for line in lines:
            self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def readline(self, timeout: float | None = READ_TIMEOUT) -> str:
        """The next stdout line (no newline); ``timeout`` None waits for ever."""
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"no output within {timeout} s; "
                               f"got so far: {self.log[-10:]}") from None
        if line is None:
            self._lines.put(None)                 # every later read sees the end too
            try:
                rc = self.proc.wait(EXIT_WAIT)    # stdout closes just before the exit status
            except subprocess.TimeoutExpired:
                rc = None
            raise EOFError(f"engine exited (rc={rc}); last lines "
                           f"{self.log[-10:]}; stderr {''.join(self.stderr)[-2000:]}")
        self.log.append(line)
        return line

    def lines(self) -> Iterator[str]:
        """Every stdout line until the engine exits (no timeout)."""
        while True:
            try:
                yield self.readline(None)
            except EOFError:
                return

    def read_until(self, pred: Callable[[str], bool], timeout: float | None = READ_TIMEOUT,
                   want: str = "matching line") -> list[str]:
        """Lines up to and including the first for which ``pred(line)`` holds, all within
        ``timeout`` seconds (None: no limit); ``want`` names that line in the TimeoutError."""
        deadline = None if timeout is None else time.monotonic() + timeout
        out = []
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                line = self.readline(left)
            except TimeoutError:
                raise TimeoutError(f"no {want} within {timeout} s; "
                                   f"got so far: {self.log[-10:]}") from None
            out.append(line)
            if pred(line):
                return out

    def expect(self, prefix: str, timeout: float | None = READ_TIMEOUT) -> list[str]:
        """Lines up to and including the first that starts with ``prefix``."""
        return self.read_until(lambda s: s.startswith(prefix), timeout, repr(prefix))

    def drain(self, seconds: float) -> list[str]:
        """Everything printed within ``seconds``."""
        deadline = time.monotonic() + seconds
        out = []
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return out
            try:
                out.append(self.readline(left))
            except TimeoutError:
                return out

    def sync(self, timeout: float | None = READ_TIMEOUT) -> list[str]:
        """``isready``; returns the lines before ``readyok``."""
        self.send("isready")
        return self.expect("readyok", timeout)[:-1]

    def start(self, uciok_timeout: float | None = READ_TIMEOUT,
              ready_timeout: float | None = None) -> "UciPipe":
        """``uci`` .. ``uciok``, then ``isready`` .. ``readyok`` (the kernels load or compile
        before ``readyok``: no limit by default); returns self."""
        self.send("uci")
        self.expect("uciok", uciok_timeout)
        self.sync(ready_timeout)
        return self

    def quit(self, timeout: float = QUIT_TIMEOUT) -> int:
        """``quit`` and wait for the exit; kill the engine if it has not exited by then.
        Returns the exit status."""
        if self.proc.poll() is None:
            try:
                self.send("quit")
            except (BrokenPipeError, OSError):
                pass
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()
