"""`cuzarr bench read --stages`: where the best run's time went, per pipeline stage."""

import json

import numpy as np
import zarr

from cuzarr_cli import run


def make_array(tmp_path):
    path = tmp_path / "a.zarr"
    array = zarr.create_array(str(path), shape=(64, 1000), chunks=(8, 300), dtype="i4")
    array[:] = np.arange(64000, dtype="i4").reshape(64, 1000)
    return path


def test_json_report_lists_the_stages_of_the_best_run(tmp_path):
    path = make_array(tmp_path)
    report = json.loads(
        run("bench", "read", path, "--select", "3:60, 5:990", "--json", "--stages", "--repeat", "2").stdout)
    stages = {s["stage"]: s for s in report["stages"]}
    for name in ("allocate the result", "fetch chunks", "decode on the CPU", "scatter on the CPU"):
        assert name in stages, name
        assert stages[name]["seconds"] >= 0
        assert stages[name]["sections"] >= 1
    assert report["decoded_bytes"] == 57 * 985 * 4


def test_text_report_prints_a_line_per_stage_and_none_without_the_flag(tmp_path):
    path = make_array(tmp_path)
    with_stages = run("bench", "read", path, "--stages").stdout
    assert "stages of the best run" in with_stages
    assert "fetch chunks" in with_stages or "read and decode chunks into place" in with_stages
    without = run("bench", "read", path).stdout
    assert "stages of the best run" not in without
    assert "stages" not in json.loads(run("bench", "read", path, "--json").stdout)
