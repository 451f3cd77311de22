"""The cuzarr tool's own behaviour: info, ls, verify, cat printing, .npy formats and errors."""

import io
import json
import resource
import subprocess

import numpy as np
import pytest
import zarr

from cuzarr_cli import assert_same, cuzarr_binary, read_with_cuzarr, run


def import_array(tmp_path, data, *extra, name="array.zarr"):
    source = tmp_path / f"{name}.npy"
    np.save(source, data)
    path = tmp_path / name
    run("import", source, path, *extra)
    return path


# --- info -----------------------------------------------------------------------------------------

def test_info_json_fields(tmp_path):
    data = np.zeros((100, 60), dtype="<u2")
    data[:30, :] = np.arange(30 * 60).reshape(30, 60)
    path = import_array(tmp_path, data, "--chunks", "10,10", "--shards", "20,30", "--codec", "zstd:level=1",
                        "--fill-value", "0", "--attributes", '{"k": 1}', "--dimension-names", "y,x")
    info = json.loads(run("info", path, "--json").stdout)
    assert info["node_type"] == "array"
    assert info["zarr_format"] == 3
    assert info["shape"] == [100, 60]
    assert info["data_type"] == "uint16"
    assert info["chunk_shape"] == [20, 30]
    assert info["inner_chunk_shape"] == [10, 10]
    assert info["chunk_grid_shape"] == [5, 2]
    assert info["chunks_total"] == 10
    assert info["codecs"][0]["name"] == "sharding_indexed"
    assert info["fill_value"] == 0
    assert info["dimension_names"] == ["y", "x"]
    assert info["attributes"] == {"k": 1}
    # Rows 30..99 hold only the fill value: their shards (rows 40..99) are not stored.
    assert info["chunks_stored"] == 4
    stored_files = [p for p in (path / "c").rglob("*") if p.is_file()]
    assert info["stored_bytes"] == sum(p.stat().st_size for p in stored_files)
    assert info["uncompressed_bytes"] == 4 * 20 * 30 * 2
    assert info["array_bytes"] == 100 * 60 * 2
    assert info["compression_ratio"] == pytest.approx(info["uncompressed_bytes"] / info["stored_bytes"])
    assert info["codecs_readable"] is True and "codec_error" not in info


def test_info_says_when_the_codecs_cannot_be_read(tmp_path):
    # An array another library wrote with a codec cuzarr lacks: info still describes it, and says
    # why its chunks cannot be read, as a read would.
    path = import_array(tmp_path, np.arange(10, dtype="<i4"), "--chunks", "5")
    document = json.loads((path / "zarr.json").read_text())
    document["codecs"].append({"name": "mystery", "configuration": {}})
    (path / "zarr.json").write_text(json.dumps(document))
    info = json.loads(run("info", path, "--json").stdout)
    assert info["codecs_readable"] is False
    assert 'unknown codec "mystery"' in info["codec_error"]
    assert any(line.startswith("Codecs readable") and 'no: codecs[' in line
               for line in run("info", path).stdout.splitlines())
    assert 'unknown codec "mystery"' in run("cat", path, expect_status=2).stderr


def test_info_text(tmp_path):
    path = import_array(tmp_path, np.arange(10, dtype="<f4"), "--chunks", "4", "--fill-value", "nan")
    text = run("info", path).stdout
    for label, value in [("Node type", "array"), ("Shape", "[10]"), ("Data type", "float32"),
                         ("Chunk shape", "[4]"), ("Fill value", '"NaN"'), ("Stored chunks", "3 of 3"),
                         ("Dimension names", "none"), ("Codecs readable", "yes")]:
        assert any(line.startswith(label) and line.rstrip().endswith(value) for line in text.splitlines()), (label, text)
    for label in ["Codecs", "Attributes", "Chunk grid", "Stored bytes", "Uncompressed bytes", "Compression ratio"]:
        assert label in text
    assert "Inner chunk shape" not in text


def test_info_group(tmp_path):
    root = zarr.open_group(str(tmp_path / "g.zarr"), mode="w", attributes={"title": "t"})
    root.create_group("sub")
    root.create_array("a", shape=(3,), dtype="i4")
    info = json.loads(run("info", tmp_path / "g.zarr", "--json").stdout)
    assert info["node_type"] == "group"
    assert info["attributes"] == {"title": "t"}
    assert info["member_arrays"] == 1 and info["member_groups"] == 1


def test_info_v2_group_reports_format_2(tmp_path):
    root = zarr.open_group(str(tmp_path / "g2.zarr"), mode="w", zarr_format=2)
    root.create_array("a", shape=(2,), dtype="i4")
    info = json.loads(run("info", tmp_path / "g2.zarr", "--json").stdout)
    assert info["zarr_format"] == 2
    assert "Zarr format         : 2" in run("info", tmp_path / "g2.zarr").stdout


@pytest.mark.cross_implementation
@pytest.mark.parametrize("zarr_format", [2, 3])
def test_non_finite_attributes_of_zarr_python(tmp_path, zarr_format):
    # Python's json writes NaN, Infinity and -Infinity as bare tokens; the node must still open,
    # and a copy keeps the values.
    attributes = {"scale": float("nan"), "range": [float("-inf"), 1.5, float("inf")], "name": "NaN"}
    root = zarr.open_group(str(tmp_path / "g.zarr"), mode="w", zarr_format=zarr_format)
    root.attrs.update(attributes)
    a = root.create_array("x", shape=(3,), dtype="f8", attributes=attributes)
    a[:] = [1.0, 2.0, 3.0]
    info = run("info", tmp_path / "g.zarr" / "x").stdout
    assert '"scale":NaN' in info and "-Infinity" in info, info
    assert "x (array [3] float64" in run("ls", tmp_path / "g.zarr").stdout
    assert_same(read_with_cuzarr(tmp_path / "g.zarr" / "x", tmp_path), np.array([1.0, 2.0, 3.0]))
    run("cp", tmp_path / "g.zarr", tmp_path / "copy.zarr", "--quiet")
    for node in (zarr.open_group(str(tmp_path / "copy.zarr"), mode="r"),
                 zarr.open_array(str(tmp_path / "copy.zarr" / "x"), mode="r")):
        got = dict(node.attrs)
        assert np.isnan(got["scale"]) and got["range"] == [float("-inf"), 1.5, float("inf")]
        assert got["name"] == "NaN"


# --- ls ---------------------------------------------------------------------------------------------

def test_ls_tree(tmp_path):
    root = zarr.open_group(str(tmp_path / "h.zarr"), mode="w")
    root.create_array("temperature", shape=(10, 20), chunks=(5, 5), dtype="f4")
    sub = root.create_group("raw")
    sub.create_array("counts", shape=(7,), chunks=(7,), dtype="u8")
    sub.create_group("empty")
    lines = run("ls", tmp_path / "h.zarr").stdout.splitlines()
    assert lines[0].endswith("h.zarr (group)")
    assert lines[1] == "├── raw (group)"
    assert lines[2] == "│   ├── counts (array [7] uint64, chunks [7])"
    assert lines[3] == "│   └── empty (group)"
    assert lines[4] == "└── temperature (array [10, 20] float32, chunks [5, 5])"
    assert len(lines) == 5


# --- verify -----------------------------------------------------------------------------------------

def flip_bytes(path, offsets):
    content = bytearray(path.read_bytes())
    for offset in offsets:
        content[offset % len(content)] ^= 0xFF
    path.write_bytes(bytes(content))


def test_verify_clean_array(tmp_path):
    path = import_array(tmp_path, np.arange(1000, dtype="<i4").reshape(10, 100), "--chunks", "5,50")
    result = run("verify", path)
    assert result.stdout.splitlines()[-1].startswith("OK:")
    assert "4 stored chunks" in result.stdout


@pytest.mark.parametrize("codec,offsets", [("zstd", [0, 1, 2, 3]), ("zstd:checksum=true", [-6, -7])],
                         ids=["magic", "checksummed-payload"])
def test_verify_reports_corrupt_zstd_chunk(tmp_path, codec, offsets):
    data = np.arange(4000, dtype="<i4").reshape(40, 100)
    path = import_array(tmp_path, data, "--chunks", "10,50", "--codec", codec)
    flip_bytes(path / "c" / "1" / "1", offsets)
    result = run("verify", path, expect_status=1)
    bad_lines = [line for line in result.stdout.splitlines() if line.startswith("BAD")]
    assert len(bad_lines) == 1, result.stdout
    assert "c/1/1" in bad_lines[0]
    assert result.stdout.splitlines()[-1].startswith("FAILED:")
    # Reading the damaged chunk is an error; reading elsewhere still works.
    assert run("cat", path, "--select", "10:20, 50:", expect_status=2).stderr.startswith("cuzarr: error:")
    assert_same(read_with_cuzarr(path, tmp_path, select="0:10"), data[0:10])


def test_verify_reports_an_empty_shard(tmp_path):
    # A shard file of 0 bytes (an interrupted writer's) fails verify as it fails a read.
    a = zarr.create_array(str(tmp_path / "s.zarr"), shape=(16, 16), chunks=(4, 4), shards=(8, 8),
                          dtype="i4")
    a[...] = np.arange(256, dtype="i4").reshape(16, 16)
    (tmp_path / "s.zarr" / "c" / "0" / "0").write_bytes(b"")
    result = run("verify", tmp_path / "s.zarr", expect_status=1)
    bad_lines = [line for line in result.stdout.splitlines() if line.startswith("BAD")]
    assert len(bad_lines) == 1 and "c/0/0" in bad_lines[0], result.stdout
    assert "0 bytes" in bad_lines[0]
    assert "c/0/0" in run("cat", tmp_path / "s.zarr", "--select", "0, 0:8", expect_status=2).stderr


def test_import_refuses_non_positive_chunks(tmp_path):
    source = tmp_path / "a.npy"
    np.save(source, np.arange(100, dtype="u1"))
    for chunks in ("0", "-5"):
        error = run("import", source, tmp_path / f"c{chunks}.zarr", f"--chunks={chunks}",
                    expect_status=2).stderr
        assert "chunk shape" in error and "must be positive" in error, error
        assert not (tmp_path / f"c{chunks}.zarr" / "zarr.json").exists()


def test_import_overwrite_keeps_the_array_when_the_new_one_is_invalid(tmp_path):
    data = np.arange(64 * 64, dtype="<i4").reshape(64, 64)
    path = import_array(tmp_path, data, "--chunks", "32,32")
    np.save(tmp_path / "b.npy", data + 1)
    run("import", tmp_path / "b.npy", path, "--overwrite", "--chunks", "99999999999,99999999999",
        expect_status=2)
    assert_same(read_with_cuzarr(path, tmp_path), data)


def test_import_overwrite_that_fails_keeps_the_array(tmp_path):
    # The new array is valid, but its one chunk (6.4 GB) cannot be allocated under a 4 GiB
    # address-space limit: the write fails after the old array would have been erased.
    data = np.arange(64 * 64, dtype="<i4").reshape(64, 64)
    np.save(tmp_path / "a.npy", data)
    run("import", tmp_path / "a.npy", tmp_path / "arr", "--chunks", "16,16")
    np.save(tmp_path / "b.npy", data + 1)
    command = [str(cuzarr_binary()), "import", str(tmp_path / "b.npy"), str(tmp_path / "arr"),
               "--overwrite", "--chunks", "40000,40000"]
    limit = 4 << 30
    result = subprocess.run(
        command, capture_output=True, text=True, timeout=300,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit)))
    assert result.returncode == 2, result.stderr
    assert "out of memory" in result.stderr, result.stderr
    assert_same(zarr.open_array(tmp_path / "arr", mode="r")[:], data)
    assert [p.name for p in tmp_path.iterdir() if ".cuzarr-" in p.name] == []


def test_verify_walks_a_hierarchy(tmp_path):
    root = zarr.open_group(str(tmp_path / "h.zarr"), mode="w")
    good = root.create_array("good", shape=(20,), chunks=(5,), dtype="u2")
    good[...] = np.arange(20)
    bad = root.create_group("sub").create_array("bad", shape=(20,), chunks=(5,), dtype="u2")
    bad[...] = np.arange(20) + 1
    flip_bytes(tmp_path / "h.zarr" / "sub" / "bad" / "c" / "2", [0, 1, 2, 3])
    result = run("verify", tmp_path / "h.zarr", expect_status=1)
    bad_lines = [line for line in result.stdout.splitlines() if line.startswith("BAD")]
    assert len(bad_lines) == 1 and "sub/bad" in bad_lines[0] and "c/2" in bad_lines[0]
    assert "2 arrays" in result.stdout.splitlines()[-1]


# --- cat printing -----------------------------------------------------------------------------------

PRINTED = [
    np.arange(12, dtype="<i4").reshape(3, 4),
    np.arange(24, dtype="<i2").reshape(2, 3, 4) - 10,
    np.array([True, False, True]),
    np.array([0.0, 1.5, -2.25, np.nan, np.inf], dtype="<f8"),
    np.array([1.0, 2.0, 3.0], dtype="<f4"),
    np.array([0.1, 0.2, 0.3], dtype="<f4"),
    np.array([1e-5, 1.0, 1e10], dtype="<f8"),
    np.arange(2000, dtype="<u2").reshape(40, 50),
    np.arange(5000, dtype="<i8"),
    np.arange(3000, dtype="<f8").reshape(10, 10, 30) / 4,
    np.arange(100, dtype="<u1"),
    np.array([1 + 2j, 3 - 4.5j], dtype="<c16"),
    np.array([0.5, 1.25], dtype="<f2"),
    np.array(7, dtype="<i4"),
]


@pytest.mark.parametrize("data", PRINTED, ids=[f"{a.dtype}-{a.shape}" for a in PRINTED])
def test_cat_prints_like_numpy(tmp_path, data):
    path = import_array(tmp_path, data)
    assert run("cat", path).stdout == str(data) + "\n"


# --- .npy formats -----------------------------------------------------------------------------------

@pytest.mark.parametrize("version", [(1, 0), (2, 0), (3, 0)])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", ["<u2", ">u2", ">f8", "<c8", ">c16", "|b1", "|i1", ">i8", "<f2", ">f2"])
def test_import_npy_variants(tmp_path, version, order, dtype):
    data = (np.arange(60).reshape(3, 4, 5) % 7 - 2).astype(dtype)
    data = np.asfortranarray(data) if order == "F" else np.ascontiguousarray(data)
    source = tmp_path / "input.npy"
    with open(source, "wb") as f:
        np.lib.format.write_array(f, data, version=version)
    path = tmp_path / "array.zarr"
    run("import", source, path, "--chunks", "2,3,2")
    array = zarr.open_array(str(path), mode="r")
    assert array.dtype == data.dtype.newbyteorder("<") or data.dtype.itemsize == 1
    assert np.array_equal(array[...], data)


@pytest.mark.parametrize("dtype,descr", [("uint16", "<u2"), ("float32", "<f4"), ("bool", "|b1"), ("complex64", "<c8"),
                                         ("float16", "<f2"), ("int8", "|i1"), ("uint64", "<u8")])
def test_cat_npy_header(tmp_path, dtype, descr):
    data = np.ones((4, 5), dtype=dtype)
    path = import_array(tmp_path, data)
    out = tmp_path / "out.npy"
    run("cat", path, "--npy", out)
    with open(out, "rb") as f:
        assert np.lib.format.read_magic(f) == (1, 0)
        shape, fortran, read_dtype = np.lib.format.read_array_header_1_0(f)
        assert (shape, fortran, read_dtype.str) == ((4, 5), False, descr)
        assert f.tell() % 64 == 0
    assert_same(np.load(out), data)


def test_raw_data_type_round_trip(tmp_path):
    data = np.frombuffer(bytes(range(30)), dtype="V3").reshape(2, 5)
    path = import_array(tmp_path, data, "--chunks", "1,2")
    assert json.loads((path / "zarr.json").read_text())["data_type"] == "r24"
    out = tmp_path / "out.npy"
    run("cat", path, "--npy", out)
    back = np.load(out)
    assert back.dtype.str == "|V3" and back.tobytes() == data.tobytes()


def test_zero_dimensional_array(tmp_path):
    data = np.array(3.5, dtype="<f8")
    path = import_array(tmp_path, data)
    assert_same(read_with_cuzarr(path, tmp_path), data)
    assert run("cat", path).stdout == "3.5\n"


# --- errors -----------------------------------------------------------------------------------------

def test_missing_path_is_an_error(tmp_path):
    result = run("info", tmp_path / "nothing-here", expect_status=2)
    assert result.stderr.startswith("cuzarr: error: ")
    assert "nothing-here" in result.stderr


@pytest.mark.parametrize("command", ["compress", "decompress", "import"])
def test_a_directory_given_as_the_input_file_is_named(tmp_path, command):
    (tmp_path / "d").mkdir()
    error = run(command, tmp_path / "d", tmp_path / "out", expect_status=2).stderr
    assert "is a directory" in error and str(tmp_path / "d") in error, error


def test_unsupported_npy_type_names_the_file(tmp_path):
    np.save(tmp_path / "objects.npy", np.array(["a", 1], dtype=object), allow_pickle=True)
    error = run("import", tmp_path / "objects.npy", tmp_path / "a.zarr", expect_status=2).stderr
    assert str(tmp_path / "objects.npy") in error and "'|O'" in error, error


def test_cp_batch_mb_out_of_range_is_a_short_error(tmp_path):
    path = import_array(tmp_path, np.arange(10, dtype="u1"))
    error = run("cp", path, tmp_path / "copy", "--batch-mb", "0", expect_status=2).stderr
    assert "--batch-mb" in error and "1 to 1073741824" in error and len(error) < 200, error


def test_bad_codec_settings_name_the_metadata_document(tmp_path):
    zarr.create_array(str(tmp_path / "a.zarr"), shape=(4,), chunks=(2,), dtype="<i4")[:] = 1
    document = json.loads((tmp_path / "a.zarr" / "zarr.json").read_text())
    document["codecs"][0]["configuration"]["endian"] = "middle"
    (tmp_path / "a.zarr" / "zarr.json").write_text(json.dumps(document))
    for command in ("cat", "verify"):
        error = run(command, tmp_path / "a.zarr", expect_status=2).stderr
        assert "zarr.json: " in error and "endian" in error, error


def test_bad_selection_is_an_error(tmp_path):
    path = import_array(tmp_path, np.arange(10, dtype="<i4"))
    result = run("cat", path, "--select", "20", expect_status=2)
    assert result.stderr.startswith("cuzarr: error: ")


def test_bad_codec_is_an_error(tmp_path):
    source = tmp_path / "x.npy"
    np.save(source, np.arange(10, dtype="<i4"))
    result = run("import", source, tmp_path / "a.zarr", "--codec", "nosuchcodec", expect_status=2)
    assert "nosuchcodec" in result.stderr


def test_cat_on_a_group_is_an_error(tmp_path):
    zarr.open_group(str(tmp_path / "g.zarr"), mode="w")
    result = run("cat", tmp_path / "g.zarr", expect_status=2)
    assert "group" in result.stderr


def test_options_before_positional_arguments(tmp_path):
    data = np.arange(100, dtype="<i4").reshape(10, 10)
    source = tmp_path / "x.npy"
    np.save(source, data)
    path = tmp_path / "a.zarr"
    run("import", "--chunks", "5,5", "--codec", "zstd", "--codec", "crc32c", "--dimension-names", "y,x",
        source, path)
    metadata = json.loads((path / "zarr.json").read_text())
    assert metadata["chunk_grid"]["configuration"]["chunk_shape"] == [5, 5]
    assert [c["name"] for c in metadata["codecs"]] == ["bytes", "zstd", "crc32c"]
    assert_same(read_with_cuzarr(path, tmp_path), data)
