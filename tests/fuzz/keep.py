"""Keeps what fuzzing found, so that the next machine goes on where this one stopped.

A corpus grown over hours lives in tests/fuzz/corpus/ (not committed: seeds alone are megabytes, and
they are remade from the fixtures). Twice a new machine or a wipe cost every target its head start.
This script minimizes each target's corpus with `cargo fuzz cmin` (the fewest inputs that still reach
every edge the corpus reaches), then writes the inputs that are not seeds to tests/fuzz/grown/<target>.tar.xz (committed: mutated
metadata files are alike, and 35 MB of them pack into 0.2 MB); seed.py puts them back. Inputs are
named by their SHA-1, as libFuzzer names them; the archive is the same bytes for the same inputs.

    tests/.venv/bin/python tests/fuzz/keep.py [target ...]      # default: every target with a corpus
"""
import hashlib
import io
import lzma
import pathlib
import subprocess
import sys
import tarfile

import seed

HERE = pathlib.Path(__file__).resolve().parent
# Inputs over this size are left out of grown/ (the seeds they grew from are remade anyway).
MAX_KEPT = 256 * 1024


def minimize(target):
    subprocess.run(
        ["cargo", "+nightly", "fuzz", "cmin", "--fuzz-dir", str(HERE), "-O", target, "--",
         "-timeout=10", "-rss_limit_mb=3072"],
        cwd=HERE.parent.parent, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def write_archive(path, files):
    """A tar of `files` by name, without owners or times, xz-compressed."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for f in sorted(files, key=lambda f: f.name):
            data = f.read_bytes()
            info = tarfile.TarInfo(hashlib.sha1(data).hexdigest())
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            tar.addfile(info, io.BytesIO(data))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(lzma.compress(raw.getvalue(), preset=6))


def main():
    targets = sys.argv[1:] or sorted(p.name for p in seed.CORPUS.iterdir() if p.is_dir())
    seeded = {}
    for target, data in seed.seeds():
        seeded.setdefault(target, set()).add(hashlib.sha1(data).hexdigest())
    for target in targets:
        corpus = seed.CORPUS / target
        before = len(list(corpus.iterdir()))
        minimize(target)
        kept = [f for f in sorted(corpus.iterdir())
                if f.name not in seeded.get(target, set()) and f.stat().st_size <= MAX_KEPT]
        write_archive(seed.GROWN / f"{target}.tar.xz", kept)
        after = len(list(corpus.iterdir()))
        size = sum(f.stat().st_size for f in kept)
        packed = (seed.GROWN / f"{target}.tar.xz").stat().st_size
        print(f"{target}: {before} inputs, {after} after cmin, {len(kept)} kept ({size:,} bytes, {packed:,} packed)")


if __name__ == "__main__":
    main()
