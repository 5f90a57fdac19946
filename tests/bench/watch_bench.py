"""What following a day-sized table costs: `icescope watch` on a copy of a workload table whose
newest metadata files are held back and then land one every INTERVAL seconds, as a writer's
commits would.

    python3 tests/bench/watch_bench.py TABLE [--every 5] [--steps 12] [--idle 6] [--bin target/release/icescope]

TABLE is a workload folder (tests/bench/make_workloads.sh; W1a: 17,280 merge appends). Its
`metadata/` is linked file by file into a shadow folder (hard links: nothing is copied), the
newest STEPS metadata files left out. The watch starts on the shadow; then every INTERVAL seconds
the next held-back file is linked in (a commit landing, written whole before it is named, as
Iceberg's writers do), and after the last, IDLE more looks with nothing new.

Per look that found a new file: the files and bytes it read (from the watch's own `metadata`
event), the CPU the process used between two looks (utime + stime from /proc), and the time from
the file landing to its commit event on stdout (a look waits up to one interval: the mean is about
half of it plus the read). Idle looks: CPU each. Over the whole run: CPU as a share of one core,
and the resident memory at the first look, at the end, at most and about once a minute (no growth:
a watched table's history is replaced, not kept twice).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TICK = os.sysconf("SC_CLK_TCK")


def version(name: str) -> int:
    m = re.match(r"^v?(\d+)", name)
    return int(m.group(1)) if m else -1


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("table", type=Path)
    ap.add_argument("--every", type=float, default=5.0)
    ap.add_argument("--steps", type=int, default=12)
    ap.add_argument("--idle", type=int, default=6)
    ap.add_argument("--bin", type=Path, default=REPO / "target" / "release" / "icescope")
    ap.add_argument("--work", type=Path, default=None, help="where the shadow folder goes (same filesystem as TABLE)")
    a = ap.parse_args()

    src = a.table.resolve() / "metadata"
    names = sorted((n for n in os.listdir(src) if n.endswith(".metadata.json")), key=version)
    held = names[-a.steps:]
    shadow = (a.work or a.table.resolve().parent / "watch-shadow") / a.table.name
    if shadow.exists():
        shutil.rmtree(shadow)
    (shadow / "metadata").mkdir(parents=True)
    for n in os.listdir(src):
        if n not in held:
            os.link(src / n, shadow / "metadata" / n)
    every_ms = int(a.every * 1000)
    proc = subprocess.Popen([str(a.bin), "watch", str(shadow), "--every", f"{every_ms}ms", "--format", "jsonl",
                             "--stall-after", "1000000"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[tuple[float, dict]] = []
    looks: list[tuple[float, float, float]] = []  # (wall, cpu, rss) sampled each second

    def read():
        for line in proc.stdout:
            lines.append((time.time(), json.loads(line)))

    threading.Thread(target=read, daemon=True).start()
    t0 = time.time()
    while not any(e["event"] == "watching" for _, e in lines):
        if proc.poll() is not None:
            print(proc.stderr.read(), file=sys.stderr)
            return 1
        time.sleep(0.05)
    opened_s = time.time() - t0
    cpu_open = cpu_s(proc.pid)
    rss_open = rss_mib(proc.pid)
    landed: dict[str, float] = {}
    cpu_marks = [(time.time(), cpu_s(proc.pid))]
    rss_steps = [rss_open]
    for n in held:
        time.sleep(a.every)
        os.link(src / n, shadow / "metadata" / n)
        landed[n] = time.time()
        cpu_marks.append((time.time(), cpu_s(proc.pid)))
        rss_steps.append(rss_mib(proc.pid))
    for _ in range(a.idle):
        time.sleep(a.every)
        cpu_marks.append((time.time(), cpu_s(proc.pid)))
        rss_steps.append(rss_mib(proc.pid))
    # The last file's look.
    end = time.time() + 3 * a.every
    while time.time() < end and not any(e["event"] == "metadata" and e["metadata_file"].endswith(held[-1]) for _, e in lines):
        time.sleep(0.1)
    rss_end = rss_mib(proc.pid)
    cpu_end = cpu_s(proc.pid)
    wall = time.time() - cpu_marks[0][0]
    proc.terminate()
    proc.wait(10)

    metadata = [(t, e) for t, e in lines if e["event"] == "metadata"]
    commits = [(t, e) for t, e in lines if e["event"] == "commit"]
    latency = []
    for t, e in metadata:
        name = Path(e["metadata_file"]).name
        if name in landed:
            latency.append(t - landed[name])
    steps = [(e["read_files"], e["read_bytes"], e["bytes"]) for _, e in metadata]
    # CPU per interval: those with a file landing in them, and the idle ones after.
    per = [b[1] - a_[1] for a_, b in zip(cpu_marks, cpu_marks[1:])]
    busy, idle = per[1:len(held)], per[len(held) + 1:]
    out = {
        "table": str(a.table),
        "snapshots_at_start": next(e["snapshots"] for _, e in lines if e["event"] == "watching"),
        "every_s": a.every,
        "opened_s": round(opened_s, 2),
        "open_cpu_s": round(cpu_open, 2),
        "new_metadata_files": len(metadata),
        "commit_events": len(commits),
        "read_per_step": {"files": sorted({s[0] for s in steps}), "bytes_median": statistics.median(s[1] for s in steps) if steps else None,
                          "metadata_bytes_median": statistics.median(s[2] for s in steps if s[2]) if steps else None},
        "landing_to_event_s": {"median": round(statistics.median(latency), 2), "max": round(max(latency), 2)} if latency else None,
        "cpu_per_interval_with_a_commit_s": {"median": round(statistics.median(busy), 3), "max": round(max(busy), 3)} if busy else None,
        "cpu_per_idle_interval_s": {"median": round(statistics.median(idle), 3), "max": round(max(idle), 3)} if idle else None,
        "cpu_share_of_one_core": round((cpu_end - cpu_marks[0][1]) / wall, 4),
        "rss_mib": {"after_open": round(rss_open, 1), "end": round(rss_end, 1), "max": round(max(rss_steps), 1)},
        # Resident memory about once a minute (each sample taken just before a file lands).
        "rss_mib_by_minute": [round(r, 1) for r in rss_steps[:: max(1, round(60 / a.every))]],
    }
    print(json.dumps(out, indent=2))
    shutil.rmtree(shadow, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
