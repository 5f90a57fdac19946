"""Run the icescope CLI under test: `icescope inspect <path> --format json`."""

import json
import os
import subprocess
from pathlib import Path

from tables import REPO

COUNT_FIELDS_CLI = (
    "manifests",
    "manifest_bytes",
    "data_files",
    "position_delete_files",
    "equality_delete_files",
    "deletion_vectors",
    "records",
)


def binary() -> Path:
    """`ICESCOPE_BIN` (tests/run.sh exports the one it built), else the debug build under
    `CARGO_TARGET_DIR` or the checkout's `target/`: the same rule as the e2e files'."""
    if os.environ.get("ICESCOPE_BIN"):
        return Path(os.environ["ICESCOPE_BIN"])
    return Path(os.environ.get("CARGO_TARGET_DIR") or REPO / "target") / "debug" / "icescope"


def inspect(path: Path) -> dict:
    """The CLI's JSON for a table folder or metadata.json. Python's json keeps ids above
    2^53 exact, which is the point of parsing it here rather than in JS."""
    result = subprocess.run(
        [str(binary()), "inspect", str(path), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if result.returncode != 0:
        raise AssertionError(f"icescope inspect {path} exited {result.returncode}:\n{result.stderr}")
    try:
        return json.loads(result.stdout)
    except json.JSONDecodeError as e:
        raise AssertionError(f"icescope inspect {path} printed no JSON ({e}):\n{result.stdout[:2000]}")


def by_snapshot_id(report: dict) -> dict[int, dict]:
    return {s["snapshot_id"]: s for s in report["snapshots"]}
