"""tests/README.md names every test file (and every helper), so a reader finds what each checks:
a file added without its row fails here."""

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_every_test_file_is_named_in_tests_readme():
    readme = (TESTS / "README.md").read_text()
    files = [*TESTS.glob("*.rs"), *TESTS.glob("py/*.py"), *TESTS.glob("py/catalog/*.py"), *TESTS.glob("e2e/*.test.mjs"), *TESTS.glob("lab/evidence/*.py")]
    assert len(files) > 60, f"{len(files)} test files found under {TESTS}"
    missing = [str(f.relative_to(TESTS)) for f in files if f.name != "__init__.py" and f"`{f.name}`" not in readme and f"/{f.name}`" not in readme]
    assert not missing, f"not in tests/README.md: {missing}"
