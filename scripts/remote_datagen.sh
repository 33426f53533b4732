#!/usr/bin/env bash
# Self-play data on the lent 16-core machine (DEVELOPERS.md says when a session has one), for the
# strength campaign (docs/campaign.md). Runs THERE, from the copy of the project root, with
# .devcarry carried beside the tree. Prepare it here first:
#   ../shared/tools/remote-games/prepare            # .devcarry/whl: python-chess for that machine
#   cp -r ../shared/data/syzygy .devcarry/syzygy     # the 3-4-man tables datagen adjudicates with
# then, with the device tool (carry [".devcarry"], timeout_s a little above SECONDS):
#   bash scripts/remote_datagen.sh SECONDS WORKERS NET SEED [SEED ...]
# One datagen run of WORKERS workers a seed, all at once, each stopped by SIGTERM (every
# finished game kept) when SECONDS have passed since the start, the Numba warm-up included.
# Their files, sidecars and logs go to $OUT: <net stem>_5k_s<SEED>.bin, at most 2,400,000
# positions (about 15 MB, under the 16 MiB a file the device tool brings back). NET is a net
# file, e.g. uci_engine/nets/gen4_h128_o8.nnue. 2026-11-27: two runs of 8 workers made 2,730
# positions a second in all (docs/campaign.md, ledger row 5).
set -u
start=$(date +%s)
D=$PWD/.devcarry
secs=${1:?SECONDS}; workers=${2:?WORKERS}; net=${3:?NET}; shift 3
[ $# -gt 0 ] || { echo "usage: remote_datagen.sh SECONDS WORKERS NET SEED [SEED ...]" >&2; exit 2; }
stem=$(basename "$net" .nnue); stem=${stem%%_*}
python3 -m pip install -q --no-index --no-deps --no-compile --upgrade --target /tmp/site \
  "$D"/whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD CI=true
echo "cores $(nproc); $(python3 -c 'import numba, numpy; print("numba", numba.__version__, "numpy", numpy.__version__)')"
t0=$(date +%s); python3 -m uci_engine warmup > "$OUT/warmup.log" 2>&1
echo "warmup rc $? in $(( $(date +%s) - t0 )) s"
left=$(( secs - ($(date +%s) - start) )); echo "datagen for $left s"
for s in "$@"; do
  timeout -s TERM "$left" python3 -m uci_engine datagen --out "$OUT/${stem}_5k_s$s.bin" \
    --format records --positions 2400000 --nodes 5000 --workers "$workers" --seed "$s" \
    --eval-file "$net" --book tests/data/openings/noob_2moves.epd --syzygy "$D/syzygy" \
    --quiet > "$OUT/${stem}_5k_s$s.log" 2>&1 &
done
wait
ls -l "$OUT"; tail -n 3 "$OUT"/*.log
