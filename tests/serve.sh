#!/usr/bin/env bash
# Serves the app on http://127.0.0.1:8080 with the bundled example tables (installs what is missing first).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/setup.sh app
export PATH="$PWD/tests/tools/node_modules/.bin:$PATH"
exec trunk serve "$@"
