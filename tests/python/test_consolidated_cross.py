"""Consolidated metadata across implementations, Zarr v2 (.zmetadata) and v3 (inline in the root
zarr.json): zarr-python writes and consolidates a hierarchy that `cuzarr ls` / `cuzarr cat` read
(ls answering from the consolidated metadata), and `cuzarr consolidate` writes consolidated
metadata that zarr.open_consolidated reads, arrays and attributes included."""

import json
import pathlib
import shutil
import warnings

import numpy as np
import pytest
import zarr

from cuzarr_cli import assert_same, read_with_cuzarr, run

pytestmark = pytest.mark.cross_implementation

FORMATS = [2, 3]


def write_hierarchy(path, zarr_format):
    """root {title} / a int32 (attrs) / s {level} / s/b float64 / s/t (empty group)."""
    root = zarr.open_group(path, mode="w", zarr_format=zarr_format)
    root.attrs["title"] = "root"
    a = root.create_array("a", shape=(7,), chunks=(3,), dtype="int32")
    a[:] = np.arange(7, dtype="int32") * 3
    a.attrs["unit"] = "m"
    s = root.create_group("s")
    s.attrs["level"] = 1
    b = s.create_array("b", shape=(2, 5), chunks=(1, 2), dtype="float64")
    b[:] = np.arange(10, dtype="float64").reshape(2, 5) / 4
    s.create_group("t")
    return {"a": a[:], "s/b": b[:]}


def metadata_documents(path, node, zarr_format):
    node_dir = pathlib.Path(path) / node
    names = ["zarr.json"] if zarr_format == 3 else [".zarray", ".zgroup", ".zattrs"]
    return [node_dir / name for name in names if (node_dir / name).exists()]


@pytest.mark.parametrize("zarr_format", FORMATS)
def test_cuzarr_reads_zarr_python_consolidated(tmp_path, zarr_format):
    path = tmp_path / "h.zarr"
    expected = write_hierarchy(path, zarr_format)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        zarr.consolidate_metadata(str(path))
    # Remove the metadata of s/t and s/b: only the consolidated metadata still knows them.
    for node in ("s/t", "s/b"):
        for document in metadata_documents(path, node, zarr_format):
            document.unlink()
    listing = run("ls", path).stdout
    assert "a (array [7] int32, chunks [3])" in listing
    assert "s (group)" in listing
    assert "b (array [2, 5] float64, chunks [1, 2])" in listing
    assert "t (group)" in listing
    assert_same(read_with_cuzarr(path / "a", tmp_path), expected["a"])
    info = json.loads(run("info", path, "--json").stdout)
    assert info["attributes"] == {"title": "root"}


@pytest.mark.parametrize("zarr_format", FORMATS)
def test_zarr_python_reads_cuzarr_consolidated(tmp_path, zarr_format):
    path = tmp_path / "h.zarr"
    expected = write_hierarchy(path, zarr_format)
    result = run("consolidate", path)
    assert "4 nodes" in result.stdout
    if zarr_format == 2:
        assert (path / ".zmetadata").exists()
    else:
        root_document = json.loads((path / "zarr.json").read_text())
        assert root_document["consolidated_metadata"]["kind"] == "inline"
        assert sorted(root_document["consolidated_metadata"]["metadata"]) == ["a", "s", "s/b", "s/t"]
    # The node documents are no longer needed by a consolidated reader.
    moved = tmp_path / "moved.zarr"
    shutil.copytree(path, moved)
    for node in ("a", "s", "s/b", "s/t"):
        for document in metadata_documents(moved, node, zarr_format):
            document.unlink()
    for location in (path, moved):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            root = zarr.open_consolidated(str(location), zarr_format=zarr_format)
        assert dict(root.attrs) == {"title": "root"}
        assert sorted(name for name, _ in root.members(max_depth=None)) == ["a", "s", "s/b", "s/t"]
        assert dict(root["a"].attrs) == {"unit": "m"}
        assert dict(root["s"].attrs) == {"level": 1}
        assert root["s/b"].chunks == (1, 2)
        np.testing.assert_array_equal(root["a"][:], expected["a"])
        np.testing.assert_array_equal(root["s/b"][:], expected["s/b"])
        np.testing.assert_array_equal(root["s"]["b"][:], expected["s/b"])


@pytest.mark.parametrize("zarr_format", FORMATS)
def test_consolidated_metadata_matches_zarr_python(tmp_path, zarr_format):
    """cuzarr consolidate and zarr.consolidate_metadata record the same nodes and attributes."""
    ours, theirs = tmp_path / "ours.zarr", tmp_path / "theirs.zarr"
    write_hierarchy(ours, zarr_format)
    write_hierarchy(theirs, zarr_format)
    run("consolidate", ours)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        zarr.consolidate_metadata(str(theirs))
    if zarr_format == 2:
        ours_md = json.loads((ours / ".zmetadata").read_text())["metadata"]
        theirs_md = json.loads((theirs / ".zmetadata").read_text())["metadata"]
        assert sorted(ours_md) == sorted(theirs_md)
        for key in ours_md:
            if key.endswith(".zattrs"):
                assert ours_md[key] == theirs_md[key], key
            if key.endswith(".zarray"):
                for field in ("shape", "chunks", "dtype", "fill_value", "compressor", "order"):
                    assert ours_md[key][field] == theirs_md[key][field], (key, field)
    else:
        ours_md = json.loads((ours / "zarr.json").read_text())["consolidated_metadata"]
        theirs_md = json.loads((theirs / "zarr.json").read_text())["consolidated_metadata"]
        assert ours_md["kind"] == theirs_md["kind"]
        assert ours_md["must_understand"] == theirs_md["must_understand"]
        assert sorted(ours_md["metadata"]) == sorted(theirs_md["metadata"])
        for key, node in ours_md["metadata"].items():
            other = theirs_md["metadata"][key]
            for field in ("node_type", "attributes", "shape", "data_type", "chunk_grid",
                          "consolidated_metadata"):
                assert node.get(field) == other.get(field), (key, field)
