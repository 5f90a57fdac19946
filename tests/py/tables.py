"""Where the test tables are and what their metadata.json says.

A table is a folder holding a `metadata/` directory with `*.metadata.json` files. Two sources:
the shared public corpus (read in place, never copied into the repo) and the app's own
examples under `public/examples/`.
"""

import gzip
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "public" / "examples"

# `v12.metadata.json`, `v2.gz.metadata.json`, `00003-<uuid>.metadata.json`: the leading number
# is the commit order. Anything else sorts first, so a real version always wins.
_VERSION = re.compile(r"^v?(\d+)")
_SUFFIX = ".metadata.json"


@dataclass(frozen=True)
class Table:
    """One table folder and the metadata file that describes its newest state."""

    name: str  # stable id for test names, relative to the source root
    folder: Path
    metadata_file: Path

    def metadata(self) -> dict:
        return load_metadata(self.metadata_file)


def corpus_root() -> Path | None:
    """The public corpus: `<repo>/../shared/corpus/public` (CI lays shared/ beside the clone),
    else `$ICESCOPE_CORPUS` (the corpus/public folder itself, or a shared/ holding it).
    None when neither exists, so callers can skip loudly."""
    candidates = [REPO.parent / "shared" / "corpus" / "public"]
    if os.environ.get("ICESCOPE_CORPUS"):
        given = Path(os.environ["ICESCOPE_CORPUS"])
        candidates += [given / "corpus" / "public", given]
    return next((c for c in candidates if c.is_dir()), None)


def corpus_tables() -> list[Table]:
    root = corpus_root()
    return find_tables(root) if root else []


def example_tables() -> list[Table]:
    return find_tables(EXAMPLES) if EXAMPLES.is_dir() else []


def find_tables(root: Path) -> list[Table]:
    """Every folder under root whose `metadata/` holds metadata.json files, newest file each."""
    tables = []
    for meta_dir in sorted(root.rglob("metadata")):
        files = [f for f in meta_dir.iterdir() if f.name.endswith(_SUFFIX)] if meta_dir.is_dir() else []
        if files:
            folder = meta_dir.parent
            tables.append(Table(str(folder.relative_to(root)), folder, newest_metadata_file(files)))
    return tables


def newest_metadata_file(files: list[Path]) -> Path:
    """Highest version number; equal numbers (none seen so far) fall back to last-updated-ms."""

    def key(path: Path):
        match = _VERSION.match(path.name)
        return (int(match.group(1)) if match else -1, load_metadata(path).get("last-updated-ms", 0))

    return max(files, key=key)


def load_metadata(path: Path) -> dict:
    """Parse a metadata.json, gzip or not. Python's json keeps big ints exact, unlike JS."""
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":  # gzip magic: some writers compress without changing the suffix
        raw = gzip.decompress(raw)
    return json.loads(raw)


def metadata_version(path: Path) -> tuple[str, str]:
    """DuckDB's `version` and `metadata_compression_codec` for this file. DuckDB appends the
    codec's suffix itself, so `v2.gz.metadata.json` is version `v2` with codec `gzip`."""
    stem = path.name[: -len(_SUFFIX)]
    if stem.endswith(".gz"):
        return stem[: -len(".gz")], "gzip"
    return stem, ""


def snapshots(metadata: dict) -> list[dict]:
    return metadata.get("snapshots") or []


def current_snapshot_id(metadata: dict) -> int | None:
    """-1 is how v1/v2 writers said 'no snapshot yet'."""
    sid = metadata.get("current-snapshot-id")
    return None if sid in (None, -1) else sid


def resolve(folder: Path, written_path: str) -> Path | None:
    """Find a file the metadata names by an absolute path from where it was written
    (s3://, file:///tmp/…, relative). Tables were moved, so match on the path's tail:
    the longest suffix that exists under the folder, else a file of that name anywhere in it
    when exactly one exists."""
    parts = [p for p in re.split(r"[/\\]", written_path) if p]
    for start in range(len(parts)):
        candidate = folder.joinpath(*parts[start:])
        if candidate.is_file():
            return candidate
    same_name = [f for f in folder.rglob(parts[-1]) if f.is_file()] if parts else []
    return same_name[0] if len(same_name) == 1 else None
