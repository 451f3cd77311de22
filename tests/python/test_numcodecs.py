"""The numcodecs codecs as zarr-python 3 writes them in v3 metadata ("numcodecs.<id>"), both ways.
Lossy filters (quantize, bitround, fixedscaleoffset, astype) are compared with what the other
implementation decodes, not with the original data."""

import json

import numpy as np
import pytest
import zarr

from cases import bytes_codec, make_data
from cuzarr_cli import assert_same, read_with_cuzarr, run

pytestmark = pytest.mark.cross_implementation


def nc(name, **configuration):
    return {"name": f"numcodecs.{name}", "configuration": configuration}


# (id, dtype, codecs, lossless)
NUMCODECS_CASES = [
    ("zlib", "uint16", [bytes_codec(), nc("zlib", level=5)], True),
    ("gzip", "int64", [bytes_codec(), nc("gzip", level=3)], True),
    ("bz2", "float64", [bytes_codec(), nc("bz2", level=5)], True),
    ("lzma", "float32", [bytes_codec(), nc("lzma")], True),
    ("lz4", "int32", [bytes_codec(), nc("lz4")], True),
    ("shuffle-zlib", "uint32", [bytes_codec(), nc("shuffle", elementsize=4), nc("zlib", level=1)], True),
    ("crc32", "int8", [bytes_codec(), nc("crc32")], True),
    ("crc32c", "int16", [bytes_codec(), nc("crc32c")], True),
    ("adler32", "uint8", [bytes_codec(), nc("adler32")], True),
    ("fletcher32", "float64", [bytes_codec(), nc("fletcher32")], True),
    ("jenkins_lookup3", "uint16", [bytes_codec(), nc("jenkins_lookup3")], True),
    ("jenkins_lookup3-initval", "int64", [bytes_codec(), nc("jenkins_lookup3", initval=12345)], True),
    ("delta", "int32", [nc("delta", dtype="<i4"), bytes_codec(), nc("zlib", level=1)], True),
    ("packbits", "bool", [nc("packbits"), bytes_codec(), nc("zlib", level=1)], True),
    ("fixedscaleoffset", "float64",
     [nc("fixedscaleoffset", offset=1000, scale=10, dtype="<f8", astype="<i4"), bytes_codec(), nc("bz2", level=1)],
     False),
    ("quantize", "float32", [nc("quantize", digits=3, dtype="<f4"), bytes_codec(), nc("lzma")], False),
    ("bitround", "float32", [nc("bitround", keepbits=10), bytes_codec(), nc("lz4")], False),
    ("astype", "int32", [nc("astype", encode_dtype="<i2", decode_dtype="<i4"), bytes_codec()], False),
    # numcodecs' Zstd and Blosc: the core zstd and blosc formats under zarr-python's wrapper names.
    ("zstd", "int16", [bytes_codec(), nc("zstd", level=3)], True),
    ("zstd-checksum", "float32", [bytes_codec(), nc("zstd", level=1, checksum=True)], True),
    ("blosc", "float64", [bytes_codec(), nc("blosc", cname="lz4", clevel=5, shuffle=1)], True),
    ("blosc-bitshuffle-zstd", "uint16",
     [bytes_codec(), nc("blosc", cname="zstd", clevel=3, shuffle=2, blocksize=0)], True),
    ("blosc-autoshuffle-typesize", "int32", [bytes_codec(), nc("blosc", cname="zlib", shuffle=-1, typesize=4)], True),
]


def sample(dtype, shape=(20, 7)):
    data = make_data(dtype, shape, seed=11)
    if np.dtype(dtype).kind == "f":
        data = np.nan_to_num(data, nan=1.0, posinf=2.0, neginf=-2.0)
        data = (data / 100).astype(dtype)  # keeps fixedscaleoffset's int32 in range
    if dtype == "int32":
        data = (data % 30000).astype(dtype)  # fits astype's int16
    return data


@pytest.mark.parametrize("case_id,dtype,codecs,lossless", NUMCODECS_CASES, ids=[c[0] for c in NUMCODECS_CASES])
def test_cuzarr_reads_numcodecs_written_by_zarr_python(case_id, dtype, codecs, lossless, tmp_path):
    data = sample(dtype)
    path = tmp_path / "array.zarr"
    array = zarr.create(shape=data.shape, chunks=(6, 4), dtype=dtype, codecs=codecs, store=str(path), zarr_format=3,
                        fill_value=0)
    array[...] = data
    decoded = array[...]
    if lossless:
        assert_same(decoded, data)
    assert_same(read_with_cuzarr(path, tmp_path), decoded)


@pytest.mark.parametrize("case_id,dtype,codecs,lossless", NUMCODECS_CASES, ids=[c[0] for c in NUMCODECS_CASES])
def test_zarr_python_reads_numcodecs_written_by_cuzarr(case_id, dtype, codecs, lossless, tmp_path):
    data = sample(dtype)
    source = tmp_path / "input.npy"
    np.save(source, data)
    path = tmp_path / "array.zarr"
    args = ["import", source, path, "--chunks", "6,4"]
    for codec in codecs:
        args += ["--codec", json.dumps(codec)]
    run(*args)
    decoded = zarr.open_array(str(path), mode="r")[...]
    if lossless:
        assert_same(decoded, data)
    assert_same(read_with_cuzarr(path, tmp_path), decoded)


def test_delta_before_big_endian_bytes(tmp_path):
    """numcodecs.delta then bytes(big): the stored chunk holds the differences as big-endian values.
    (zarr-python 3.1 reads such chunks back byte-swapped, so this is checked against numpy.)"""
    data = np.array([[1, 2, 3], [300, 5, 65535]], dtype="<u2")
    source = tmp_path / "input.npy"
    np.save(source, data)
    path = tmp_path / "array.zarr"
    run("import", source, path, "--chunks", "2,3", "--codec", json.dumps(nc("delta", dtype="<u2")),
        "--codec", "bytes:endian=big")
    flat = data.reshape(-1)
    deltas = np.concatenate([flat[:1], np.diff(flat)]).astype(">u2")  # wraps modulo 2**16 like numpy
    assert (path / "c" / "0" / "0").read_bytes() == deltas.tobytes()
    assert_same(read_with_cuzarr(path, tmp_path), data)
