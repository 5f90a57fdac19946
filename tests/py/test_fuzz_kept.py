"""What fuzzing the savepoint decoder kept (tests/fuzz/grown/flink_savepoint.tar.xz: the inputs that
reached new code, minimized with `cargo fuzz cmin`), replayed through the CLI a user runs: each as a
savepoint folder's `_metadata`, `icescope savepoint` answers (exit 0, or 3 naming the file and the
field) within its time and without a crash, for every input, on every run of the suite. The fuzz
target itself runs the library in-process; this holds the whole command to the same inputs."""

import io
import lzma
import subprocess
import tarfile
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ARCHIVE = REPO / "tests" / "fuzz" / "grown" / "flink_savepoint.tar.xz"


def inputs():
    with tarfile.open(fileobj=io.BytesIO(lzma.decompress(ARCHIVE.read_bytes()))) as tar:
        return [(m.name, tar.extractfile(m).read()) for m in tar.getmembers() if m.isfile()]


def test_every_kept_savepoint_input_ends_in_an_answer_or_a_named_error(icescope):
    kept = inputs()
    assert len(kept) > 100, f"{len(kept)} inputs in {ARCHIVE}"

    def run(item):
        name, data = item
        with tempfile.TemporaryDirectory() as d:
            folder = Path(d) / "savepoint-fuzz"
            folder.mkdir()
            (folder / "_metadata").write_bytes(data)
            try:
                r = subprocess.run([str(icescope), "savepoint", str(folder), "--format", "json"], capture_output=True, timeout=60)
            except subprocess.TimeoutExpired:
                return f"{name}: no answer within 60 s"
            err = r.stderr.decode(errors="replace")
            if r.returncode == 0:
                return None
            if r.returncode == 3 and "_metadata" in err and "field" in err:
                return None
            return f"{name}: exit {r.returncode}: {err[:300]}"

    with ThreadPoolExecutor(max_workers=4) as pool:
        problems = [p for p in pool.map(run, kept) if p]
    assert not problems, "\n".join(problems[:20])
