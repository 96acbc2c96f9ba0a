# SPDX-License-Identifier: Apache-2.0
"""Runs pytest on one file of python/tests for ctest: exit 77 (ctest: skipped, with the reason
printed) when the interpreter lacks pytest or NumPy, otherwise pytest's own status (5, "no tests
collected", stays a failure: a file whose every test was deselected ran nothing)."""
import sys

try:
    import numpy  # noqa: F401
    import pytest
except ImportError as missing:
    print(f"SKIP: {sys.executable} lacks {missing.name} (Debian: python3-pytest python3-numpy)")
    sys.exit(77)

sys.exit(pytest.main(["-q", "-rs", "-p", "no:cacheprovider", *sys.argv[1:]]))
