"""Speed and peak memory of reading a table's metadata: icescope's CLI against PyIceberg and DuckDB
on the same tables, reported as ratios (never asserted: a benchmark, not a test).

    tests/.venv/bin/python tests/bench/bench.py [table-folder …]

Each reader does the same work: every snapshot's live data and delete files, from the metadata
files on disk. Each run is a fresh process, so start-up is included, as a user would pay it.
"""

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BIN = REPO / "target" / "release" / "icescope"
PY = sys.executable
RUNS = 5

PYICEBERG = r'''
import sys, glob, os, re
from pyiceberg.table import StaticTable
from pyiceberg.io.pyarrow import PyArrowFileIO
folder = sys.argv[1]
# The metadata names s3://… or /tmp/… paths: map each to the folder's file with the same name, as
# icescope and DuckDB (allow_moved_paths) do.
local = {os.path.basename(p): p for p in glob.glob(folder + "/**/*", recursive=True)}
_new_input = PyArrowFileIO.new_input
PyArrowFileIO.new_input = lambda self, loc: _new_input(self, local.get(os.path.basename(loc), loc))
metas = sorted(glob.glob(folder + "/metadata/*.metadata.json"), key=lambda p: int(re.match(r"v?(\d+)", os.path.basename(p)).group(1)))
t = StaticTable.from_metadata(metas[-1])
# Paths inside point at s3://…; read the folder instead.
import pyiceberg.io.pyarrow as pa_io
n = 0
for s in t.metadata.snapshots:
    n += len(t.inspect.entries(snapshot_id=s.snapshot_id))
print(n)
'''

DUCKDB = r'''
import sys, glob, os, re, duckdb
folder = sys.argv[1]
con = duckdb.connect(config={"autoinstall_known_extensions": False, "autoload_known_extensions": False})
for ext in ("avro", "iceberg"):
    import importlib.util
    spec = importlib.util.find_spec(f"duckdb_extension_{ext}")
    path = glob.glob(os.path.join(os.path.dirname(spec.origin), "extensions", "*", f"{ext}.duckdb_extension"))[0]
    con.execute(f"LOAD '{path}'")
metas = sorted(glob.glob(folder + "/metadata/*.metadata.json"), key=lambda p: int(re.match(r"v?(\d+)", os.path.basename(p)).group(1)))
import json
ids = [s["snapshot-id"] for s in json.load(open(metas[-1]))["snapshots"]]
version = os.path.basename(metas[-1])[: -len(".metadata.json")]
n = 0
for i in ids:
    n += con.execute(f"SELECT count(*) FROM iceberg_metadata('{folder}', allow_moved_paths := true, version := '{version}', snapshot_from_id := {i})").fetchone()[0]
print(n)
'''


def measure(cmd: list[str]) -> tuple[float, float, str]:
    """(median seconds, peak RSS MiB of that process alone, stdout)"""
    times, peaks, out = [], [], ""
    for _ in range(RUNS):
        t = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        stdout, stderr = p.stdout.read(), p.stderr.read()
        _, status, usage = os.wait4(p.pid, 0)  # this child's own rusage, not every child's so far
        times.append(time.perf_counter() - t)
        if status != 0:
            return float("nan"), float("nan"), stderr.strip().splitlines()[-1] if stderr.strip() else "failed"
        peaks.append(usage.ru_maxrss / 1024)
        out = stdout
    return statistics.median(times), max(peaks), out


def main() -> None:
    subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "icescope"], cwd=REPO, check=True)
    folders = [Path(a) for a in sys.argv[1:]] or sorted(p for p in (REPO / "tests" / "fixtures").iterdir() if p.is_dir())
    print(f"{'table':<26} {'snapshots':>9} {'icescope s':>10} {'pyiceberg ×':>11} {'duckdb ×':>9} {'MiB icescope':>12} {'pyiceberg ×':>11} {'duckdb ×':>9}")
    for f in folders:
        t_ice, m_ice, out = measure([str(BIN), "inspect", str(f), "--format", "json"])
        snaps = len(json.loads(out)["snapshots"]) if out.startswith("{") else 0
        t_py, m_py, py_out = measure([PY, "-c", PYICEBERG, str(f)])
        t_dk, m_dk, dk_out = measure([PY, "-c", DUCKDB, str(f)])
        ratio = lambda a, b: f"{a / b:.1f}" if a == a else "n/a"
        print(f"{f.name:<26} {snaps:>9} {t_ice:>10.3f} {ratio(t_py, t_ice):>11} {ratio(t_dk, t_ice):>9} {m_ice:>12.1f} {ratio(m_py, m_ice):>11} {ratio(m_dk, m_ice):>9}")
        for name, o in (("pyiceberg", py_out), ("duckdb", dk_out)):
            if not o.strip().isdigit():
                print(f"  {name}: {o.strip()[:160]}")


if __name__ == "__main__":
    main()
