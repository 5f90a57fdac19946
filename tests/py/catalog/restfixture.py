"""Apache Iceberg's REST catalog reference server (RESTCatalogServer from
org.apache.iceberg:iceberg-open-api:1.11.0:test-fixtures, the code behind the
apache/iceberg-rest-fixture Docker image) as a second real REST catalog for the CLI tests.

It runs in a JVM on 127.0.0.1 only, on a port the OS picks, with a JdbcCatalog on a sqlite file
and S3FileIO writing into a bucket of the session's SeaweedFS (the `seaweed` fixture's S3, path
style). fetch_rest_fixture.sh puts its classpath and launcher in tests/.cache/rest-fixture; this
module only starts and stops it. Nothing starts on import.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from catalogkit import HOST, REPO, ServerProcess, _die_with_parent

ICEBERG_VERSION = "1.11.0"
ARTIFACT = f"org.apache.iceberg:iceberg-open-api:{ICEBERG_VERSION}:jar:test-fixtures"
MAIN = "org.apache.iceberg.rest.IcescopeRestFixture"
FETCH = REPO / "tests" / "py" / "catalog" / "fetch_rest_fixture.sh"
BUCKET = "rest-fixture"  # a plain S3 bucket in SeaweedFS, not its table bucket
FETCH_HINT = f"bash {FETCH.relative_to(REPO)}  (JDK 17 + Maven; downloads from Maven Central)"

RF_NS = ("rf_ns",)
RF_NESTED_NS = ("rf_ns", "inner")
RF_EVENTS = RF_NS + ("events",)
RF_ORDERS = RF_NS + ("orders",)
RF_NESTED = RF_NESTED_NS + ("deep",)


def cache_dir() -> Path:
    return Path(os.environ.get("ICESCOPE_REST_FIXTURE_DIR") or REPO / "tests" / ".cache" / "rest-fixture")


def java_binary() -> str | None:
    return os.environ.get("ICESCOPE_JAVA") or shutil.which("java")


@dataclass
class RestFixture(ServerProcess):
    catalog_uri: str
    s3_endpoint: str
    key: str
    secret: str
    region: str
    warehouse: str  # s3://rest-fixture/warehouse
    port: int
    command: list[str]
    env: dict[str, str]  # CATALOG_* and the rest we set (secret masked)
    log: Path
    proc: subprocess.Popen = field(repr=False)

    def rest(self, path: str, headers: dict | None = None, form: dict | None = None) -> tuple[int, object]:
        """GET (POST with `form`) on the catalog, which needs no auth: (status, parsed JSON or text)."""
        data = urllib.parse.urlencode(form).encode() if form is not None else None
        req = urllib.request.Request(f"{self.catalog_uri}{path}", data=data, headers=headers or {})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                status, body = r.status, r.read()
        except urllib.error.HTTPError as e:
            status, body = e.code, e.read()
        if not body:
            return status, None
        try:
            return status, json.loads(body)
        except ValueError:
            return status, body.decode(errors="replace")

    def catalog(self):
        """PyIceberg's RestCatalog on it: no credential (the server has no auth); PyIceberg writes
        data files and manifests to S3 itself, so it gets the S3 settings too."""
        from pyiceberg.catalog.rest import RestCatalog
        return RestCatalog(
            "icescope-rest-fixture", uri=self.catalog_uri,
            **{"s3.endpoint": self.s3_endpoint, "s3.access-key-id": self.key,
               "s3.secret-access-key": self.secret, "s3.path-style-access": "true",
               "s3.region": self.region})


def start_rest_fixture(sw, root: Path, timeout: float = 60.0) -> RestFixture:
    """Start the server against SeaweedFS `sw` (a catalogkit.Seaweed); raise with the log's tail
    if it does not come up."""
    cache = cache_dir()
    classes = cache / "classes"
    if not (classes / "org" / "apache" / "iceberg" / "rest" / "IcescopeRestFixture.class").is_file():
        raise FileNotFoundError(f"the Iceberg REST fixture is not fetched ({cache} is missing or incomplete): "
                                f"run {FETCH_HINT}")
    java = java_binary()
    if not java:
        raise FileNotFoundError("java not found on PATH (set ICESCOPE_JAVA): the Iceberg REST fixture needs Java 17+")

    sw.s3().create_bucket(Bucket=BUCKET)
    warehouse = f"s3://{BUCKET}/warehouse"
    root.mkdir(parents=True, exist_ok=True)
    port_file = root / "rest-fixture.port"
    log = root / "rest-fixture.log"
    catalog_env = {
        # RCKUtils.environmentCatalogConfig: CATALOG_ stripped, `__` -> `-`, `_` -> `.`, lower case.
        "CATALOG_CATALOG__IMPL": "org.apache.iceberg.jdbc.JdbcCatalog",
        "CATALOG_URI": f"jdbc:sqlite:{root / 'rest-fixture-catalog.db'}",
        "CATALOG_JDBC_SCHEMA__VERSION": "V1",
        "CATALOG_WAREHOUSE": warehouse,
        "CATALOG_IO__IMPL": "org.apache.iceberg.aws.s3.S3FileIO",
        "CATALOG_S3_ENDPOINT": sw.s3_endpoint,
        "CATALOG_S3_PATH__STYLE__ACCESS": "true",
        "CATALOG_S3_ACCESS__KEY__ID": sw.key,
        "CATALOG_S3_SECRET__ACCESS__KEY": sw.secret,
        "CATALOG_CLIENT_REGION": sw.region,
        # RESTServerCatalogAdapter copies s3.access-key-id/secret-access-key/session-token into
        # every LoadTable `config` when this is true: the vended-credentials case.
        "CATALOG_INCLUDE__CREDENTIALS": "true",
    }
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "CATALOG_", "REST_", "JAVA_TOOL"))}
    env.update(catalog_env)
    env["AWS_EC2_METADATA_DISABLED"] = "true"  # never ask a metadata service for anything
    env["AWS_REGION"] = sw.region
    classpath = f"{cache / 'lib'}/*{os.pathsep}{classes}"
    cmd = [java, "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.net.preferIPv4Stack=true",
           "-Dorg.slf4j.simpleLogger.defaultLogLevel=info", "-cp", classpath, MAIN, HOST, "0", str(port_file)]
    with open(log, "wb") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=env, cwd=root, preexec_fn=_die_with_parent)
    masked = {k: ("<secret>" if "SECRET" in k else v) for k, v in catalog_env.items()}
    rf = RestFixture(catalog_uri="", s3_endpoint=sw.s3_endpoint, key=sw.key, secret=sw.secret, region=sw.region,
                     warehouse=warehouse, port=0, command=cmd, env=masked, log=log, proc=proc)
    try:
        t0 = time.time()
        while not port_file.is_file():
            if proc.poll() is not None:
                raise RuntimeError(f"the Iceberg REST fixture exited with {proc.returncode}:\n{rf.log_tail()}")
            if time.time() - t0 > timeout:
                raise TimeoutError(f"the Iceberg REST fixture did not listen within {timeout:.0f}s:\n{rf.log_tail()}")
            time.sleep(0.1)
        rf.port = int(port_file.read_text())
        rf.catalog_uri = f"http://{HOST}:{rf.port}"
        status, body = rf.rest("/v1/config")
        if status != 200:
            raise RuntimeError(f"GET /v1/config answered {status}: {body}\n{rf.log_tail()}")
    except BaseException:
        rf.stop()
        raise
    return rf


def listening_sockets(pid: int) -> list[str]:
    """`ss -ltnp` lines of the sockets process `pid` listens on (empty if ss is missing)."""
    try:
        out = subprocess.run(["ss", "-ltnpH"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [" ".join(line.split()) for line in out.splitlines() if f"pid={pid}," in line]


def short_errors(rest: dict) -> dict:
    """The recorded answers with each error's Java `stack` cut to its first 3 lines."""
    def cut(body):
        if isinstance(body, dict) and isinstance(body.get("error"), dict) and isinstance(body["error"].get("stack"), list):
            stack = body["error"]["stack"]
            return {**body, "error": {**body["error"], "stack": stack[:3] + [f"... {len(stack) - 3} more lines"]}}
        return body
    return {k: [v[0], cut(v[1])] if isinstance(v, (list, tuple)) and len(v) == 2 else v for k, v in rest.items()}
