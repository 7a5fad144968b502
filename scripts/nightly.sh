#!/usr/bin/env bash
# Example nightly job: run the suite, diff against the last good run, gate,
# and move the last-good pointer forward only when every gate passes.
#
#   CONFIG=memeval.config.yaml OUT=runs scripts/nightly.sh
#
# Exit status is memeval's: 0 pass, 100 a gate failed (or could not be
# evaluated), 2 bad input, 3 the run could not measure.
set -euo pipefail

CONFIG=${CONFIG:-memeval.config.yaml}
OUT=${OUT:-runs}
MEMEVAL=${MEMEVAL:-"node bin/memeval.js"}
LAST_GOOD="$OUT/last-good"   # a symlink to the newest run that passed its gates

# 1. Run the suite. A run that could not measure (exit 3) stops here and never becomes last-good.
$MEMEVAL run --config "$CONFIG" --out "$OUT"

# 2. The run just written: the newest real directory with a run.json (the symlink is skipped).
RUN=$(find "$OUT" -mindepth 1 -maxdepth 1 -type d -exec test -f '{}/run.json' ';' -print | sort | tail -n 1)
[ -n "$RUN" ] || { echo "nightly: no run directory under $OUT" >&2; exit 3; }

# 3. Diff against last good (writes diff.md/.csv/.html into the new run) and gate relative to it.
BASELINE=()
if [ -f "$LAST_GOOD/run.json" ]; then
  $MEMEVAL diff "$LAST_GOOD" "$RUN"
  BASELINE=(--baseline "$LAST_GOOD")
else
  # No silent pass: gates relative to a baseline run fail until one exists.
  echo "nightly: no last-good run under $OUT yet; 'vs: baseline-run' gates will fail." >&2
  echo "nightly: review $RUN and, if it is good, start the chain with: ln -sfn $(basename "$RUN") $LAST_GOOD" >&2
fi

status=0
$MEMEVAL gate "$RUN" ${BASELINE[@]+"${BASELINE[@]}"} --config "$CONFIG" || status=$?

# 4. Only a passing run becomes the new baseline; the link is relative so $OUT can move.
if [ "$status" -eq 0 ]; then
  ln -sfn "$(basename "$RUN")" "$LAST_GOOD"
  echo "nightly: $RUN is the new last-good run"
fi
exit "$status"
