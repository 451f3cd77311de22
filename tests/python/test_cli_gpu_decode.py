"""`cuzarr bench read --gpu-decode`: the codec placement grammar on the command line."""

import json

import numpy as np
import zarr

from cuzarr_cli import run


def make_array(tmp_path):
    path = tmp_path / "a.zarr"
    array = zarr.create_array(str(path), shape=(1000,), chunks=(100,), dtype="i4")
    array[:] = np.arange(1000, dtype="i4")
    return path


def test_placement_is_reported_in_the_settings(tmp_path):
    path = make_array(tmp_path)
    result = run("bench", "read", path, "--json", "--gpu-decode", " zstd = gpu , default=cpu ")
    report = json.loads(result.stdout)
    assert report["gpu_decode"] == "zstd=gpu,default=cpu"
    assert report["decoded_bytes"] == 4000


def test_plain_values_keep_working(tmp_path):
    path = make_array(tmp_path)
    for value in ("auto", "gpu", "cpu"):
        report = json.loads(run("bench", "read", path, "--json", "--gpu-decode", value).stdout)
        assert report["gpu_decode"] == value


def test_bad_entries_are_named(tmp_path):
    path = make_array(tmp_path)
    result = run("bench", "read", path, "--gpu-decode", "zstd=fast", expect_status=None)
    assert result.returncode != 0
    assert '"zstd=fast"' in result.stderr and "auto, gpu or cpu" in result.stderr
    result = run("bench", "read", path, "--gpu-decode", "zsdt=gpu", expect_status=None)
    assert result.returncode != 0
    assert 'no registered codec is named "zsdt"' in result.stderr
