"""Writes tests/fixtures/index.json, so that the app's gallery lists the lab's fixtures beside the
bundled examples (Trunk copies tests/fixtures to dist/fixtures). Run after the lab; no dependencies.

    python3 tests/lab/index_fixtures.py
"""

import json
import re
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TITLES = {
    "append-stream": "Flink append stream",
    "maintenance-live": "Maintenance under a running job",
    "taskmanager-kill": "TaskManager killed mid-job",
    "savepoint-twice": "Savepoint resumed twice",
    "schema-on-the-wire": "Schema changes under a running job",
    "late-data": "Late data in old partitions",
    "upsert-stream": "Upsert stream with equality deletes",
    "concurrent-writers": "Two jobs writing one table",
    "v3-deletion-vectors": "Format v3 deletion vectors (Spark)",
    "savepoint-no-stop": "Savepoint without stop, then stop-with-savepoint",
    "older-savepoint": "Resumed from an older savepoint",
    "merge-append-long": "Manifest merge after 100+ commits",
    "icebergsink-v2": "IcebergSink (sink v2), bounded",
    "dynamic-sink": "DynamicIcebergSink, bounded",
    "flink-maintenance": "Flink in-job table maintenance",
    "savepoint-resume": "Savepoint resumed twice, its folders kept",
    "live-browser": "Chromium follows a live Flink run",
}


def version(path: Path) -> tuple:
    m = re.match(r"v?(\d+)", path.name)
    return (int(m.group(1)) if m else -1, path.name)


def entry(folder: Path) -> dict | None:
    metadata = sorted((folder / "metadata").glob("*.metadata.json"), key=version)
    if not metadata:
        return None
    facts = json.loads((folder / "facts.json").read_text()) if (folder / "facts.json").exists() else {}
    versions = facts.get("versions", {})
    writer = ", ".join(f"{k} {v}" for k, v in versions.items() if k in ("flink", "iceberg", "spark")) or "lab"
    caption = (folder / "caption.md").read_text().strip() if (folder / "caption.md").exists() else ""
    files = sorted(
        str(p.relative_to(folder)) for p in folder.rglob("*")
        if p.is_file() and p.name not in ("facts.json", "caption.md", "watch-events.jsonl", "browser-looks.jsonl")
        and not p.name.startswith(".") and p.relative_to(folder).parts[0] != "shots"
    )
    return {
        "name": folder.name,
        "base": f"fixtures/{folder.name}",
        "title": TITLES.get(folder.name, folder.name),
        "caption": caption,
        "writer": writer,
        "metadata": str(metadata[-1].relative_to(folder)),
        "files": files,
        # metadata.json sizes: the app draws their growth without fetching every old version.
        "sizes": {f: (folder / f).stat().st_size for f in files if f.endswith(".metadata.json")},
    }


def main() -> None:
    order = list(TITLES)
    folders = sorted((p for p in FIXTURES.iterdir() if p.is_dir()), key=lambda p: (order.index(p.name) if p.name in order else 99, p.name))
    examples = [e for e in map(entry, folders) if e]
    (FIXTURES / "index.json").write_text(json.dumps({"examples": examples}, indent=1) + "\n")
    print(f"{len(examples)} fixtures indexed in {FIXTURES / 'index.json'}")


if __name__ == "__main__":
    main()
