#!/usr/bin/env bash
# Every test: native (cargo test), independent readers (pytest: DuckDB, fastavro), wasm in headless
# Chromium (wasm-bindgen-test), and the built app end to end (node --test + playwright-core).
# Installs what is missing first; starts and stops every server it needs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/setup.sh all
export PATH="$PWD/tests/tools/node_modules/.bin:$PATH"
export ICESCOPE_BIG_TABLE="$(cat tests/.cache/big-table)"
# A skip under CI reads as a pass: with CI set, a missing CLI build, corpus or server capability
# fails the group that needs it (tests/py/needs.py, the e2e harness, tests/corpus.rs).
export CI="${CI:-true}"
# The one CLI every group runs: the debug build under the target directory cargo uses
# (CARGO_TARGET_DIR honoured), built below before pytest and the e2e files run it.
ICESCOPE_BIN="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')/debug/icescope"
export ICESCOPE_BIN
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
failed=()
run() { local name="$1"; shift; step "$name"; "$@" || failed+=("$name"); }

run "format and lints (cargo fmt --check, clippy -D warnings, native and wasm)" bash -c \
  'cargo fmt --check && cargo clippy --quiet --all-targets -- -D warnings && cargo clippy --quiet --target wasm32-unknown-unknown --bin icescope-web --bin icescope-decoder -- -D warnings'
# tests/serve.rs starts SeaweedFS and the Iceberg REST reference server itself (serve_for_e2e.py).
run "native tests (cargo test)" cargo test --quiet
# Also the binary e2e/serve.test.mjs starts as `icescope serve`.
run "CLI build for the reader comparisons" cargo build --quiet --bin icescope
run "independent readers (pytest)" tests/.venv/bin/python -m pytest -q -rs tests/py
run "wasm in headless Chromium (wasm-bindgen-test)" env \
  CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER="$PWD/tests/wasm/runner.sh" \
  CHROMEDRIVER=/usr/bin/chromedriver WASM_BINDGEN_TEST_TIMEOUT=120 \
  cargo test --target wasm32-unknown-unknown --test wasm_browser
run "app build (trunk build --release)" trunk build --release
run "end to end in headless Chromium (node --test)" bash -c 'node --test tests/e2e/*.test.mjs'

step "summary"
echo "groups: $((7 - ${#failed[@]})) passed, ${#failed[@]} failed"
if [ ${#failed[@]} -gt 0 ]; then
  printf 'FAILED: %s\n' "${failed[@]}"
  exit 1
fi
echo "all test groups passed"
