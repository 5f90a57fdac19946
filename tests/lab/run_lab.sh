#!/usr/bin/env bash
# Regenerate the real-writer fixtures under tests/fixtures/ (see tests/lab/README.md).
#   bash tests/lab/run_lab.sh [scenario ...]      # default: all fifteen
# Needs Java 17, Maven (Maven Central) and PyPI. Starts SeaweedFS, a standalone Flink JobManager and
# TaskManager and Spark, all on 127.0.0.1, and stops them all when it ends (only Spark when every
# scenario asked for is Spark-only: v3-deletion-vectors).
set -euo pipefail
LAB="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$LAB"
if [ ! -x .venv/bin/python ]; then python3 -m venv .venv; fi
.venv/bin/pip install -q -r requirements-lab.txt
# Scenarios that need only Spark (v3-deletion-vectors) need only the Spark jars, not the Flink job.
SPARK_ONLY="v3-deletion-vectors"
only_spark=$([ $# -gt 0 ] && echo 1 || echo 0)
for s in "$@"; do case " $SPARK_ONLY " in *" $s "*) ;; *) only_spark=0 ;; esac; done
if [ "$only_spark" = 1 ]; then
  ( cd java && mvn -B -q dependency:copy@copy-spark-jars )
else
  ( cd java && mvn -B -q package -DskipTests )
fi
mkdir -p work/logs
# The driver runs in its own process group; on any exit we end that group (our own processes only).
setsid .venv/bin/python lab.py "$@" &
PID=$!
trap 'kill -TERM -- -"$PID" 2>/dev/null || true' EXIT INT TERM
RC=0
wait "$PID" || RC=$?
trap - EXIT INT TERM
# the gallery index (tests/fixtures/index.json) and the offline check of what was just written
if [ -f index_fixtures.py ]; then .venv/bin/python index_fixtures.py; fi
.venv/bin/python check_fixtures.py
exit "$RC"
