"""The Zarr extension data types across implementations: zarr-python 3 writes and cuzarr reads, cuzarr
writes and zarr-python reads (strings, byte strings, numpy datetime64 / timedelta64), and the same both
ways with tensorstore for bfloat16 and the float8 family (values as ml_dtypes arrays)."""

import json
import re
import warnings

import numpy as np
import pytest
import zarr

from cuzarr_cli import assert_same as assert_same_numbers
from cuzarr_cli import read_with_cuzarr, run

pytestmark = pytest.mark.cross_implementation

warnings.filterwarnings("ignore", category=UserWarning)  # zarr-python's "not in the spec" notes
warnings.filterwarnings("ignore", category=FutureWarning)

STRINGS = ["", "a", "héllo", "€ and 😀", "tab\there", "quote's", "last"]
BYTE_STRINGS = [b"", b"x", b"\x01\x02", b"abc", b"z\x00z", b"\xff", b"end"]


def assert_same(actual, expected):
    """assert_same, with NaT equal to NaT (datetime64 / timedelta64 compare their int64 counts)."""
    if expected.dtype.kind in "mM":
        assert actual.dtype == expected.dtype, f"dtype {actual.dtype} != {expected.dtype}"
        actual, expected = actual.view(np.int64), expected.view(np.int64)
    assert_same_numbers(actual, expected)


def strings_case(values, shape):
    return np.array(values[: int(np.prod(shape))], dtype=object).reshape(shape)


# id, numpy data for zarr-python, zarr-python dtype (None: data's), fill value, chunks, region written
ZARR_PYTHON_CASES = [
    ("string", strings_case(STRINGS, (7,)), str, None, (3,), np.s_[1:6]),
    ("string-fill", strings_case(STRINGS, (7,)), str, "n/a", (2,), np.s_[2:5]),
    ("string-2d", strings_case(STRINGS * 3, (4, 5)), str, None, (3, 2), np.s_[1:3, 0:4]),
    ("variable_length_bytes", strings_case(BYTE_STRINGS, (7,)), "variable_length_bytes", None, (3,), np.s_[0:5]),
    ("fixed_length_utf32", np.array(["a", "bcdef", "", "é€"] * 2), None, None, (3,), np.s_[1:7]),
    ("fixed_length_utf32-fill", np.array(["a", "bcdef", "", "é€"] * 2), None, "hi", (3,), np.s_[2:5]),
    ("null_terminated_bytes", np.array([b"a", b"bcde", b"", b"\x01"] * 2, dtype="S4"), None, None, (3,), np.s_[1:7]),
    ("null_terminated_bytes-fill", np.array([b"a", b"bcde", b"", b"\x01"] * 2, dtype="S4"), None, b"xy", (3,), np.s_[3:5]),
    ("raw_bytes", np.array([b"abc", b"\x00\x01\x02", b"zzz", b"q\x00r"] * 2, dtype="V3"), None, None, (3,), np.s_[1:7]),
    ("raw_bytes-fill", np.array([b"abc", b"\x00\x01\x02"] * 3, dtype="V3"), None, np.void(b"\x01\x02\x03"), (4,), np.s_[1:3]),
    ("datetime64-ms", np.array(["2024-01-02T03:04:05.006", "NaT", "1969-12-31T23:59:59.999", "1970-01-01"] * 2, dtype="M8[ms]"), None, None, (3,), np.s_[0:8]),
    ("datetime64-ms-nat-fill", np.array(["2024-01-02T03:04:05.006", "NaT", "2001-09-09"] * 2, dtype="M8[ms]"), None, np.datetime64("NaT"), (4,), np.s_[1:3]),
    ("datetime64-10s", np.array([1, 2, -3, 1000000, -(2**40)], dtype="M8[10s]"), None, np.datetime64(5, "10s"), (2,), np.s_[1:4]),
    ("datetime64-D", np.array(["2024-02-29", "1900-01-01", "NaT", "2100-12-31"], dtype="M8[D]"), None, None, (3,), np.s_[0:4]),
    ("datetime64-ns", np.array(["2262-04-11T23:47:16.854775807", "1677-09-21T00:12:43.145224193", "NaT"], dtype="M8[ns]"), None, None, (2,), np.s_[0:3]),
    ("timedelta64-s", np.array([1, -5, 0, 86400 * 365], dtype="m8[s]").astype("m8[s]"), None, np.timedelta64("NaT"), (3,), np.s_[0:3]),
    ("timedelta64-us-nat", np.array([1, "NaT", -7], dtype="m8[us]"), None, np.timedelta64(0, "us"), (2,), np.s_[0:3]),
]


def write_with_zarr_python(path, data, dtype, fill_value, chunks, region):
    kwargs = {} if fill_value is None else {"fill_value": fill_value}
    if dtype == "variable_length_bytes":
        dtype = zarr.dtype.VariableLengthBytes()
    array = zarr.create_array(str(path), shape=data.shape, chunks=chunks,
                              dtype=data.dtype if dtype is None else dtype, **kwargs)
    array[region] = data[region]
    return array


def as_fixed(values):
    """What `cuzarr cat --npy` writes for a variable-length array: <U / |S of the longest value."""
    flat = list(values.ravel())
    if flat and isinstance(flat[0], bytes):
        return np.array(flat, dtype=f"S{max(1, max(len(v) for v in flat))}").reshape(values.shape)
    return np.array(flat, dtype=f"U{max(1, max(len(v) for v in flat))}").reshape(values.shape)


@pytest.mark.parametrize("case", ZARR_PYTHON_CASES, ids=[c[0] for c in ZARR_PYTHON_CASES])
def test_cuzarr_reads_what_zarr_python_wrote(case, tmp_path):
    _, data, dtype, fill_value, chunks, region = case
    path = tmp_path / "array.zarr"
    array = write_with_zarr_python(path, data, dtype, fill_value, chunks, region)
    expected = array[...]  # zarr-python's own reading: the fill value outside the region
    if expected.dtype == object or expected.dtype.kind == "T":
        expected = as_fixed(np.asarray(expected, dtype=object))
    assert_same(read_with_cuzarr(path, tmp_path), expected)
    # A strided selection too.
    select = "::-2" if data.ndim == 1 else "::-1, 1::2"
    sliced = expected[::-2] if data.ndim == 1 else expected[::-1, 1::2]
    actual = read_with_cuzarr(path, tmp_path, select=select)
    if sliced.dtype.kind in "US":  # the longest value of the selection may be shorter
        actual = actual.astype(sliced.dtype)
    assert_same(actual, sliced)


def test_missing_chunks_read_as_fill(tmp_path):
    path = tmp_path / "array.zarr"
    zarr.create_array(str(path), shape=(6,), chunks=(2,), dtype=str, fill_value="nothing")
    assert_same(read_with_cuzarr(path, tmp_path), np.array(["nothing"] * 6))
    path2 = tmp_path / "times.zarr"
    zarr.create_array(str(path2), shape=(3,), chunks=(2,), dtype="M8[s]", fill_value=np.datetime64("NaT"))
    assert_same(read_with_cuzarr(path2, tmp_path), np.array(["NaT"] * 3, dtype="M8[s]"))


def test_sharded_strings_written_by_zarr_python(tmp_path):
    path = tmp_path / "array.zarr"
    data = strings_case(STRINGS * 4, (4, 7))
    array = zarr.create_array(str(path), shape=data.shape, chunks=(2, 2), shards=(4, 4), dtype=str)
    array[:, 1:6] = data[:, 1:6]
    assert_same(read_with_cuzarr(path, tmp_path), as_fixed(np.asarray(array[...], dtype=object)))


# id, numpy data saved as .npy, extra import arguments, expected zarr-python data type JSON
IMPORT_CASES = [
    ("U5", np.array(["a", "bcdef", "", "é€"]), [], {"name": "fixed_length_utf32", "configuration": {"length_bytes": 20}}),
    ("S4", np.array([b"a", b"bcde", b"", b"\x01\x02"]), [], {"name": "null_terminated_bytes", "configuration": {"length_bytes": 4}}),
    ("M8-ms", np.array(["2024-01-02T03:04:05.006", "NaT", "1900-01-01"], dtype="M8[ms]"), ["--fill-value", '"NaT"'],
     {"name": "numpy.datetime64", "configuration": {"unit": "ms", "scale_factor": 1}}),
    ("M8-10s", np.array([1, -2, 3], dtype="M8[10s]"), [], {"name": "numpy.datetime64", "configuration": {"unit": "s", "scale_factor": 10}}),
    ("m8-s", np.array([1, "NaT", -3], dtype="m8[s]"), [], {"name": "numpy.timedelta64", "configuration": {"unit": "s", "scale_factor": 1}}),
    ("M8-D-big-endian", np.array(["2024-02-29", "NaT"], dtype=">M8[D]"), [], {"name": "numpy.datetime64", "configuration": {"unit": "D", "scale_factor": 1}}),
    ("U-to-string", np.array(["", "a", "héllo", "€ and 😀", "x"]), ["--variable-length"], "string"),
    ("S-to-bytes", np.array([b"", b"a", b"\xff\x01", b"xyz"]), ["--variable-length"], "variable_length_bytes"),
    ("U-to-string-sharded", np.array(["", "a", "héllo", "b", "", "c", "d", ""]), ["--variable-length", "--shards", "4"], "string"),
]


@pytest.mark.parametrize("case", IMPORT_CASES, ids=[c[0] for c in IMPORT_CASES])
def test_zarr_python_reads_what_cuzarr_wrote(case, tmp_path):
    _, data, extra, data_type = case
    source = tmp_path / "input.npy"
    np.save(source, data)
    path = tmp_path / "array.zarr"
    run("import", source, path, "--chunks", "2", *extra)
    document = json.loads((path / "zarr.json").read_text())
    assert document["data_type"] == data_type
    actual = zarr.open_array(str(path), mode="r")[...]
    if data_type in ("string", "variable_length_bytes"):
        assert [v for v in np.asarray(actual, dtype=object).ravel()] == list(data.ravel())
    else:
        assert_same(actual, data.astype(data.dtype.newbyteorder("<")))
    # And cuzarr reads its own array back.
    back = read_with_cuzarr(path, tmp_path)
    assert_same(back, data.astype(data.dtype.newbyteorder("<")))


def test_cuzarr_partial_string_writes_read_by_zarr_python(tmp_path):
    """Read-modify-write of string chunks by cuzarr, then zarr-python reads the result."""
    path = tmp_path / "array.zarr"
    array = zarr.create_array(str(path), shape=(7,), chunks=(3,), dtype=str, fill_value="-")
    array[0:4] = np.array(["a", "b", "c", "d"], dtype=object)
    # cuzarr rewrites the whole array from a .npy (all chunks), then zarr-python reads it.
    source = tmp_path / "input.npy"
    np.save(source, np.array(["x", "", "yy", "-", "-", "-", "z"]))
    out = tmp_path / "copy.zarr"
    run("import", source, out, "--chunks", "3", "--variable-length", "--fill-value", '"-"')
    copy = zarr.open_array(str(out), mode="r")
    assert list(np.asarray(copy[...], dtype=object)) == ["x", "", "yy", "-", "-", "-", "z"]
    # The chunk holding only the fill value was not stored.
    assert not (out / "c" / "1").exists()


def test_cat_prints_extension_types(tmp_path):
    path = tmp_path / "t.zarr"
    array = zarr.create_array(str(path), shape=(2,), chunks=(2,), dtype="M8[ms]")
    array[:] = np.array(["2024-01-02T03:04:05.006", "NaT"], dtype="M8[ms]")
    assert run("cat", path).stdout.strip() == str(array[:])
    path = tmp_path / "s.zarr"
    array = zarr.create_array(str(path), shape=(3,), chunks=(2,), dtype=str)
    array[:] = np.array(["a", "it's", "é"], dtype=object)
    assert run("cat", path).stdout.strip() == "['a' \"it's\" 'é']"
    info = run("info", path).stdout
    assert "string" in info
    path = tmp_path / "d.zarr"
    zarr.create_array(str(path), shape=(1,), chunks=(1,), dtype="M8[10s]")
    assert "numpy.datetime64[10s]" in run("info", path).stdout


# ---- bfloat16 and float8 with tensorstore --------------------------------------------------------

ts = pytest.importorskip("tensorstore")
ml_dtypes = pytest.importorskip("ml_dtypes")

FLOAT_KINDS = ["bfloat16", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e4m3b11fnuz", "float8_e5m2", "float8_e5m2fnuz"]
FLOAT_FILLS = [None, 1.5, "NaN"]
FLOAT_CASES = [(kind, fill) for kind in FLOAT_KINDS for fill in FLOAT_FILLS] + [("float8_e5m2", "Infinity"), ("bfloat16", "-Infinity")]


def float_values(kind, count, seed):
    rng = np.random.default_rng(seed)
    finite_max = float(ml_dtypes.finfo(getattr(ml_dtypes, kind)).max)
    values = rng.uniform(-finite_max, finite_max, count) * rng.choice([1, 1e-3, 1e-6], count)
    values[:4] = [0.0, 1.0, -2.5, 0.1][: min(4, count)]
    return values.astype(getattr(ml_dtypes, kind))


def bits(values):
    return values.view(np.uint16 if values.dtype.itemsize == 2 else np.uint8)


def assert_same_floats(actual, expected):
    assert actual.shape == expected.shape and actual.dtype == expected.dtype
    nan_a = np.isnan(actual.astype(np.float64))
    nan_e = np.isnan(expected.astype(np.float64))
    assert (nan_a == nan_e).all(), f"NaN positions differ: {actual} vs {expected}"
    assert (bits(actual)[~nan_a] == bits(expected)[~nan_e]).all(), f"{actual} != {expected}"


def parse_printed(text, kind, shape):
    """The values `cuzarr cat` printed (numpy style), converted to the ml_dtypes type."""
    words = re.sub(r"[\[\]]", " ", text).split()
    return np.array([float(w) for w in words], dtype=np.float64).astype(getattr(ml_dtypes, kind)).reshape(shape)


def ts_spec(path):
    return {"driver": "zarr3", "kvstore": {"driver": "file", "path": str(path)}}


@pytest.mark.parametrize("case", FLOAT_CASES, ids=[f"{k}-fill-{f}" for k, f in FLOAT_CASES])
def test_cuzarr_reads_what_tensorstore_wrote(case, tmp_path):
    kind, fill = case
    path = tmp_path / "array.zarr"
    spec = ts_spec(path)
    spec["metadata"] = {"shape": [5, 6], "data_type": kind,
                        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2, 4]}}}
    if fill is not None:
        spec["metadata"]["fill_value"] = fill
    array = ts.open(spec, create=True).result()
    data = float_values(kind, 30, seed=3).reshape(5, 6)
    array[1:4, 0:5].write(data[1:4, 0:5]).result()
    expected = np.asarray(array.read().result())
    actual = parse_printed(run("cat", path).stdout, kind, (5, 6))
    assert_same_floats(actual, expected)


def test_npy_of_a_type_numpy_lacks_is_a_clear_error(tmp_path):
    path = tmp_path / "array.zarr"
    spec = ts_spec(path)
    spec["metadata"] = {"shape": [2], "data_type": "bfloat16",
                        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}}}
    ts.open(spec, create=True).result()
    result = run("cat", path, "--npy", tmp_path / "out.npy", expect_status=None)
    assert result.returncode != 0
    assert "bfloat16 has no numpy descriptor" in result.stderr


@pytest.mark.parametrize("case", FLOAT_CASES, ids=[f"{k}-fill-{f}" for k, f in FLOAT_CASES])
def test_tensorstore_reads_what_cuzarr_wrote(case, tmp_path):
    kind, fill = case
    data = float_values(kind, 24, seed=4).reshape(4, 6)
    source = tmp_path / "bits.npy"
    np.save(source, bits(data))
    path = tmp_path / "array.zarr"
    args = ["import", source, path, "--chunks", "3,4", "--data-type", kind]
    if fill is not None:
        args += ["--fill-value", json.dumps(fill)]
    run(*args)
    document = json.loads((path / "zarr.json").read_text())
    assert document["data_type"] == kind
    array = ts.open(ts_spec(path), open=True).result()
    assert_same_floats(np.asarray(array.read().result()), data)
