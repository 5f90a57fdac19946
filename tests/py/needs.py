"""What a test needs from this machine: skipped locally, with why; failed under CI.

tests/run.sh (and so .ci/run) sets CI=true: there a skip would read as a pass, so a missing CLI
build, corpus or server capability fails the run, naming it. Run alone, pytest skips with the
reason (tests/run.sh passes -rs, so every skip's reason is printed in the summary).
"""

import os

import pytest


def needs(condition: bool, message: str):
    if condition:
        return
    if os.environ.get("CI"):
        pytest.fail(f"missing under CI: {message}")
    pytest.skip(message)
