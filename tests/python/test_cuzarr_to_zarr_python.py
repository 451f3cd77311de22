"""cuzarr writes arrays (`cuzarr import` of a .npy) over the case matrix; zarr-python 3 must read
exactly the same values and see the same metadata."""

import json

import numpy as np
import pytest
import zarr

from cases import CASES, expected_after_write, fill_value_json, make_data
from cuzarr_cli import assert_same, run

pytestmark = pytest.mark.cross_implementation


def import_with_cuzarr(case, path, data, tmp_path):
    """Writes `data` with cuzarr; for partial cases the part outside the region is the fill value
    (so those chunks are not stored, like missing chunks)."""
    source = tmp_path / "input.npy"
    np.save(source, expected_after_write(case, data))
    args = ["import", source, path, "--chunks", ",".join(map(str, case.chunks)),
            "--fill-value", json.dumps(fill_value_json(case.fill_value, case.dtype))]
    for codec in case.codecs:
        args += ["--codec", json.dumps(codec)]
    run(*args)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_zarr_python_reads_what_cuzarr_wrote(case, tmp_path):
    data = make_data(case.dtype, case.shape, seed=1)
    path = tmp_path / "array.zarr"
    import_with_cuzarr(case, path, data, tmp_path)
    array = zarr.open_array(str(path), mode="r")
    assert array.shape == case.shape
    assert array.dtype == np.dtype(case.dtype)
    assert array.metadata.chunk_grid.chunk_shape == case.chunks
    metadata = json.loads((path / "zarr.json").read_text())
    assert [c["name"] for c in metadata["codecs"]] == [c["name"] for c in case.codecs]
    assert_same(array[...], expected_after_write(case, data))


SHORT_FORMS = [
    (["zstd"], ["bytes", "zstd"]),
    (["zstd:level=3,checksum=true"], ["bytes", "zstd"]),
    (["gzip:level=5"], ["bytes", "gzip"]),
    (["blosc:cname=lz4,clevel=5,shuffle=shuffle"], ["bytes", "blosc"]),
    (["blosc:cname=zstd,shuffle=bitshuffle"], ["bytes", "blosc"]),
    (["crc32c"], ["bytes", "crc32c"]),
    (["transpose:order=1,0", "zstd"], ["transpose", "bytes", "zstd"]),
    (["bytes:endian=big"], ["bytes"]),
    (["transpose:order=1,0", "bytes:endian=big", "gzip", "crc32c"], ["transpose", "bytes", "gzip", "crc32c"]),
]


@pytest.mark.parametrize("codec_args,names", SHORT_FORMS, ids=[" ".join(s[0]) for s in SHORT_FORMS])
def test_codec_short_forms(codec_args, names, tmp_path):
    data = make_data("float32", (20, 30), seed=2)
    source = tmp_path / "input.npy"
    np.save(source, data)
    path = tmp_path / "array.zarr"
    args = ["import", source, path, "--chunks", "7,8"]
    for codec in codec_args:
        args += ["--codec", codec]
    run(*args)
    metadata = json.loads((path / "zarr.json").read_text())
    assert [c["name"] for c in metadata["codecs"]] == names
    by_name = {c["name"]: c.get("configuration", {}) for c in metadata["codecs"]}
    if "zstd:level=3,checksum=true" in codec_args:
        assert by_name["zstd"]["level"] == 3 and by_name["zstd"]["checksum"] is True
    if "bytes:endian=big" in codec_args:
        assert by_name["bytes"]["endian"] == "big"
    if "blosc:cname=lz4,clevel=5,shuffle=shuffle" in codec_args:
        assert by_name["blosc"]["cname"] == "lz4" and by_name["blosc"]["shuffle"] == "shuffle"
    if "transpose:order=1,0" in codec_args:
        assert by_name["transpose"]["order"] == [1, 0]
    assert_same(zarr.open_array(str(path), mode="r")[...], data)


def test_shards_option(tmp_path):
    data = make_data("uint32", (40, 36), seed=3)
    source = tmp_path / "input.npy"
    np.save(source, data)
    path = tmp_path / "array.zarr"
    run("import", source, path, "--chunks", "5,6", "--shards", "20,12", "--codec", "zstd:level=2")
    metadata = json.loads((path / "zarr.json").read_text())
    assert metadata["chunk_grid"]["configuration"]["chunk_shape"] == [20, 12]
    (sharding,) = metadata["codecs"]
    assert sharding["name"] == "sharding_indexed"
    assert sharding["configuration"]["chunk_shape"] == [5, 6]
    assert [c["name"] for c in sharding["configuration"]["codecs"]] == ["bytes", "zstd"]
    assert_same(zarr.open_array(str(path), mode="r")[...], data)


def test_attributes_and_dimension_names(tmp_path):
    data = np.arange(12, dtype="<i2").reshape(3, 4)
    source = tmp_path / "input.npy"
    np.save(source, data)
    path = tmp_path / "array.zarr"
    run("import", source, path, "--attributes", '{"units": "m", "scale": [1, 2]}', "--dimension-names", "y,x")
    array = zarr.open_array(str(path), mode="r")
    assert dict(array.attrs) == {"units": "m", "scale": [1, 2]}
    assert array.metadata.dimension_names == ("y", "x")
    assert_same(array[...], data)


def test_import_refuses_existing_array_without_overwrite(tmp_path):
    source = tmp_path / "input.npy"
    np.save(source, np.zeros((4,), dtype="u1"))
    path = tmp_path / "array.zarr"
    run("import", source, path)
    result = run("import", source, path, expect_status=2)
    assert result.stderr.startswith("cuzarr: error: ")
    np.save(source, np.ones((5,), dtype="u1"))
    run("import", source, path, "--overwrite")
    assert_same(zarr.open_array(str(path), mode="r")[...], np.ones((5,), dtype="u1"))
