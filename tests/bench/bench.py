"""Speed and peak memory of reading a table's metadata: icescope (CLI and in Chromium) against
PyIceberg 0.12, DuckDB's iceberg extension and the bytes-once floor, on the same local tables in one
run, reported as medians and ratios (never asserted: a benchmark, not a test).

    bash tests/bench/make_workloads.sh                  # the tables, once (tests/bench/work/)
    tests/.venv/bin/python tests/bench/bench.py [workload names or table folders …]

Default: every table under tests/bench/work/. Each measurement is a fresh process (start-up
included, as a user pays it), repeated --runs times (default 5; the median is reported); a run
that fails or passes --timeout stops the repetitions of that measurement, and a measurement whose
runs add up to more than --budget seconds stops early (the run count is shown). Peak memory is
the process's own max RSS (ru_maxrss via GNU time, see run_child); in Chromium the max over 100 ms samples of the
renderer processes' VmRSS. Results: printed, and written as Markdown to tests/bench/RESULTS.md
(--results to change, --no-results to skip) plus the raw numbers to tests/bench/work/results.json.

What each reader does:
  icescope            target/release/icescope inspect <folder> --format json (metadata-first:
                      metadata.json, the current manifest list, its manifests)
  icescope --all      … --all-snapshots (every snapshot's manifest list and manifests)
  floor               read + inflate (gzip, Avro deflate blocks) exactly the files icescope read
                      (`icescope inspect <folder> --reads`; without that flag: metadata.json +
                      current manifest list + its manifests), in one process; in-process time
  pyiceberg           StaticTable.from_metadata + inspect.snapshots() / inspect.all_manifests() /
                      inspect.entries() (current snapshot), one process each
  duckdb              iceberg_snapshots() / iceberg_metadata() (current snapshot) materialized
                      into a temp table, one process each, extension loaded from its wheel
  browser             the app (trunk build --release → dist/) in headless Chromium via
                      tests/bench/browser_bench.mjs: folder chosen → first chart / all charts
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
WORK = HERE / "work"
BIN = Path(os.environ.get("ICESCOPE_BIN", REPO / "target" / "release" / "icescope"))
DIST = Path(os.environ.get("ICESCOPE_DIST", REPO / "dist"))
PY = sys.executable
ORDER = ["w1b-1000", "w1b-3000", "w1b", "w1a", "w3", "w2"]
READERS = ["icescope", "icescope-all", "floor", "pyiceberg", "duckdb", "browser"]

PYICEBERG = r"""
import json, sys, time
t0 = time.perf_counter()
from pyiceberg.table import StaticTable
t1 = time.perf_counter()
op, meta = sys.argv[1], sys.argv[2]
t = StaticTable.from_metadata(meta)
t2 = time.perf_counter()
r = getattr(t.inspect, op)()
rows = r.num_rows
t3 = time.perf_counter()
# What the timed read found, to hold against icescope's: entries not DELETED (status 2) are the
# current snapshot's live files.
live = sum(1 for v in r.column("status").to_pylist() if v != 2) if op == "entries" else None
print(json.dumps({"rows": rows, "live": live, "import_s": t1 - t0, "load_s": t2 - t1, "op_s": t3 - t2, "in_process_s": t3 - t1}))
"""

DUCKDB = r"""
import glob, importlib.util, json, os, sys, time
t0 = time.perf_counter()
import duckdb
op, meta = sys.argv[1], sys.argv[2]
con = duckdb.connect(config={"autoinstall_known_extensions": False, "autoload_known_extensions": False})
for ext in ("avro", "iceberg"):
    spec = importlib.util.find_spec(f"duckdb_extension_{ext}")
    path = glob.glob(os.path.join(os.path.dirname(spec.origin), "extensions", "*", f"{ext}.duckdb_extension"))[0]
    con.execute(f"LOAD '{path}'")
t1 = time.perf_counter()
q = meta.replace("'", "''")
con.execute(f"CREATE TEMP TABLE r AS SELECT * FROM iceberg_{op}('{q}')")
rows = con.execute("SELECT count(*) FROM r").fetchone()[0]
t2 = time.perf_counter()
# What the timed read found, to hold against icescope's: the current snapshot's entries not DELETED.
live = con.execute("SELECT count(*) FROM r WHERE status <> 'DELETED'").fetchone()[0] if op == "metadata" else None
print(json.dumps({"rows": rows, "live": live, "load_s": t1 - t0, "op_s": t2 - t1, "in_process_s": t2 - t1}))
"""

FLOOR = r"""
import json, sys, time, zlib, gzip
paths = json.load(open(sys.argv[1]))
t0 = time.perf_counter()

def varint(b, i):
    shift = n = 0
    while True:
        c = b[i]; i += 1
        n |= (c & 0x7F) << shift
        if c < 0x80:
            return (n >> 1) ^ -(n & 1), i
        shift += 7

def inflate_avro(b):
    # Object container file: magic, metadata map, sync marker, then blocks (count, size, data, sync).
    assert b[:4] == b"Obj\x01", "not an Avro container"
    i, meta = 4, {}
    while True:
        n, i = varint(b, i)
        if n == 0:
            break
        if n < 0:
            n = -n
            _, i = varint(b, i)
        for _ in range(n):
            kl, i = varint(b, i); k = b[i:i + kl].decode(); i += kl
            vl, i = varint(b, i); meta[k] = b[i:i + vl]; i += vl
    codec = meta.get("avro.codec", b"null").decode()
    i += 16
    out = 0
    while i < len(b):
        _, i = varint(b, i)
        size, i = varint(b, i)
        block = b[i:i + size]; i += size + 16
        if codec == "deflate":
            out += len(zlib.decompress(block, -15))
        elif codec == "null":
            out += len(block)
        elif codec == "zstandard":
            import zstandard
            out += len(zstandard.ZstdDecompressor().decompress(block))
        elif codec == "snappy":
            import cramjam
            out += len(cramjam.snappy.decompress_raw(block[:-4]))
        else:
            raise ValueError("codec " + codec)
    return out

raw = inflated = 0
for p in paths:
    with open(p, "rb") as f:
        b = f.read()
    raw += len(b)
    if p.endswith(".gz"):
        inflated += len(gzip.decompress(b))
    elif p.endswith(".avro"):
        inflated += inflate_avro(b)
    else:
        inflated += len(b)
t1 = time.perf_counter()
print(json.dumps({"files": len(paths), "bytes": raw, "inflated": inflated, "in_process_s": t1 - t0}))
"""


# ------------------------------------------------------------------------------------------------
# running children


class Run:
    def __init__(self, seconds, peak_mib, rc, out, err, timed_out):
        self.seconds, self.peak_mib, self.rc, self.out, self.err, self.timed_out = seconds, peak_mib, rc, out, err, timed_out

    @property
    def ok(self):
        return self.rc == 0 and not self.timed_out

    def why(self):
        if self.timed_out:
            return f"timeout {self.seconds:.0f} s"
        lines = [l for l in (self.err or "").strip().splitlines() if l.strip()]
        return (lines[-1] if lines else f"exit {self.rc}")[:200]


# Peak RSS: a child forked from this (large) Python process starts with its RSS high-water mark, and
# Linux keeps that mark across exec, so os.wait4's ru_maxrss of a direct child is never below this
# process's own RSS. GNU time (a small process) forks the command and reports the command's own
# ru_maxrss; without it, fall back to wait4 (and say so).
GNU_TIME = "/usr/bin/time" if Path("/usr/bin/time").exists() else None


def run_child(cmd, timeout, mem_limit_bytes=None, stdout_path=None) -> Run:
    """One fresh process: wall time, its own peak RSS, exit code, stdout, stderr."""
    out_f = open(stdout_path, "w+b") if stdout_path else tempfile.TemporaryFile()
    err_f = tempfile.TemporaryFile()
    rss_file = None
    if GNU_TIME:
        fd, rss_file = tempfile.mkstemp(prefix="icescope-bench-rss-")
        os.close(fd)
        cmd = [GNU_TIME, "-q", "-f", "%M", "-o", rss_file, *cmd]

    def limits():
        os.setsid()
        if mem_limit_bytes:
            resource.setrlimit(resource.RLIMIT_AS, (mem_limit_bytes, mem_limit_bytes))

    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=out_f, stderr=err_f, stdin=subprocess.DEVNULL, preexec_fn=limits)
    box = {}

    def waiter():
        box["r"] = os.wait4(p.pid, 0)
        box["t"] = time.perf_counter()

    th = threading.Thread(target=waiter, daemon=True)
    th.start()
    th.join(timeout)
    timed_out = th.is_alive()
    if timed_out:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        th.join()
    p.returncode = 0  # reaped by wait4 above; keep Popen from waiting again
    _, status, usage = box["r"]
    seconds = box["t"] - t
    rc = os.waitstatus_to_exitcode(status)
    out_f.seek(0)
    err_f.seek(0)
    out = "" if stdout_path else out_f.read().decode(errors="replace")
    err = err_f.read().decode(errors="replace")
    out_f.close()
    err_f.close()
    peak = usage.ru_maxrss / 1024
    if rss_file:
        try:
            peak = int(Path(rss_file).read_text().split()[-1]) / 1024
        except (ValueError, IndexError):
            pass  # killed, or time printed nothing: keep wait4's (upper bound)
        os.unlink(rss_file)
    return Run(seconds, peak, rc, out, err, timed_out)


class Measure:
    """Repeated fresh-process runs of one command: median time, max peak RSS, last stdout."""

    def __init__(self, name):
        self.name = name
        self.times, self.peaks, self.inproc, self.extra = [], [], [], {}
        self.error = None
        self.out = ""

    @property
    def ok(self):
        return bool(self.times) and self.error is None

    @property
    def median(self):
        return statistics.median(self.times) if self.ok else None

    @property
    def peak(self):
        return max(self.peaks) if self.ok else None

    @property
    def median_inproc(self):
        return statistics.median(self.inproc) if self.ok and self.inproc else None

    def as_dict(self):
        return {
            "runs": len(self.times),
            "times_s": self.times,
            "median_s": self.median,
            "peak_rss_mib": self.peak,
            "in_process_s": self.inproc,
            "median_in_process_s": self.median_inproc,
            "error": self.error,
            **self.extra,
        }


def measure(name, cmd, args, mem_limit=None, parse_json=False, stdout_to_file=False) -> Measure:
    m = Measure(name)
    spent = 0.0
    for i in range(args.runs):
        sink = None
        if stdout_to_file:
            sink = tempfile.NamedTemporaryFile(prefix="icescope-bench-", delete=False).name
        r = run_child(cmd, args.timeout, mem_limit, sink)
        if sink:
            m.out = Path(sink).read_text(errors="replace") if i == 0 else m.out
            os.unlink(sink)
        else:
            m.out = r.out
        if not r.ok:
            m.error = r.why()
            break
        m.times.append(r.seconds)
        m.peaks.append(r.peak_mib)
        if parse_json:
            try:
                j = json.loads(r.out.strip().splitlines()[-1])
            except (ValueError, IndexError):
                m.error = f"unexpected output: {r.out.strip()[:120]!r}"
                break
            m.inproc.append(j.get("in_process_s"))
            m.extra.update({k: v for k, v in j.items() if k not in ("in_process_s",)})
        spent += r.seconds
        if spent > args.budget and i + 1 < args.runs:
            break
    # keep the last error-free stdout; note how many runs were made
    return m


# ------------------------------------------------------------------------------------------------
# tables


def metadata_file(folder: Path) -> Path:
    facts = folder / "facts.json"
    if facts.exists():
        name = json.loads(facts.read_text()).get("metadata_file")
        if name and (folder / "metadata" / name).exists():
            return folder / "metadata" / name
    hint = folder / "metadata" / "version-hint.text"
    if hint.exists():
        v = hint.read_text().strip()
        for cand in (f"v{v}.metadata.json", f"v{v}.gz.metadata.json", f"v{v}.metadata.json.gz"):
            if (folder / "metadata" / cand).exists():
                return folder / "metadata" / cand

    def version(p: Path):
        m = re.match(r"v?(\d+)", p.name)
        return int(m.group(1)) if m else -1

    metas = sorted((folder / "metadata").glob("*.metadata.json*"), key=version)
    if not metas:
        raise SystemExit(f"{folder}: no metadata/*.metadata.json")
    return metas[-1]


def local_path(loc: str, folder: Path) -> Path | None:
    """A path as written in metadata (file:/…, file:///…, /…, relative) → the local file."""
    p = re.sub(r"^file:(//)?", "", loc.strip())
    cand = Path(p) if p.startswith("/") else folder / p
    if cand.exists():
        return cand
    # moved table: match by the part after the table folder's name, then by file name
    parts = Path(p).parts
    for i in range(len(parts)):
        if parts[i] in ("metadata", "data"):
            alt = folder.joinpath(*parts[i:])
            if alt.exists():
                return alt
    return None


def default_reads(folder: Path, meta: Path) -> list[Path]:
    """metadata.json + the current snapshot's manifest list + the manifests it names (fastavro)."""
    import fastavro  # noqa: PLC0415

    m = json.loads(meta.read_text())
    files = [meta]
    cur = m.get("current-snapshot-id")
    snap = next((s for s in m.get("snapshots", []) if s["snapshot-id"] == cur), None)
    if snap and snap.get("manifest-list"):
        lst = local_path(snap["manifest-list"], folder)
        files.append(lst)
        with open(lst, "rb") as f:
            for rec in fastavro.reader(f):
                files.append(local_path(rec["manifest_path"], folder))
    if any(f is None for f in files):
        raise RuntimeError("a file named by the metadata is missing")
    return files


def icescope_reads(folder: Path, args) -> tuple[list[Path] | None, str]:
    if not BIN.exists():
        return None, "no binary"
    r = run_child([str(BIN), "inspect", str(folder), "--reads"], args.timeout)
    if not r.ok:
        return None, r.why()
    lines = [l for l in r.out.splitlines() if l.strip()]
    if not lines or lines[0].lstrip().startswith("{"):
        return None, "--reads printed no paths"
    paths = [local_path(l, folder) for l in lines]
    if any(p is None for p in paths):
        bad = next(l for l, p in zip(lines, paths) if p is None)
        return None, f"--reads named a file not found locally: {bad}"
    return paths, ""


# ------------------------------------------------------------------------------------------------
# builds


def newest_mtime(paths) -> float:
    newest = 0.0
    for base in paths:
        base = Path(base)
        if base.is_file():
            newest = max(newest, base.stat().st_mtime)
        elif base.is_dir():
            for root, dirs, files in os.walk(base):
                dirs[:] = [d for d in dirs if d not in ("target", "node_modules", ".git")]
                for f in files:
                    newest = max(newest, os.stat(os.path.join(root, f)).st_mtime)
    return newest


def build_cli(args) -> str:
    sources = [REPO / "app", REPO / "Cargo.toml", REPO / "Cargo.lock"]
    if "ICESCOPE_BIN" in os.environ or args.no_build:
        return "" if BIN.exists() else f"{BIN} missing (--no-build)"
    if BIN.exists() and BIN.stat().st_mtime >= newest_mtime(sources):
        return ""
    print("building target/release/icescope (cargo build --release --bin icescope) …", flush=True)
    r = subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "icescope"], cwd=REPO)
    if r.returncode != 0:
        if BIN.exists():
            return "cargo build failed; measured the existing (older) binary"
        return "cargo build failed and there is no binary"
    return ""


def build_dist(args) -> str:
    index = DIST / "index.html"
    if "ICESCOPE_DIST" in os.environ or args.no_build:
        return "" if index.exists() else f"{index} missing"
    sources = [REPO / "app", REPO / "Cargo.toml", REPO / "Cargo.lock", REPO / "style", REPO / "public", REPO / "Trunk.toml"]
    if index.exists() and index.stat().st_mtime >= newest_mtime(sources):
        return ""
    trunk = shutil.which("trunk") or str(Path.home() / ".cargo" / "bin" / "trunk")
    if not Path(trunk).exists():
        return "trunk not installed (bash tests/setup.sh)" if not index.exists() else "trunk missing; measured the existing dist/"
    print("building dist/ (trunk build --release) …", flush=True)
    # wasm-opt from npm (tests/tools), as tests/run.sh does: Debian's is too old.
    env = {**os.environ, "PATH": f"{REPO / 'tests' / 'tools' / 'node_modules' / '.bin'}:{os.environ.get('PATH', '')}"}
    r = subprocess.run([trunk, "build", "--release"], cwd=REPO, env=env)
    if r.returncode != 0:
        return "trunk build failed; measured the existing dist/" if index.exists() else "trunk build failed"
    return ""


# ------------------------------------------------------------------------------------------------
# machine


def sh(cmd) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def machine() -> dict:
    cpu = next((l.split(":", 1)[1].strip() for l in Path("/proc/cpuinfo").read_text().splitlines() if l.startswith("model name")), platform.processor())
    mem = next((int(l.split()[1]) for l in Path("/proc/meminfo").read_text().splitlines() if l.startswith("MemTotal")), 0)
    v = {}
    for mod in ("pyiceberg", "duckdb", "pyarrow", "fastavro"):
        try:
            v[mod] = __import__(mod).__version__
        except Exception:  # noqa: BLE001
            v[mod] = "missing"
    try:
        import duckdb  # noqa: PLC0415
        import glob
        import importlib.util

        con = duckdb.connect(config={"autoinstall_known_extensions": False, "autoload_known_extensions": False})
        for ext in ("avro", "iceberg"):
            spec = importlib.util.find_spec(f"duckdb_extension_{ext}")
            path = glob.glob(os.path.join(os.path.dirname(spec.origin), "extensions", "*", f"{ext}.duckdb_extension"))[0]
            con.execute(f"LOAD '{path}'")
        v["duckdb iceberg extension"] = con.execute("SELECT extension_version FROM duckdb_extensions() WHERE extension_name = 'iceberg'").fetchone()[0]
    except Exception as e:  # noqa: BLE001
        v["duckdb iceberg extension"] = f"unavailable ({e})"[:80]
    pw = REPO / "tests" / "e2e" / "node_modules" / "playwright-core" / "package.json"
    v["playwright-core"] = json.loads(pw.read_text())["version"] if pw.exists() else "missing"
    v["chromium"] = sh(["/usr/bin/chromium", "--version"]) or "missing"
    v["node"] = sh(["node", "--version"])
    v["rustc"] = sh(["rustc", "--version"])
    v["python"] = platform.python_version()
    v["icescope"] = (sh(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"]) + (" (working tree modified)" if sh(["git", "-C", str(REPO), "status", "--porcelain", "--", "app"]) else ""))
    return {
        "nproc": os.cpu_count(),
        "memory_gib": round(mem / 1024 / 1024, 1),
        "cpu": cpu,
        "kernel": platform.release(),
        "loadavg_start": os.getloadavg(),
        "versions": v,
    }


# ------------------------------------------------------------------------------------------------
# one table


def facts_of(folder: Path, meta: Path) -> dict:
    f = json.loads((folder / "facts.json").read_text()) if (folder / "facts.json").exists() else {}
    m = json.loads(meta.read_text())
    return {
        "snapshots": len(m.get("snapshots", [])),
        "metadata_file": meta.name,
        "metadata_bytes": meta.stat().st_size,
        "current_manifest_list_bytes": f.get("current_snapshot", {}).get("manifest_list_bytes"),
        "current_manifests": f.get("current_snapshot", {}).get("manifests"),
        "current_manifest_bytes": f.get("current_snapshot", {}).get("manifest_bytes"),
        "all_manifest_list_bytes": f.get("metadata_dir", {}).get("manifest_list_bytes"),
        "all_manifest_bytes": f.get("metadata_dir", {}).get("manifest_bytes"),
        "small": f.get("small"),
        "generator_seconds": f.get("generator_seconds"),
    }


def bench_table(folder: Path, args, notes: list[str]) -> dict:
    meta = metadata_file(folder)
    res = {"table": folder.name, "folder": str(folder), "facts": facts_of(folder, meta), "m": {}}
    m = res["m"]
    say = lambda what, x: print(f"  {folder.name:<10} {what:<26} {fmt_measure(x)}", flush=True)  # noqa: E731
    mem = args.py_mem_gb * 1024**3

    if "icescope" in args.readers:
        x = measure("icescope", [str(BIN), "inspect", str(folder), "--format", "json"], args, stdout_to_file=True)
        if x.ok:
            try:
                report = json.loads(x.out)
                current = next((s for s in report["snapshots"] if s.get("read") == "current"), report["snapshots"][-1])
                x.extra["snapshots"] = len(report.get("snapshots", []))
                x.extra["current_live_files"] = current["data_files"] + current["delete_files"]
            except (ValueError, KeyError, IndexError):
                x.error = "its JSON did not say the snapshot count and the current snapshot's files"
        x.out = ""
        m["icescope"] = x.as_dict()
        say("icescope", x)
    if "icescope-all" in args.readers:
        x = measure("icescope-all", [str(BIN), "inspect", str(folder), "--format", "json", "--all-snapshots"], args, stdout_to_file=True)
        if x.ok:
            try:
                x.extra["all_manifests"] = sum(s["manifests"] for s in json.loads(x.out)["snapshots"])
            except (ValueError, KeyError, TypeError):
                x.error = "its JSON did not say every snapshot's manifests"
        x.out = ""
        m["icescope_all"] = x.as_dict()
        say("icescope --all-snapshots", x)

    if "floor" in args.readers:
        paths, why = icescope_reads(folder, args)
        source = "icescope --reads"
        if paths is None:
            source = f"fallback: metadata.json + current manifest list + manifests ({why})"
            paths = default_reads(folder, meta)
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as tf:
            json.dump([str(p) for p in paths], tf)
        x = measure("floor", [PY, "-c", FLOOR, tf.name], args, parse_json=True)
        os.unlink(tf.name)
        res["reads"] = [str(p) for p in paths]
        x.extra["source"] = source
        x.extra["read_files"] = len(paths)
        x.extra["read_bytes"] = sum(p.stat().st_size for p in paths)
        m["floor"] = x.as_dict()
        say("floor (read+inflate)", x)

    if "pyiceberg" in args.readers:
        for op in args.pyiceberg_ops.split(","):
            x = measure(f"pyiceberg {op}", [PY, "-c", PYICEBERG, op, str(meta)], args, mem_limit=mem, parse_json=True)
            m[f"pyiceberg_{op}"] = x.as_dict()
            say(f"pyiceberg {op}", x)
    if "duckdb" in args.readers:
        for op in ("snapshots", "metadata"):
            x = measure(f"duckdb {op}", [PY, "-c", DUCKDB, op, str(meta)], args, mem_limit=mem, parse_json=True)
            m[f"duckdb_{op}"] = x.as_dict()
            say(f"duckdb iceberg_{op}", x)
    if "browser" in args.readers and args.browser_ok:
        cmd = ["node", str(HERE / "browser_bench.mjs"), "--runs", str(args.runs), "--timeout-ms", str(args.browser_timeout * 1000), "--dist", str(DIST), str(folder)]
        floor_list = None
        if res.get("reads"):
            # The browser's floor: Chromium reading exactly these files, nothing else done.
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as tf:
                json.dump([os.path.abspath(p) for p in res["reads"]], tf)
            floor_list = tf.name
            cmd[2:2] = ["--floor-list", floor_list]
        print(f"  {folder.name:<10} browser …", flush=True)
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=args.browser_timeout * (args.runs + 2) + 300)
        if floor_list:
            os.unlink(floor_list)
        sys.stderr.write("".join(f"    {l}\n" for l in r.stderr.splitlines()))
        try:
            b = json.loads(r.stdout.strip().splitlines()[-1])[0]
        except (ValueError, IndexError):
            b = {"error": (r.stderr.strip().splitlines() or ["no output"])[-1][:200]}
        m["browser"] = b
        med = b.get("median", {})
        print(f"  {folder.name:<10} {'browser':<26} first chart {fs(med.get('first_from_chosen_s'))}, all charts {fs(med.get('all_from_chosen_s'))}, read floor {fs(med.get('read_floor_s'))}, peak renderer {fm(med.get('peak_renderer_rss_mib'))}", flush=True)
    res.pop("reads", None)
    res["disagree"], checked = disagreements(m)
    for d in res["disagree"]:
        print(f"  {folder.name:<10} DISAGREE {d}", flush=True)
    if checked:
        print(f"  {folder.name:<10} counts held to icescope's: {'; '.join(checked)}", flush=True)
    return res


def disagreements(m: dict) -> tuple[list[str], list[str]]:
    """Every reader's count of what it was timed on, against icescope's: a faster read that found
    less is no win. Each pair that both readers answered must agree; the row fails otherwise."""
    ice, ice_all = m.get("icescope", {}), m.get("icescope_all", {})
    checks = [
        ("pyiceberg_snapshots", "rows", ice.get("snapshots"), "snapshots"),
        ("duckdb_snapshots", "rows", ice.get("snapshots"), "snapshots"),
        ("pyiceberg_entries", "live", ice.get("current_live_files"), "current snapshot's live files"),
        ("duckdb_metadata", "live", ice.get("current_live_files"), "current snapshot's live files"),
        ("pyiceberg_all_manifests", "rows", ice_all.get("all_manifests"), "manifests of every snapshot"),
    ]
    out, checked = [], []
    for key, field, want, what in checks:
        if not m.get(key) or m[key].get("error") is not None or want is None:
            continue
        got = m[key].get(field)
        if got != want:
            out.append(f"{key}: {what} {got}, icescope {want}")
        else:
            checked.append(f"{key} {what} {got}")
    return out, checked


# ------------------------------------------------------------------------------------------------
# formatting


def fs(x, digits=3) -> str:
    if x is None:
        return "n/a"
    return f"{x:.{digits}f}" if x < 10 else f"{x:.1f}"


def fm(x) -> str:
    return "n/a" if x is None else f"{x:.0f}"


def fmt_measure(x: Measure) -> str:
    if not x.ok:
        return f"n/a ({x.error})"
    s = f"{fs(x.median)} s, peak {fm(x.peak)} MiB"
    if x.median_inproc is not None:
        s += f" (in process {fs(x.median_inproc)} s)"
    if len(x.times) < 5:
        s += f" [{len(x.times)} run{'s' if len(x.times) > 1 else ''}]"
    return s


def get(res, key, field="median_s"):
    d = res["m"].get(key)
    if not d or d.get("error") and field != "error":
        return None
    return d.get(field)


def cell_time(res, key, field="median_s"):
    d = res["m"].get(key)
    if d is None:
        return "–"
    if d.get("error"):
        e = d["error"]
        return "timeout" if e.startswith("timeout") else ("out of memory" if "MemoryError" in e or "memory" in e.lower() else "n/a")
    v = d.get(field)
    runs = d.get("runs", 5)
    return fs(v) + ("" if runs >= 5 else f" ({runs}×)")


def ratio(a, b) -> str:
    if a is None or b is None or b == 0:
        return "n/a"
    r = a / b
    return f"{r:.1f}" if r < 100 else f"{r:.0f}"


def browser_get(res, key):
    b = res["m"].get("browser") or {}
    return (b.get("median") or {}).get(key)


def kib(n):
    return "n/a" if n is None else (f"{n / 1024:.0f} KiB" if n < 1024**2 else f"{n / 1024**2:.1f} MiB")


def report(results, info, args, notes) -> str:
    bad = [f"{r['table']}: {d}" for r in results for d in r.get("disagree", [])]
    if bad:
        notes = notes + ["DISAGREE — a reader counted other than icescope on what it was timed on, so its row is no comparison: " + "; ".join(bad)]
    L = []
    L.append("# icescope benchmark results\n")
    L.append(f"Generated by `tests/.venv/bin/python tests/bench/bench.py {' '.join(args.tables)}`".rstrip() + f" on {time.strftime('%Y-%m-%d %H:%M %Z')}; "
             f"tables from `bash tests/bench/make_workloads.sh` (tests/bench/work/, see docs/benchmark.md). "
             f"Median of {args.runs} runs, each a fresh process (warm page cache); peak = max RSS.\n")
    v = info["versions"]
    L.append("## Machine\n")
    L.append(f"- {info['nproc']} CPUs ({info['cpu']}), {info['memory_gib']} GiB, Linux {info['kernel']}; "
             f"load average at start {', '.join(f'{x:.1f}' for x in info['loadavg_start'])}, at end {', '.join(f'{x:.1f}' for x in info.get('loadavg_end', []))}")
    L.append("- " + ", ".join(f"{k} {val}" for k, val in v.items()))
    for n in notes:
        L.append(f"- {n}")
    L.append("")

    L.append("## Tables\n")
    L.append("| table | snapshots | metadata.json | current manifest list | current manifests | all manifest lists | all manifests | icescope read |")
    L.append("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        f = r["facts"]
        fl = r["m"].get("floor") or {}
        L.append(f"| {r['table']}{' (small)' if f.get('small') else ''} | {f['snapshots']} | {kib(f['metadata_bytes'])} | {kib(f['current_manifest_list_bytes'])} | "
                 f"{f['current_manifests'] if f['current_manifests'] is not None else 'n/a'} / {kib(f['current_manifest_bytes'])} | {kib(f['all_manifest_list_bytes'])} | {kib(f['all_manifest_bytes'])} | "
                 f"{fl.get('read_files', 'n/a')} files / {kib(fl.get('read_bytes'))} |")
    L.append("")

    L.append("## Time (seconds, median; fresh process, start-up included)\n")
    L.append("| table | icescope | icescope --all-snapshots | floor (in process) | PyIceberg snapshots | PyIceberg all_manifests | PyIceberg entries | DuckDB iceberg_snapshots | DuckDB iceberg_metadata | browser: first chart | browser: all charts |")
    L.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        L.append(f"| {r['table']} | {cell_time(r, 'icescope')} | {cell_time(r, 'icescope_all')} | {cell_time(r, 'floor', 'median_in_process_s')} | "
                 f"{cell_time(r, 'pyiceberg_snapshots')} | {cell_time(r, 'pyiceberg_all_manifests')} | {cell_time(r, 'pyiceberg_entries')} | "
                 f"{cell_time(r, 'duckdb_snapshots')} | {cell_time(r, 'duckdb_metadata')} | {fs(browser_get(r, 'first_from_chosen_s'))} | {fs(browser_get(r, 'all_from_chosen_s'))} |")
    L.append("")
    L.append("Browser (headless Chromium, the app from dist/): seconds from the app's `icescope:files-chosen` mark, and from just before "
             "`setInputFiles` (page clock); *ready* = when `[data-testid=table-view][data-state=ready]` was first seen (node, 0.1 s polling), "
             "a fallback that needs no marks. *Read floor* = the same Chromium reading only the files icescope read, from a bare folder input, "
             "24 `File.arrayBuffer()` calls in flight (what the app keeps), nothing decoded or drawn: no page can chart them sooner.\n")
    L.append("| table | metadata read | first chart | all charts | read floor | all charts ÷ read floor | first chart (from before) | all charts (from before) | ready (from before) | setInputFiles |")
    L.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        b = r["m"].get("browser")
        if b is None:
            L.append(f"| {r['table']} | – | – | – | – | – | – | – | – | – |")
            continue
        if b.get("error"):
            L.append(f"| {r['table']} | n/a ({b['error'][:80]}) | | | | | | | | |")
            continue
        L.append(f"| {r['table']} | {fs(browser_get(r, 'metadata_from_chosen_s'))} | {fs(browser_get(r, 'first_from_chosen_s'))} | {fs(browser_get(r, 'all_from_chosen_s'))} | "
                 f"{fs(browser_get(r, 'read_floor_s'))} | {ratio(browser_get(r, 'all_from_chosen_s'), browser_get(r, 'read_floor_s'))} | "
                 f"{fs(browser_get(r, 'first_from_before_s'))} | {fs(browser_get(r, 'all_from_before_s'))} | {fs(browser_get(r, 'ready_from_before_s'))} | {fs(browser_get(r, 'set_input_s'))} |")
    L.append("")

    L.append("## Peak memory (MiB)\n")
    L.append("| table | icescope | icescope --all-snapshots | PyIceberg snapshots | PyIceberg all_manifests | PyIceberg entries | DuckDB iceberg_snapshots | DuckDB iceberg_metadata | Chromium page renderer (idle → peak) | all Chromium processes |")
    L.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    mm = lambda r, k: fm(get(r, k, "peak_rss_mib"))  # noqa: E731
    for r in results:
        L.append(f"| {r['table']} | {mm(r, 'icescope')} | {mm(r, 'icescope_all')} | {mm(r, 'pyiceberg_snapshots')} | {mm(r, 'pyiceberg_all_manifests')} | {mm(r, 'pyiceberg_entries')} | "
                 f"{mm(r, 'duckdb_snapshots')} | {mm(r, 'duckdb_metadata')} | {fm(browser_get(r, 'renderer_rss_before_mib'))} → {fm(browser_get(r, 'peak_renderer_rss_mib'))} | {fm(browser_get(r, 'peak_total_rss_mib'))} |")
    L.append("")

    L.append("## Ratios\n")
    L.append("PyIceberg entries and DuckDB iceberg_metadata do what icescope's default mode does (metadata.json, the current manifest list, its manifests); "
             "PyIceberg all_manifests reads every snapshot's manifest list, as `--all-snapshots` does (and more: icescope also opens the manifests). "
             "Floor = reading and inflating icescope's files once, in process. Memory ratio = icescope peak RSS ÷ bytes icescope read (on disk).\n")
    L.append("| table | PyIceberg entries ÷ icescope | PyIceberg all_manifests ÷ icescope --all | DuckDB metadata ÷ icescope | icescope ÷ floor | browser all charts ÷ icescope | icescope peak RSS ÷ bytes read |")
    L.append("|---|---:|---:|---:|---:|---:|---:|")
    for r in results:
        ice = get(r, "icescope")
        floor = get(r, "floor", "median_in_process_s")
        rb = (r["m"].get("floor") or {}).get("read_bytes")
        peak = get(r, "icescope", "peak_rss_mib")
        mem_ratio = "n/a" if not (peak and rb) else f"{peak * 1024**2 / rb:.1f}"
        L.append(f"| {r['table']} | {ratio(get(r, 'pyiceberg_entries'), ice)} | {ratio(get(r, 'pyiceberg_all_manifests'), get(r, 'icescope_all'))} | "
                 f"{ratio(get(r, 'duckdb_metadata'), ice)} | {ratio(ice, floor)} | {ratio(browser_get(r, 'all_from_chosen_s'), ice)} | {mem_ratio} |")
    L.append("")

    L.append("## Scaling w1b-3000 → w1b (5.76× the commits)\n")
    by = {r["table"]: r for r in results}
    a, b = by.get("w1b-3000"), by.get("w1b")
    lines = scaling(a, b)
    L.extend(lines or ["(needs both w1b-3000 and w1b in the run)"])
    L.append("")
    return "\n".join(L)


def scaling(a, b) -> list[str]:
    if not (a and b):
        return []
    sa = a["facts"]["snapshots"]
    sb = b["facts"]["snapshots"]
    k = sb / sa if sa else 5.76
    out = [f"Commits ratio {k:.2f} (linear = {k:.2f}×). Time ratio ÷ {k:.2f}: 1 = linear, {k:.2f} = quadratic.\n",
           "| reader | w1b-3000 | w1b | time ratio | ÷ commits ratio |", "|---|---:|---:|---:|---:|"]
    rows = [("icescope", "icescope", "median_s"), ("icescope --all-snapshots", "icescope_all", "median_s"), ("floor", "floor", "median_in_process_s"),
            ("PyIceberg snapshots", "pyiceberg_snapshots", "median_s"), ("PyIceberg all_manifests", "pyiceberg_all_manifests", "median_s"),
            ("PyIceberg entries", "pyiceberg_entries", "median_s"), ("DuckDB iceberg_snapshots", "duckdb_snapshots", "median_s"),
            ("DuckDB iceberg_metadata", "duckdb_metadata", "median_s")]
    for label, key, field in rows:
        x, y = get(a, key, field), get(b, key, field)
        out.append(f"| {label} | {fs(x)} | {fs(y)} | {ratio(y, x)} | {'n/a' if not (x and y) else f'{y / x / k:.2f}'} |")
    for label, key in (("browser first chart", "first_from_chosen_s"), ("browser all charts", "all_from_chosen_s")):
        x, y = browser_get(a, key), browser_get(b, key)
        out.append(f"| {label} | {fs(x)} | {fs(y)} | {ratio(y, x)} | {'n/a' if not (x and y) else f'{y / x / k:.2f}'} |")
    return out


# ------------------------------------------------------------------------------------------------


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tables", nargs="*", help="workload names (under tests/bench/work/) or table folders; default: all of tests/bench/work/*")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--timeout", type=float, default=600, help="seconds per run before it is killed (default 600)")
    ap.add_argument("--budget", type=float, default=1800, help="stop repeating a measurement once its runs took this many seconds (default 1800)")
    ap.add_argument("--browser-timeout", type=int, default=120, help="seconds per table and run in Chromium (default 120)")
    ap.add_argument("--py-mem-gb", type=float, default=10, help="address-space limit for the PyIceberg/DuckDB processes (default 10)")
    ap.add_argument("--readers", default=",".join(READERS), help=f"comma list of {','.join(READERS)}")
    ap.add_argument("--pyiceberg-ops", default="snapshots,all_manifests,entries",
                    help="which PyIceberg inspections to time (all_manifests reads every snapshot's list: minutes on a day of commits)")
    ap.add_argument("--no-build", action="store_true", help="use target/release/icescope and dist/ as they are")
    ap.add_argument("--results", default=str(HERE / "RESULTS.md"))
    ap.add_argument("--no-results", action="store_true")
    ap.add_argument("--report-only", action="store_true", help="write RESULTS.md from tests/bench/work/results.json as the last (possibly stopped) run left it")
    args = ap.parse_args()
    if args.report_only:
        saved = json.loads((WORK / "results.json").read_text())
        info = saved["machine"]
        info.setdefault("loadavg_end", os.getloadavg())
        notes = saved["notes"] + [f"report written from results.json: {len(saved['results'])} tables measured"]
        Path(args.results).write_text(report(saved["results"], info, args, notes) + "\n")
        print(f"written {args.results}")
        return
    args.readers = [r.strip() for r in args.readers.split(",") if r.strip()]
    for r in args.readers:
        if r not in READERS:
            ap.error(f"unknown reader {r} ({', '.join(READERS)})")

    if args.tables:
        folders = [(WORK / t) if not Path(t).exists() and (WORK / t).exists() else Path(t) for t in args.tables]
    else:
        found = [p for p in WORK.iterdir() if (p / "metadata").is_dir()] if WORK.exists() else []
        folders = sorted(found, key=lambda p: (ORDER.index(p.name) if p.name in ORDER else len(ORDER), p.name))
    folders = [f.resolve() for f in folders]
    for f in folders:
        if not (f / "metadata").is_dir():
            raise SystemExit(f"{f}: not a table folder (no metadata/); make the tables with bash tests/bench/make_workloads.sh")
    if not folders:
        raise SystemExit("no tables: run bash tests/bench/make_workloads.sh first")

    notes = []
    if {"icescope", "icescope-all", "floor"} & set(args.readers):
        why = build_cli(args)
        if why:
            notes.append(f"icescope CLI: {why}")
            print(why)
    args.browser_ok = False
    if "browser" in args.readers:
        why = build_dist(args)
        args.browser_ok = (DIST / "index.html").exists() and Path("/usr/bin/chromium").exists()
        if why:
            notes.append(f"browser: {why}")
            print(why)
    info = machine()
    print(f"machine: {info['nproc']} CPUs ({info['cpu']}), {info['memory_gib']} GiB, load {info['loadavg_start']}")
    print("versions: " + ", ".join(f"{k} {v}" for k, v in info["versions"].items()), flush=True)

    results = []
    for f in folders:
        print(f"{f.name}: {f}", flush=True)
        results.append(bench_table(f, args, notes))
        WORK.mkdir(exist_ok=True)
        (WORK / "results.json").write_text(json.dumps({"machine": info, "notes": notes, "results": results}, indent=1))
    info["loadavg_end"] = os.getloadavg()
    md = report(results, info, args, notes)
    print()
    print(md)
    if not args.no_results:
        Path(args.results).write_text(md + "\n")
        print(f"written {args.results}")
    (WORK / "results.json").write_text(json.dumps({"machine": info, "notes": notes, "results": results}, indent=1))
    bad = [f"{r['table']}: {d}" for r in results for d in r.get("disagree", [])]
    if bad:
        print("a reader counted other than icescope on what it was timed on: those rows are no comparison\n  " + "\n  ".join(bad))
        sys.exit(1)


if __name__ == "__main__":
    main()
