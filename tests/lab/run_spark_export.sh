#!/usr/bin/env bash
# Regenerate tests/spark-exports/<scenario>/ (see tests/lab/README.md, "Spark's metadata tables"), with
# diffs.json: the files Spark's `entries` show added and removed between snapshot pairs (tests/diff.rs).
#   bash tests/lab/run_spark_export.sh [scenario ...] [--builtin-script]   # default: every stageable fixture
# Needs Java 17, Maven (Maven Central), PyPI and cargo; root and unshare(1) for v3-deletion-vectors (its
# file:// paths are shown at their place in a private mount namespace). Starts SeaweedFS and Spark on
# 127.0.0.1 free ports and stops them when it ends. The SQL comes from `icescope spark-export`.
set -euo pipefail
LAB="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$LAB"
if [ ! -x .venv/bin/python ]; then python3 -m venv .venv; fi
.venv/bin/pip install -q -r requirements-lab.txt
( cd java && mvn -B -q dependency:copy@copy-spark-jars )
# build the command first, so that a build error shows here and not as a failed statement
builtin=0
for a in "$@"; do [ "$a" = "--builtin-script" ] && builtin=1; done
if [ "$builtin" = 0 ]; then ( cd "$LAB/../.." && cargo build -q --bin icescope ); fi
# The driver runs in its own process group; on any exit we end that group (our own processes only).
setsid .venv/bin/python spark_export.py "$@" &
PID=$!
trap 'kill -TERM -- -"$PID" 2>/dev/null || true' EXIT INT TERM
RC=0
wait "$PID" || RC=$?
trap - EXIT INT TERM
exit "$RC"
