#!/usr/bin/env bash
# The CLI's remote load against tests/bench/delay_store.py: merge-append-long (134 snapshots,
# 269 files read with --all-snapshots) served as s3://warehouse/icescope/merge_append_long/ with
# DELAY_MS added to every request.  bash tests/bench/delay_cli.sh BIN DELAY_MS
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="$1"; delay="$2"
out=$(mktemp); err=$(mktemp)
python3 tests/bench/delay_store.py tests/fixtures/merge-append-long warehouse/icescope/merge_append_long "$delay" >"$out" 2>"$err" &
pid=$!
for _ in $(seq 100); do [ -s "$out" ] && break; sleep 0.1; done
start=$(date +%s.%N)
"$bin" inspect s3://warehouse/icescope/merge_append_long/metadata/v135.metadata.json --s3-endpoint "$(cat "$out")" \
  --s3-path-style-access --all-snapshots --format json >/dev/null
end=$(date +%s.%N)
kill "$pid"; wait "$pid" 2>/dev/null || true
printf '%s ms added: %.2f s; store: %s\n' "$delay" "$(echo "$end - $start" | bc)" "$(cat "$err")"
rm -f "$out" "$err"
