"""`cuzarr bench --batch-mb`: the batch size of reads and writes on the command line."""

import json

import numpy as np
import zarr

from cuzarr_cli import run


def make_array(tmp_path):
    path = tmp_path / "a.zarr"
    array = zarr.create_array(str(path), shape=(64, 1000), chunks=(1, 1000), dtype="i4")
    array[:] = np.arange(64000, dtype="i4").reshape(64, 1000)
    return path


def test_reads_in_batches_of_any_size_give_the_whole_array(tmp_path):
    path = make_array(tmp_path)
    for mb in ("1", "256", "4096"):
        report = json.loads(run("bench", "read", path, "--json", "--batch-mb", mb).stdout)
        assert report["batch_mb"] == int(mb)
        assert report["decoded_bytes"] == 64 * 1000 * 4


def test_writes_in_small_batches_round_trip(tmp_path):
    path = make_array(tmp_path)
    copy = tmp_path / "copy.zarr"
    run("bench", "write", path, copy, "--batch-mb", "1")
    np.testing.assert_array_equal(zarr.open_array(str(copy))[:], zarr.open_array(str(path))[:])


def test_a_batch_of_nothing_is_refused_naming_the_option(tmp_path):
    path = make_array(tmp_path)
    result = run("bench", "read", path, "--batch-mb", "0", expect_status=None)
    assert result.returncode != 0
    assert "--batch-mb" in result.stderr
