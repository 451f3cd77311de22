"""Running the cuzarr tool from tests: where the binary is and how to call it."""

import os
import pathlib
import subprocess

import numpy as np

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]


def cuzarr_binary() -> pathlib.Path:
    """The cuzarr executable: $CUZARR_BIN, or build/cuzarr in the repository."""
    path = pathlib.Path(os.environ.get("CUZARR_BIN", REPO_ROOT / "build" / "cuzarr"))
    if not path.is_file():
        raise FileNotFoundError(f"cuzarr binary not found at {path}; build it or set CUZARR_BIN")
    return path


def run(*args, expect_status=0) -> subprocess.CompletedProcess:
    """Runs `cuzarr ARGS...`; fails the test (showing stdout/stderr) on an unexpected exit status."""
    command = [str(cuzarr_binary()), *[str(a) for a in args]]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    if expect_status is not None and result.returncode != expect_status:
        raise AssertionError(
            f"{' '.join(command)} exited with {result.returncode}, expected {expect_status}\n"
            f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}"
        )
    return result


def read_with_cuzarr(path, tmp_path, select=None) -> np.ndarray:
    """Reads the array at `path` (optionally a selection) through `cuzarr cat --npy`."""
    out = pathlib.Path(tmp_path) / "cuzarr-out.npy"
    args = ["cat", path, "--npy", out]
    if select is not None:
        args += ["--select", select]
    run(*args)
    return np.load(out)


def assert_same(actual: np.ndarray, expected: np.ndarray):
    """Exact equality of shape, data type and values (NaN equal to NaN)."""
    assert actual.shape == expected.shape, f"shape {actual.shape} != {expected.shape}"
    assert actual.dtype == expected.dtype, f"dtype {actual.dtype} != {expected.dtype}"
    if actual.dtype.kind in "mM":  # NaT != NaT: compare the int64 counts
        actual, expected = actual.view("<i8"), expected.view("<i8")
    equal_nan = actual.dtype.kind in "fc"
    if not np.array_equal(actual, expected, equal_nan=equal_nan):
        mismatch = np.argwhere(~((actual == expected) | (equal_nan & (actual != actual) & (expected != expected))))
        first = tuple(mismatch[0]) if len(mismatch) else None
        raise AssertionError(
            f"{len(mismatch)} elements differ; first at {first}: {actual[first]!r} != {expected[first]!r}"
        )
