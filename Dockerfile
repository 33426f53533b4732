# uci_engine in a container: `docker run --rm -i IMAGE` speaks UCI on stdin/stdout.
#
#   docker build -t uci-engine .
#   printf 'uci\nisready\ngo depth 6\n' | docker run --rm -i uci-engine
#
# The Numba cache is compiled at build time (`uci-engine warmup`) so the first `isready` answers
# at once. Numba keys its cache on the CPU name and feature set it compiles for; with the host's
# values the shipped cache would only fit machines with the build machine's exact CPU. The image
# therefore compiles for a portable target: NUMBA_CPU_NAME=generic (plain x86-64, no
# popcnt/BMI/AVX), the same at build time and at run time, so the cache is valid on every x86-64
# host. PEXT needs BMI2, which that target lacks, so the image uses the fixed-shift black magic
# sliders (UCI_ENGINE_SLIDERS=black: in this target faster than fancy magics with a smaller
# table, docs/performance.md), and NUMBA_CPU_FEATURES=-bmi2 makes the engine's BMI2 guard refuse
# PEXT even if someone asks for it (it falls back to black with a warning, instead of aborting).
#
# Host-tuned code instead (PEXT on BMI2 CPUs, popcnt, ...) costs one compile (about a minute);
# a named volume on the cache directory keeps it between runs:
#   docker run --rm -i -v uci-engine-cache:/opt/uci_engine/numba-cache --entrypoint env \
#     uci-engine -u NUMBA_CPU_NAME -u NUMBA_CPU_FEATURES UCI_ENGINE_SLIDERS=auto uci-engine
FROM python:3.11-slim

ENV PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore \
    NUMBA_CPU_NAME=generic \
    NUMBA_CPU_FEATURES=-bmi2 \
    UCI_ENGINE_SLIDERS=black \
    NUMBA_CACHE_DIR=/opt/uci_engine/numba-cache

# Non-root user. The cache directory is owned by it and by group 0 with group write, so an
# arbitrary `--user UID:0` (OpenShift style) can still use it (Numba needs a writable cache dir).
RUN useradd --create-home --uid 10001 --gid 0 --shell /usr/sbin/nologin engine \
 && mkdir -p "$NUMBA_CACHE_DIR" \
 && chown engine:0 "$NUMBA_CACHE_DIR" \
 && chmod 2775 "$NUMBA_CACHE_DIR"

# UCI_ENGINE_PREBUILD=0: the warm-up below compiles the image's cache (one copy in the image,
# not a second one inside site-packages)
COPY . /tmp/src
RUN UCI_ENGINE_PREBUILD=0 pip install /tmp/src && rm -rf /tmp/src

USER engine
WORKDIR /home/engine
RUN uci-engine --version \
 && uci-engine warmup \
 && chmod -R g=u "$NUMBA_CACHE_DIR"

ENTRYPOINT ["uci-engine"]
