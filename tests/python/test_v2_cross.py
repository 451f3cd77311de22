"""Zarr v2 arrays across implementations: zarr-python 3 writes zarr_format=2 arrays (data types,
byte orders, C and F order, both dimension separators, numcodecs compressors and filters, fill
values) that cuzarr must read exactly, and cuzarr writes v2 arrays (`cuzarr import --zarr-format 2`)
that zarr-python must read exactly. Lossy filters are compared with what zarr-python decodes."""

import json
import math
import warnings

import numcodecs
import numpy as np
import pytest
import zarr

from cases import make_data
from cuzarr_cli import assert_same, read_with_cuzarr, run

pytestmark = pytest.mark.cross_implementation

SHAPE = (23, 17)
CHUNKS = (8, 5)
PARTIAL = (slice(0, 13), slice(2, 17))  # leaves the last row of chunks unwritten

NUMERIC_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                  "float16", "float32", "float64", "complex64", "complex128",
                  ">i2", ">i4", ">u8", ">f4", ">f8", ">c16"]

BIG_ENDIAN_FILTER = ("the numcodecs codecs refuse a big-endian \"dtype\" in their configuration, which "
                     "zarr-python writes for filters of big-endian arrays")


def native(array: np.ndarray) -> np.ndarray:
    """The same values in the host byte order (cuzarr always returns host order); variable-length
    strings as numpy <U (what `cuzarr cat --npy` exports them as)."""
    if array.dtype.kind in "OT":
        return np.asarray(array.tolist(), dtype=str)
    return array.astype(array.dtype.newbyteorder("="))


def sample(dtype, seed=3):
    if np.dtype(dtype).kind in "SUMm":
        return extension_sample(dtype, seed)
    return make_data(np.dtype(dtype).newbyteorder("=").name, SHAPE, seed=seed).astype(dtype)


def extension_sample(dtype, seed):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "S":
        return np.array([bytes(rng.integers(97, 123, size=rng.integers(0, dt.itemsize + 1)).astype(np.uint8))
                         for _ in range(math.prod(SHAPE))], dtype=dt).reshape(SHAPE)
    if dt.kind == "U":
        return np.array(["".join(chr(c) for c in rng.integers(0x61, 0x3000, size=rng.integers(0, dt.itemsize // 4 + 1)))
                         for _ in range(math.prod(SHAPE))], dtype=dt).reshape(SHAPE)
    values = rng.integers(-10**6, 10**6, size=SHAPE)
    data = values.astype(dt.newbyteorder("=")).astype(dt)
    data.reshape(-1)[::7] = np.datetime64("NaT") if dt.kind == "M" else np.timedelta64("NaT")
    return data


def create_v2(path, dtype, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zarr-python warns that some v2 dtypes are not v3-portable
        return zarr.create_array(store=str(path), shape=SHAPE, chunks=CHUNKS, dtype=dtype, zarr_format=2,
                                 **kwargs)


# ---- zarr-python writes, cuzarr reads -------------------------------------------------------------

def v2_case(case_id, dtype, marks=(), partial=False, **kwargs):
    return pytest.param(dtype, kwargs, partial, id=case_id, marks=marks)


def extension(case_id, dtype, **kwargs):
    return v2_case(case_id, dtype, **kwargs)


ZARR_PYTHON_CASES = (
    [v2_case(f"dtype-{d}", d) for d in NUMERIC_DTYPES]
    + [v2_case(f"dtype-{d}-partial", d, partial=True, fill_value=3) for d in ["int16", ">f8", "uint64"]]
    + [v2_case(f"order-F-{d}", d, order="F") for d in ["int32", ">f4", "complex64", "bool"]]
    + [v2_case("order-F-partial-slash", ">i8", order="F", partial=True, fill_value=-1,
               chunk_key_encoding={"name": "v2", "separator": "/"})]
    + [v2_case(f"separator-slash-{d}", d, chunk_key_encoding={"name": "v2", "separator": "/"})
       for d in ["uint8", "float64"]]
    + [v2_case("no-compressor", "int32", compressors=None)]
    + [v2_case(f"compressor-{name}", "float64", compressors=codec) for name, codec in [
        ("zlib", numcodecs.Zlib(level=1)), ("gzip", numcodecs.GZip(level=5)), ("bz2", numcodecs.BZ2(level=3)),
        ("lzma", numcodecs.LZMA()), ("zstd", numcodecs.Zstd(level=3)), ("zstd-checksum", numcodecs.Zstd(level=1, checksum=True)),
        ("lz4", numcodecs.LZ4()), ("jenkins-lookup3", numcodecs.JenkinsLookup3(initval=9)),
        ("base64", numcodecs.Base64())]]
    + [v2_case(f"blosc-{cname}-{shuffle}-{d}", d,
               compressors=numcodecs.Blosc(cname=cname, clevel=5, shuffle=shuffle))
       for cname in ["lz4", "zstd"] for shuffle in [-1, 0, 1, 2] for d in ["uint8", ">i4"]]
    + [v2_case("filter-delta", "int32", filters=[numcodecs.Delta(dtype="<i4")]),
       v2_case("filter-delta-big-endian", ">i8", filters=[numcodecs.Delta(dtype=">i8")],
               marks=pytest.mark.xfail(strict=False, reason=BIG_ENDIAN_FILTER)),
       v2_case("filter-fixedscaleoffset", "float64",
               filters=[numcodecs.FixedScaleOffset(offset=0, scale=10, dtype="<f8", astype="<i4")]),
       v2_case("filter-quantize", "float32", filters=[numcodecs.Quantize(digits=3, dtype="<f4")]),
       v2_case("filter-packbits", "bool", filters=[numcodecs.PackBits()]),
       v2_case("filter-astype", "int32", filters=[numcodecs.AsType(encode_dtype="<i2", decode_dtype="<i4")]),
       v2_case("filter-shuffle", "uint32", filters=[numcodecs.Shuffle(elementsize=4)],
               compressors=numcodecs.Zlib(level=1)),
       v2_case("filter-bitround", "float32", filters=[numcodecs.BitRound(keepbits=10)],
               compressors=numcodecs.LZ4()),
       v2_case("filter-delta-blosc-F", "int16", order="F", filters=[numcodecs.Delta(dtype="<i2")],
               compressors=numcodecs.Blosc(cname="zstd", shuffle=2))]
    + [v2_case(f"fill-{d}-{name}", d, partial=True, fill_value=value)
       for d in ["float32", "float64", ">f4"]
       for name, value in [("nan", math.nan), ("inf", math.inf), ("-inf", -math.inf)]]
    + [v2_case("fill-null", "float16", partial=True, fill_value=None),
       v2_case("fill-complex", "complex128", partial=True, fill_value=complex(1.5, -2))]
    + [extension(f"dtype-{d}", d) for d in ["|S4", "<U5", ">U3", "<M8[ns]", "<m8[10s]", ">M8[D]"]]
    + [extension("dtype-S-fill", "|S3", partial=True, fill_value=b"ab"),
       extension("dtype-U-fill", "<U4", partial=True, fill_value="héllo"[:4]),
       extension("dtype-M8-NaT-fill", "<M8[s]", partial=True, fill_value=np.datetime64("NaT")),
       v2_case("dtype-object-vlen-utf8", str)]
)


@pytest.mark.parametrize("dtype,kwargs,partial", ZARR_PYTHON_CASES)
def test_cuzarr_reads_v2_written_by_zarr_python(dtype, kwargs, partial, tmp_path):
    data = sample("<U5") if dtype is str else sample(dtype)
    path = tmp_path / "array.zarr"
    array = create_v2(path, dtype, **kwargs)
    if partial:
        array[PARTIAL] = data[PARTIAL]
    else:
        array[...] = data
    assert (path / ".zarray").is_file() and not (path / "zarr.json").exists()
    expected = array[...]  # what zarr-python decodes (lossy filters included)
    assert_same(read_with_cuzarr(path, tmp_path), native(np.asarray(expected)))


def test_cuzarr_reads_a_v2_hierarchy(tmp_path):
    root = zarr.open_group(str(tmp_path / "h.zarr"), mode="w", zarr_format=2)
    root.attrs["title"] = "v2"
    sub = root.create_group("sub")
    data = sample("int16")
    sub.create_array("values", shape=SHAPE, chunks=CHUNKS, dtype="int16")[...] = data
    lines = run("ls", tmp_path / "h.zarr").stdout
    assert "sub" in lines and "values" in lines
    info = json.loads(run("info", tmp_path / "h.zarr" / "sub" / "values", "--json").stdout)
    assert info["zarr_format"] == 2
    assert info["shape"] == list(SHAPE)
    assert_same(read_with_cuzarr(tmp_path / "h.zarr" / "sub" / "values", tmp_path), data)


# ---- cuzarr writes, zarr-python reads -------------------------------------------------------------

def bytes_codec(endian="little"):
    return {"name": "bytes", "configuration": {"endian": endian}}


def nc(name, **configuration):
    return {"name": f"numcodecs.{name}", "configuration": configuration}


TRANSPOSE = {"name": "transpose", "configuration": {"order": [1, 0]}}
ZSTD = {"name": "zstd", "configuration": {"level": 1, "checksum": False}}


def blosc(cname, shuffle):
    return {"name": "blosc", "configuration": {"cname": cname, "clevel": 5, "shuffle": shuffle}}


# (id, dtype, codecs (None: the default), extra import arguments, expected .zarray members (... : not
# checked), lossless)
CUZARR_CASES = (
    [(f"dtype-{d}", d, None, [], {"order": "C", "compressor": {"id": "zstd", "level": 0}}, True)
     for d in NUMERIC_DTYPES if not d.startswith(">")]
    + [(f"big-endian-{d}", d, [bytes_codec("big"), ZSTD], [], {"dtype": np.dtype(d).newbyteorder(">").str}, True)
       for d in ["int16", "uint32", "float64", "complex64"]]
    + [(f"order-F-{d}", d, [TRANSPOSE, bytes_codec(), ZSTD], [], {"order": "F"}, True)
       for d in ["int32", "float32", "bool"]]
    + [("order-F-big-endian", "float64", [TRANSPOSE, bytes_codec("big")], [],
        {"order": "F", "dtype": ">f8", "compressor": None}, True),
       ("separator-slash", "uint16", None, ["--chunk-separator", "/"], {"dimension_separator": "/"}, True),
       ("fill-nan", "float32", None, ["--fill-value", "nan"], {"fill_value": "NaN"}, True),
       ("fill-inf", "float64", None, ["--fill-value", "inf"], {"fill_value": "Infinity"}, True),
       ("fill-int", "int16", None, ["--fill-value", "-3"], {"fill_value": -3}, True)]
    + [(f"compressor-{name}", "float64", [bytes_codec(), codec], [], {"compressor": v2}, True)
       for name, codec, v2 in [
           ("zlib", nc("zlib", level=1), {"id": "zlib", "level": 1}),
           ("gzip", nc("gzip", level=5), {"id": "gzip", "level": 5}),
           ("gzip-core", {"name": "gzip", "configuration": {"level": 3}}, {"id": "gzip", "level": 3}),
           ("bz2", nc("bz2", level=3), {"id": "bz2", "level": 3}),
           ("lzma", nc("lzma"), ...),
           ("lz4", nc("lz4"), ...),
           ("base64", nc("base64"), {"id": "base64"}),
           ("zstd", ZSTD, {"id": "zstd", "level": 1}),
           ("zstd-checksum", {"name": "zstd", "configuration": {"level": 2, "checksum": True}},
            {"id": "zstd", "level": 2, "checksum": True})]]
    + [(f"blosc-{cname}-{shuffle}", "int32", [bytes_codec(), blosc(cname, shuffle)], [],
        {"compressor": {"id": "blosc", "cname": cname, "clevel": 5,
                        "shuffle": ["noshuffle", "shuffle", "bitshuffle"].index(shuffle), "blocksize": 0}}, True)
       for cname in ["lz4", "zstd"] for shuffle in ["noshuffle", "shuffle", "bitshuffle"]]
    + [("filter-delta", "int32", [nc("delta", dtype="<i4"), bytes_codec(), nc("zlib", level=1)], [], {}, True),
       ("filter-shuffle", "uint32", [bytes_codec(), nc("shuffle", elementsize=4), nc("zlib", level=1)], [],
        {"filters": [{"id": "shuffle", "elementsize": 4}], "compressor": {"id": "zlib", "level": 1}}, True),
       ("filter-packbits", "bool", [nc("packbits"), bytes_codec(), ZSTD], [], {}, True),
       ("filter-fixedscaleoffset", "float64",
        [nc("fixedscaleoffset", offset=0, scale=10, dtype="<f8", astype="<i4"), bytes_codec(), ZSTD], [], {}, False),
       ("filter-quantize", "float32", [nc("quantize", digits=3, dtype="<f4"), bytes_codec(), ZSTD], [], {}, False),
       ("filter-astype", "int32", [nc("astype", encode_dtype="<i2", decode_dtype="<i4"), bytes_codec()], [], {}, False),
       ("filter-bitround", "float32", [nc("bitround", keepbits=10), bytes_codec(), nc("lz4")], [], {}, False)]
)


def importable_sample(case_id, dtype):
    data = sample(dtype, seed=9)
    if "fixedscaleoffset" in case_id or "quantize" in case_id or "bitround" in case_id:
        data = np.nan_to_num(data, nan=1.0, posinf=2.0, neginf=-2.0) / 100  # keeps int32 in range
    if "astype" in case_id:
        data = data % 30000  # fits int16
    return data.astype(dtype)


@pytest.mark.parametrize("case_id,dtype,codecs,extra,expected_members,lossless", CUZARR_CASES,
                         ids=[c[0] for c in CUZARR_CASES])
def test_zarr_python_reads_v2_written_by_cuzarr(case_id, dtype, codecs, extra, expected_members, lossless,
                                                  tmp_path):
    data = importable_sample(case_id, dtype)
    source = tmp_path / "input.npy"
    np.save(source, data)
    path = tmp_path / "array.zarr"
    args = ["import", source, path, "--zarr-format", "2", "--chunks", ",".join(map(str, CHUNKS)), *extra]
    for codec in codecs or []:
        args += ["--codec", json.dumps(codec)]
    run(*args)
    zarray = json.loads((path / ".zarray").read_text())
    assert not (path / "zarr.json").exists()
    assert zarray["zarr_format"] == 2 and zarray["shape"] == list(SHAPE) and zarray["chunks"] == list(CHUNKS)
    for member, value in expected_members.items():
        if value is not ...:
            assert zarray[member] == value, f"{member}: {zarray[member]!r} != {value!r}"
    decoded = zarr.open_array(str(path), mode="r")
    assert decoded.metadata.zarr_format == 2
    values = np.asarray(decoded[...])
    if lossless:
        assert_same(native(values), data)
    assert_same(read_with_cuzarr(path, tmp_path), native(values))
