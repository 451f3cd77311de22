"""`cuzarr cp`: copies read back by zarr-python, rechunking, summary, interruption."""

import json
import signal
import subprocess
import time

import numpy as np
import pytest
import zarr

from cuzarr_cli import assert_same, cuzarr_binary, read_with_cuzarr, run


def make_hierarchy(path):
    root = zarr.open_group(path, mode="w", zarr_format=3)
    root.attrs["title"] = "source"
    a = root.create_array("a", shape=(60, 40), chunks=(16, 16), dtype="<i4")
    a[:] = np.arange(60 * 40, dtype="<i4").reshape(60, 40)
    sub = root.create_group("sub")
    b = sub.create_array("b", shape=(100,), chunks=(10,), dtype="<f8", fill_value=np.nan)
    b[20:35] = np.linspace(0, 1, 15)
    return root


@pytest.mark.cross_implementation
def test_cp_hierarchy_read_back_by_zarr_python(tmp_path):
    make_hierarchy(tmp_path / "src")
    result = run("cp", tmp_path / "src", tmp_path / "dst", "--codec", "zstd:level=3")
    assert "2 arrays, 2 groups" in result.stdout
    assert "ratio" in result.stdout
    copied = zarr.open_group(tmp_path / "dst", mode="r")
    assert copied.attrs["title"] == "source"
    assert_same(copied["a"][:], np.arange(60 * 40, dtype="<i4").reshape(60, 40))
    expected = np.full(100, np.nan)
    expected[20:35] = np.linspace(0, 1, 15)
    assert_same(copied["sub/b"][:], expected)
    # Chunks that hold only the fill value are not stored in the copy either.
    assert sorted(p.name for p in (tmp_path / "dst" / "sub" / "b" / "c").iterdir()) == ["2", "3"]


@pytest.mark.cross_implementation
def test_cp_shards_an_array(tmp_path):
    make_hierarchy(tmp_path / "src")
    run("cp", tmp_path / "src" / "a", tmp_path / "dst", "--chunks", "8,8", "--shards", "16,40")
    copied = zarr.open_array(tmp_path / "dst", mode="r")
    assert copied.shards == (16, 40)
    assert copied.chunks == (8, 8)
    assert_same(copied[:], np.arange(60 * 40, dtype="<i4").reshape(60, 40))


@pytest.mark.cross_implementation
def test_cp_rechunks_each_array(tmp_path):
    make_hierarchy(tmp_path / "src")
    run("cp", tmp_path / "src" / "sub", tmp_path / "dst", "--chunks", "25", "--codec", "gzip:level=1")
    b = zarr.open_group(tmp_path / "dst", mode="r")["b"]
    assert b.chunks == (25,)
    expected = np.full(100, np.nan)
    expected[20:35] = np.linspace(0, 1, 15)
    assert_same(b[:], expected)
    assert_same(read_with_cuzarr(tmp_path / "dst" / "b", tmp_path), expected)


def test_cp_option_that_does_not_fit_names_the_array(tmp_path):
    make_hierarchy(tmp_path / "src")
    result = run("cp", tmp_path / "src", tmp_path / "dst", "--chunks", "8,8", expect_status=2)
    assert '"sub/b"' in result.stderr
    assert not (tmp_path / "dst").exists()  # not even the empty directory


def test_cp_refuses_to_overwrite(tmp_path):
    make_hierarchy(tmp_path / "src")
    run("cp", tmp_path / "src", tmp_path / "dst")
    result = run("cp", tmp_path / "src", tmp_path / "dst", expect_status=2)
    assert "exists" in result.stderr or "overwrite" in result.stderr
    run("cp", tmp_path / "src", tmp_path / "dst", "--overwrite")


def run_interrupted(command, started):
    """Runs `command`, sends it SIGINT once `started()` holds (or after 60 s), and returns its
    stdout; skips the test when it finished before the signal arrived."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while time.time() < deadline and not started():
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=120)
    if process.returncode == 0:
        pytest.skip("the copy finished before the interrupt arrived")
    assert process.returncode == 130, stderr
    return stdout


def test_cp_interrupted_leaves_only_complete_chunks(tmp_path):
    # Big enough that the copy takes a while: 64 MiB of float32 in 1 MiB chunks, gzip level 9.
    rng = np.random.default_rng(0)
    source = zarr.create_array(tmp_path / "src", shape=(4096, 4096), chunks=(512, 512), dtype="<f4",
                               compressors=None)
    source[:] = rng.standard_normal((4096, 4096), dtype=np.float32)
    command = [str(cuzarr_binary()), "cp", str(tmp_path / "src"), str(tmp_path / "dst"),
               "--chunks", "128,128", "--codec", "gzip:level=9", "--batch-mb", "1"]
    stdout = run_interrupted(command, lambda: list((tmp_path / "dst").rglob("c/*/*")))
    assert "INTERRUPTED" in stdout
    # No temporary or partial files; every stored chunk decodes and holds the source's values.
    verify = run("verify", tmp_path / "dst")
    assert "0 bad" in verify.stdout
    copy = zarr.open_array(tmp_path / "dst", mode="r")
    original = source[:]
    stored = [p for p in (tmp_path / "dst" / "c").rglob("*") if p.is_file()]
    assert 0 < len(stored) < 32 * 32
    for path in stored:
        i, j = int(path.parent.name), int(path.name)
        block = (slice(i * 128, (i + 1) * 128), slice(j * 128, (j + 1) * 128))
        assert_same(copy[block], original[block])
    leftovers = [p for p in (tmp_path / "dst").rglob("*") if p.is_file() and p.name.startswith(".")]
    assert leftovers == []


def staging_leftovers(directory):
    return [p.name for p in directory.iterdir() if ".cuzarr-" in p.name]


def test_cp_overwrite_that_fails_keeps_the_destination(tmp_path):
    make_hierarchy(tmp_path / "src")
    make_hierarchy(tmp_path / "old")
    run("cp", tmp_path / "old", tmp_path / "dst", "--quiet")
    chunk = tmp_path / "src" / "a" / "c" / "1" / "1"
    chunk.write_bytes(chunk.read_bytes()[:10])  # a truncated chunk: the copy fails there
    error = run("cp", tmp_path / "src", tmp_path / "dst", "--overwrite", "--quiet",
                expect_status=2).stderr
    assert "c/1/1" in error, error
    kept = zarr.open_group(tmp_path / "dst", mode="r")
    assert_same(kept["a"][:], np.arange(60 * 40, dtype="<i4").reshape(60, 40))
    assert "0 bad" in run("verify", tmp_path / "dst").stdout
    assert staging_leftovers(tmp_path) == []
    # A copy that succeeds replaces it.
    chunk.unlink()
    run("cp", tmp_path / "src", tmp_path / "dst", "--overwrite", "--quiet")
    replaced = zarr.open_group(tmp_path / "dst", mode="r")["a"][:]
    assert replaced[16, 16] == 0 and replaced[0, 1] == 1
    assert staging_leftovers(tmp_path) == []


def test_cp_overwrite_interrupted_keeps_the_destination(tmp_path):
    rng = np.random.default_rng(1)
    source = zarr.create_array(tmp_path / "src", shape=(4096, 4096), chunks=(512, 512), dtype="<f4",
                               compressors=None)
    source[:] = rng.standard_normal((4096, 4096), dtype=np.float32)
    old = zarr.create_array(tmp_path / "dst", shape=(10,), chunks=(5,), dtype="<i2")
    old[:] = np.arange(10, dtype="<i2")
    command = [str(cuzarr_binary()), "cp", str(tmp_path / "src"), str(tmp_path / "dst"),
               "--overwrite", "--chunks", "128,128", "--codec", "gzip:level=9", "--batch-mb", "1"]
    stdout = run_interrupted(command, lambda: any(
        list(p.rglob("c/*/*")) for p in tmp_path.iterdir() if ".cuzarr-staging" in p.name))
    assert "left as it was" in stdout
    assert_same(zarr.open_array(tmp_path / "dst", mode="r")[:], np.arange(10, dtype="<i2"))
    assert staging_leftovers(tmp_path) == []


@pytest.mark.cross_implementation
@pytest.mark.parametrize("source_format,target_format", [(3, 2), (2, 3), (2, 2)])
def test_cp_converts_the_format(tmp_path, source_format, target_format):
    root = zarr.open_group(tmp_path / "src", mode="w", zarr_format=source_format)
    root.attrs["origin"] = f"v{source_format}"
    a = root.create_array("a", shape=(30, 20), chunks=(8, 8), dtype="<u2", fill_value=7)
    a[2:25, 3:] = np.arange(23 * 17, dtype="<u2").reshape(23, 17)
    words = root.create_array("words", shape=(5,), chunks=(2,), dtype=str)
    words[:] = np.array(["alpha", "", "gamma", "δέλτα", "e"])
    run("cp", tmp_path / "src", tmp_path / "dst", "--zarr-format", target_format)
    copied = zarr.open_group(tmp_path / "dst", mode="r")
    assert copied.metadata.zarr_format == target_format
    assert copied.attrs["origin"] == f"v{source_format}"
    assert copied["a"].metadata.zarr_format == target_format
    assert copied["a"].fill_value == 7
    assert_same(copied["a"][:], a[:])
    assert list(copied["words"][:]) == ["alpha", "", "gamma", "δέλτα", "e"]
    marker = "zarr.json" if target_format == 3 else ".zarray"
    assert (tmp_path / "dst" / "a" / marker).is_file()


@pytest.mark.cross_implementation
@pytest.mark.parametrize("target_format", [2, 3])
def test_cp_copies_zarr_pythons_numcodecs_zstd_and_blosc(tmp_path, target_format):
    """zarr-python's v3 wrappers of numcodecs' Zstd and Blosc: cp writes them as the codecs of the
    same format, v2's numcodecs ids or v3's core codecs, with the settings they had."""
    from zarr.codecs import numcodecs as wrapped
    root = zarr.open_group(tmp_path / "src", mode="w", zarr_format=3)
    z = root.create_array("z", shape=(50,), chunks=(16,), dtype="<i4", compressors=[wrapped.Zstd(level=4)])
    z[:] = np.arange(50, dtype="<i4") * 3
    b = root.create_array("b", shape=(40, 6), chunks=(16, 6), dtype="<f8",
                          compressors=[wrapped.Blosc(cname="lz4", clevel=5, shuffle=2)])
    b[:] = np.linspace(0, 1, 240).reshape(40, 6)
    run("cp", tmp_path / "src", tmp_path / "dst", "--zarr-format", target_format)
    copied = zarr.open_group(tmp_path / "dst", mode="r")
    assert_same(copied["z"][:], z[:])
    assert_same(copied["b"][:], b[:])
    if target_format == 2:
        assert json.loads((tmp_path / "dst" / "z" / ".zarray").read_text())["compressor"] == {"id": "zstd", "level": 4}
        assert json.loads((tmp_path / "dst" / "b" / ".zarray").read_text())["compressor"]["id"] == "blosc"
    else:
        codec = json.loads((tmp_path / "dst" / "b" / "zarr.json").read_text())["codecs"][-1]
        assert codec["name"] == "blosc"
        assert {k: codec["configuration"][k] for k in ("cname", "clevel", "shuffle", "typesize")} == {
            "cname": "lz4", "clevel": 5, "shuffle": "bitshuffle", "typesize": 1}
        codec = json.loads((tmp_path / "dst" / "z" / "zarr.json").read_text())["codecs"][-1]
        assert codec == {"name": "zstd", "configuration": {"level": 4, "checksum": False}}


@pytest.mark.parametrize("destination", [".", "./", "sub", "..", "../.."])
def test_cp_refuses_overlapping_source_and_destination(tmp_path, destination):
    # Onto itself, into itself or onto a directory that holds it: the copy would erase or
    # overwrite what it reads. Nothing is changed.
    make_hierarchy(tmp_path / "outer" / "src")
    source = tmp_path / "outer" / "src"
    target = source / destination
    error = run("cp", source, target, "--overwrite", "--quiet", expect_status=2).stderr
    assert "a copy cannot write where it reads" in error, error
    copied = zarr.open_group(source, mode="r")
    assert_same(copied["a"][:], np.arange(60 * 40, dtype="<i4").reshape(60, 40))
