#!/usr/bin/env bash
# Installs what icescope's build and tests need, skipping whatever is already there.
# Fresh machine: ~40 min (trunk ~18 min, wasm-bindgen-cli ~7 min, Chromium, first builds).
# Usage: bash tests/setup.sh [app|all]   (app: only what `trunk serve` needs)
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-all}"
log() { printf '\033[1msetup:\033[0m %s\n' "$*"; }

apt_missing=()
command -v clang >/dev/null || apt_missing+=(clang)   # zstd (avro zstandard codec) for wasm32
if [ "$what" = all ]; then
  command -v chromium >/dev/null || apt_missing+=(chromium)
  command -v chromedriver >/dev/null || apt_missing+=(chromium-driver)
  [ -x /usr/bin/time ] || apt_missing+=(time)             # the benchmark's peak memory (GNU time -v)
  command -v ss >/dev/null || apt_missing+=(iproute2)     # a server's listening sockets (pytest)
fi
if [ ${#apt_missing[@]} -gt 0 ]; then
  log "apt-get install ${apt_missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${apt_missing[@]}" >/dev/null
fi

for c in rustfmt clippy; do
  rustup component list --installed | grep -q "^$c" || { log "rustup component add $c"; rustup component add "$c"; }
done
rustup target list --installed | grep -qx wasm32-unknown-unknown || { log "rustup target add wasm32-unknown-unknown"; rustup target add wasm32-unknown-unknown; }

if [ "$(wasm-bindgen --version 2>/dev/null || true)" != "wasm-bindgen 0.2.130" ]; then
  # Not --locked: its lockfile names a crate version the registry lacks.
  log "cargo install wasm-bindgen-cli@0.2.130 (~7 min)"
  cargo install wasm-bindgen-cli@0.2.130
fi
if ! trunk --version 2>/dev/null | grep -q '0.21.14'; then
  # Newer Trunk needs rustc 1.96.
  log "cargo install trunk@0.21.14 (~18 min)"
  cargo install --locked trunk@0.21.14
fi

npm_ci() { # dir: install from the lockfile unless node_modules already matches it
  if [ ! -f "$1/node_modules/.package-lock.json" ] || ! cmp -s "$1/package-lock.json" "$1/node_modules/.icescope-lock"; then
    log "npm ci in $1"
    (cd "$1" && npm ci --no-audit --no-fund --loglevel=error && cp package-lock.json node_modules/.icescope-lock)
  fi
}
npm_ci tests/tools   # wasm-opt 132 (Debian's v108 breaks the wasm at run time)

log "cargo fetch"
cargo fetch --quiet

[ "$what" = app ] && exit 0

if [ ! -x tests/.venv/bin/python ] || ! cmp -s tests/requirements.txt tests/.venv/.icescope-requirements; then
  log "python venv tests/.venv"
  python3 -m venv tests/.venv
  tests/.venv/bin/pip install --quiet --disable-pip-version-check -r tests/requirements.txt
  cp tests/requirements.txt tests/.venv/.icescope-requirements
fi
npm_ci tests/e2e
# The Apache Iceberg REST reference server (Maven Central jars), the second real catalog the tests use.
bash tests/py/catalog/fetch_rest_fixture.sh
# The 3,000-commit table the browser test opens (tests/e2e/big_table.test.mjs): written by the Iceberg
# Java API (tests/bench/gen, ~3 min) once per generator version, outside the checkout so clean clones reuse it.
gen_hash=$(cat tests/bench/gen/pom.xml $(find tests/bench/gen/src -type f | sort) | sha256sum | cut -c1-12)
big="${XDG_CACHE_HOME:-$HOME/.cache}/icescope/workloads-$gen_hash"
if [ ! -f "$big/w1b-3000/facts.json" ]; then
  log "generating the 3,000-commit table for the browser test (~3 min) into $big"
  rm -rf "$big/w1b-3000"
  mkdir -p "$big"
  ICESCOPE_BENCH_WORK="$big" bash tests/bench/make_workloads.sh w1b-3000 >/dev/null
fi
mkdir -p tests/.cache
echo "$big/w1b-3000" > tests/.cache/big-table
log "ready"
