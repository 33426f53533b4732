# OpenBench build: `make EXE=<path>` writes an executable launcher at <path>; `<path> bench`
# (and every other argument) is passed to `uci-engine`.
#
# OpenBench builds in a temporary checkout, moves <path> to its Engines/ folder and deletes the
# checkout, so the launcher is self-contained: it embeds this checkout's uci_engine package (zip,
# base64) and unpacks it on first use into ~/.cache/uci_engine/launcher/<hash>/ ($XDG_CACHE_HOME
# is honoured; a temp dir if that is not writable). It runs the Python found at build time that
# can import numba, numpy and llvmlite (py-cpuinfo is recommended: without it the engine keeps to
# the magic sliders). On an OpenBench worker install them into the Python that runs the client:
#     python3 -m pip install "numba>=0.60" "numpy>=1.24" "py-cpuinfo>=9"
# or name an interpreter:  make EXE=... PYTHON=/path/to/venv/bin/python
#
# The build then runs `<path> warmup` once, so the Numba cache (~/.cache/uci_engine/...) is
# compiled before OpenBench's first `bench` (about a minute on a cold cache; WARMUP=0 skips it).
#
#   make                      -> ./uci-engine-openbench
#   make EXE=/tmp/x && /tmp/x bench
#   make clean

EXE ?= uci-engine-openbench
PYTHON ?=
WARMUP ?= 1

.PHONY: all launcher clean
.DEFAULT_GOAL := all

all: launcher
ifneq ($(WARMUP),0)
	"$(abspath $(EXE))" warmup
endif

# The launcher is rebuilt on every `make` (cheap), so it always carries the current sources.
launcher:
	@gen=""; for c in python3 python; do \
	  if command -v $$c >/dev/null 2>&1; then gen=$$c; break; fi; done; \
	if [ -z "$$gen" ]; then echo "make: no python3 on PATH" >&2; exit 1; fi; \
	"$$gen" -c "$$UCI_ENGINE_MAKE_LAUNCHER" "$(EXE)" "$(PYTHON)" "$(CURDIR)"

clean:
	rm -f "$(EXE)"

# --- launcher generator (Python, standard library only) ----------------------------------------
define UCI_ENGINE_MAKE_LAUNCHER
import base64, hashlib, io, os, shlex, subprocess, sys, zipfile

exe, wanted, root = sys.argv[1], sys.argv[2], sys.argv[3]
PROBE = "import numba, numpy, llvmlite, sys; print(sys.executable)"

def probe(cmd):
    try:
        out = subprocess.run([cmd, "-c", PROBE], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = out.stdout.strip().splitlines()
    return lines[-1] if out.returncode == 0 and lines else None

cands = [wanted] if wanted else ["python3", "python", sys.executable]
python = next((p for p in map(probe, cands) if p), None)
if python is None:
    sys.exit("make: no Python with numba, numpy and llvmlite among %s; install them "
             "(python3 -m pip install numba numpy py-cpuinfo) or pass PYTHON=/path/to/python"
             % ", ".join(cands))
if subprocess.run([python, "-c", "import cpuinfo"], capture_output=True).returncode:
    print("make: warning: %s lacks py-cpuinfo; the engine will use the magic sliders" % python,
          file=sys.stderr)

pkg = os.path.join(root, "uci_engine")
files = []
for d, dirs, names in os.walk(pkg):
    dirs[:] = sorted(x for x in dirs if x != "__pycache__")
    files += [os.path.join(d, n) for n in sorted(names) if n.endswith((".py", ".nnue"))]
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
    for f in files:
        info = zipfile.ZipInfo(os.path.relpath(f, root).replace(os.sep, "/"), (2000, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = 0o644 << 16
        with open(f, "rb") as fh:
            zf.writestr(info, fh.read())
data = buf.getvalue()
ident = hashlib.sha256(data).hexdigest()[:16]
payload = base64.b64encode(data).decode()
payload = "\n".join(payload[i:i + 76] for i in range(0, len(payload), 76))
version = "?"
with open(os.path.join(pkg, "__init__.py")) as fh:
    for line in fh:
        if line.startswith("__version__"):
            version = line.split("=", 1)[1].strip().strip("\"'")

text = '''#!/bin/sh
# uci_engine %(version)s launcher (made by `make` for OpenBench): runs `uci-engine ARGS...`.
# Self-contained: the package is embedded below and unpacked on first use. Python: %(python)s
\'\'\'exec' %(qpython)s "$$0" "$$@"
\'\'\'
import os, sys, tempfile, zipfile, base64, io
IDENT = "%(ident)s"

def _unpacked():
    bases = [os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
             os.path.join(tempfile.gettempdir(), "uci_engine-%%s" %% getattr(os, "getuid", lambda: "")())]
    for base in bases:
        home = os.path.join(base, "uci_engine", "launcher")
        dest = os.path.join(home, IDENT)
        if os.path.isfile(os.path.join(dest, ".complete")):
            return dest
        try:
            os.makedirs(home, exist_ok=True)
            tmp = tempfile.mkdtemp(prefix=".unpack-", dir=home)
            with open(__file__, "rb") as fh:
                blob = fh.read().split(b"\\n#PAYLOAD\\n", 1)[1].rsplit(b'"""', 1)[0]
            zipfile.ZipFile(io.BytesIO(base64.b64decode(blob))).extractall(tmp)
            open(os.path.join(tmp, ".complete"), "w").close()
            try:
                os.rename(tmp, dest)
            except OSError:  # another process unpacked it first
                import shutil
                shutil.rmtree(tmp, ignore_errors=True)
            if os.path.isfile(os.path.join(dest, ".complete")):
                return dest
        except OSError:
            continue
    sys.exit("uci_engine launcher: no writable directory to unpack the engine into")

sys.path.insert(0, _unpacked())
from uci_engine.cli import main
sys.exit(main(sys.argv[1:]))
"""
#PAYLOAD
%(payload)s
"""
''' % dict(version=version, python=python, qpython=shlex.quote(python), ident=ident,
           payload=payload)

out = os.path.abspath(exe)
os.makedirs(os.path.dirname(out), exist_ok=True)
tmp = out + ".tmp"
with open(tmp, "w") as fh:
    fh.write(text)
os.chmod(tmp, 0o755)
os.replace(tmp, out)
print("make: wrote %s (uci_engine %s, %d files, python %s)" % (exe, version, len(files), python))
endef
export UCI_ENGINE_MAKE_LAUNCHER
