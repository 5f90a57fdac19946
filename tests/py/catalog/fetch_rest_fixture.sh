#!/usr/bin/env bash
# Fetches Apache Iceberg's REST catalog reference server (RESTCatalogServer, the code behind the
# apache/iceberg-rest-fixture Docker image) from Maven Central and compiles its loopback launcher,
# for tests/py/catalog/test_cli_rest_fixture.py. Idempotent: does nothing when the cache matches
# rest_fixture/pom.xml and rest_fixture/IcescopeRestFixture.java.
#
#   bash tests/py/catalog/fetch_rest_fixture.sh      # needs java 17+, javac, mvn, Maven Central
#
# Writes tests/.cache/rest-fixture/ (override with ICESCOPE_REST_FIXTURE_DIR):
#   lib/*.jar    the runtime classpath listed in rest_fixture/pom.xml (~142 MB; Maven Central has no
#                shaded test-fixtures-runtime jar of iceberg-open-api, only the thin test-fixtures
#                jar, so the pom lists its dependencies; see the comment there)
#   classes/     org.apache.iceberg.rest.IcescopeRestFixture (binds one address, see the .java)
#   .stamp       sha256 of the two inputs, the "already done" marker
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
src="$here/rest_fixture"
out="${ICESCOPE_REST_FIXTURE_DIR:-$repo/tests/.cache/rest-fixture}"
stamp="$(cat "$src/pom.xml" "$src/IcescopeRestFixture.java" | sha256sum | cut -d' ' -f1)"

if [ -f "$out/.stamp" ] && [ "$(cat "$out/.stamp")" = "$stamp" ] \
   && [ -f "$out/classes/org/apache/iceberg/rest/IcescopeRestFixture.class" ]; then
  exit 0
fi

for tool in java javac mvn; do
  command -v "$tool" >/dev/null || { echo "fetch_rest_fixture.sh: $tool not found (needs JDK 17+ and Maven)" >&2; exit 1; }
done

echo "fetch_rest_fixture.sh: Iceberg REST fixture classpath -> $out" >&2
rm -rf "$out.partial"
mkdir -p "$out.partial/lib" "$out.partial/classes"
# (sed: Debian's Maven 3.8 prints stray colour resets on both streams even with -B; errors still show, on stderr.)
mvn -B -q -f "$src/pom.xml" \
  org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy-dependencies \
  -DincludeScope=runtime -DoutputDirectory="$out.partial/lib" 2>&1 | sed 's/\x1b\[0m//g' >&2
# The jar the server itself lives in (also resolved above; checked so a pom edit cannot drop it).
ls "$out.partial/lib"/iceberg-open-api-*-test-fixtures.jar >/dev/null
javac -nowarn --release 17 -cp "$out.partial/lib/*" -d "$out.partial/classes" "$src/IcescopeRestFixture.java"
echo "$stamp" > "$out.partial/.stamp"
rm -rf "$out"
mv "$out.partial" "$out"
