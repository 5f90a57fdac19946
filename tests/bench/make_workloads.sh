#!/usr/bin/env bash
# Writes the benchmark tables into tests/bench/work/<name>/ with the real Iceberg Java API
# (tests/bench/gen, Iceberg 1.11.0 on the local filesystem), shaped like Flink's IcebergFilesCommitter output.
#
#   bash tests/bench/make_workloads.sh            # w1b-1000 w1b-3000 w2 w1a w3 w1b (the full set; long)
#   bash tests/bench/make_workloads.sh --small    # the same names, scaled down (smoke run, ~3 minutes)
#   bash tests/bench/make_workloads.sh w2 w1a     # only some (with or without --small)
#   bash tests/bench/make_workloads.sh --s3-bucket bench w1a w1b
#                                                 # located at s3://bench/<name> (every path in the
#                                                 # metadata), kept on disk: network_day.py puts it on S3
#
# Each table gets tests/bench/work/<name>/facts.json (what the generator knows: commits, files,
# records, current snapshot id, job id, metadata file, bytes of manifest lists and manifests).
# The log of the last run is tests/bench/work/make_workloads.log. Needs Java 17 + Maven
# (Maven Central is used on the first build). GEN_HEAP overrides the JVM heap (default 8g).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
GEN="$HERE/gen"
# ICESCOPE_BENCH_WORK: where to write instead (tests/setup.sh keeps the e2e test's table outside the checkout).
WORK="${ICESCOPE_BENCH_WORK:-$HERE/work}"
JAR="$GEN/target/icescope-bench-gen.jar"

if [[ ! -f "$JAR" || -n "$(find "$GEN/pom.xml" "$GEN/src" -newer "$JAR" -print -quit)" ]]; then
  echo "building the generator (mvn package in tests/bench/gen)…"
  (cd "$GEN" && mvn -q -B package)
fi

mkdir -p "$WORK"
start=$(date +%s)
java -Xmx"${GEN_HEAP:-8g}" -XX:+UseParallelGC \
  -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -Dorg.slf4j.simpleLogger.log.org.apache.hadoop.util.NativeCodeLoader=error \
  -cp "$GEN/target/classes:$GEN/target/lib/*" bench.Gen --out "$WORK" "$@" 2>&1 | tee "$WORK/make_workloads.log"
rc=${PIPESTATUS[0]}
echo "make_workloads: rc=$rc in $(( $(date +%s) - start )) s" | tee -a "$WORK/make_workloads.log"
exit "$rc"
