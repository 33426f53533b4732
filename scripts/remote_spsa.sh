#!/usr/bin/env bash
# A slice of the campaign's SPSA run (docs/campaign.md) on the lent 16-core machine
# (DEVELOPERS.md says when a session has one). Runs THERE, from the copy of the project root,
# with .devcarry carried beside the tree. Prepare it here first:
#   ../shared/tools/remote-games/prepare            # .devcarry/whl: python-chess for that machine
# then, with the device tool (carry [".devcarry"], timeout_s a little above SECONDS):
#   bash scripts/remote_spsa.sh SECONDS [WORKERS]
# It resumes the committed run (campaign/spsa/state.json and log.jsonl, the same run that
# `python scripts/tune_search.py --state campaign/spsa/state.json --log campaign/spsa/log.jsonl
# --games 20000` plays here: the state refuses any other run) with WORKERS steps side by side
# (default 14, so 14 games at once; each worker starts its next step as soon as its last one
# ends), and stops it with SIGINT when SECONDS have passed since the start, the Numba warm-up
# included; the steps in flight then are saved in the state and played first by the next
# slice. The state and log come back in $OUT: copy both over campaign/spsa/ and commit them.
set -u
start=$(date +%s)
D=$PWD/.devcarry
secs=${1:?SECONDS}; workers=${2:-14}
python3 -m pip install -q --no-index --no-deps --no-compile --upgrade --target /tmp/site \
  "$D"/whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD CI=true
echo "cores $(nproc); $(python3 -c 'import numba; print("numba", numba.__version__)')"
t0=$(date +%s); python3 -m uci_engine warmup > "$OUT/warmup.log" 2>&1
echo "warmup rc $? in $(( $(date +%s) - t0 )) s"
for f in state.json log.jsonl; do
  [ -f "campaign/spsa/$f" ] && cp "campaign/spsa/$f" "$OUT/$f"
done
left=$(( secs - ($(date +%s) - start) )); echo "SPSA for $left s"
timeout -s INT "$left" python3 scripts/tune_search.py --state "$OUT/state.json" \
  --log "$OUT/log.jsonl" --games 20000 --concurrency "$workers" \
  --engine "python3 -m uci_engine --tune" > "$OUT/spsa.log" 2>&1
echo "tune_search exit $?"
tail -n 5 "$OUT/spsa.log"
python3 scripts/tune_search.py --state "$OUT/state.json" --log "$OUT/log.jsonl" --games 20000 \
  --show 2>&1 | tail -n 20
