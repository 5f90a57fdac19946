#!/usr/bin/env bash
# Cargo's runner for wasm32 tests: wasm-bindgen-test-runner reads Chromium's flags from
# ./webdriver.json (root, no sandbox, no background networking on this closed network).
set -euo pipefail
cd "$(dirname "$0")"
exec wasm-bindgen-test-runner "$@"
