"""The matrix of arrays the cross-implementation tests write and read: data types, codec chains,
chunk shapes with partial edge chunks, fill values and partially written arrays."""

from dataclasses import dataclass, field
import math

import numpy as np

DTYPES = [
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
]

SHAPE = (23, 17)          # not a multiple of any chunk shape below: edge chunks are partial
CHUNKS = (8, 5)
SHARD = (8, 10)           # shards of INNER chunks
INNER = (4, 5)
PARTIAL_REGION = (slice(0, 13), slice(2, 17))  # leaves the last row of chunks unwritten


def bytes_codec(endian="little"):
    return {"name": "bytes", "configuration": {"endian": endian}}


def zstd(level=0, checksum=False):
    return {"name": "zstd", "configuration": {"level": level, "checksum": checksum}}


def gzip(level=5):
    return {"name": "gzip", "configuration": {"level": level}}


def crc32c():
    return {"name": "crc32c"}


def transpose(order=(1, 0)):
    return {"name": "transpose", "configuration": {"order": list(order)}}


def blosc(cname, shuffle, typesize, clevel=5):
    return {"name": "blosc", "configuration": {"cname": cname, "clevel": clevel, "shuffle": shuffle,
                                                "typesize": typesize, "blocksize": 0}}


def sharding(inner_codecs, chunk_shape=INNER, index_location="end", index_codecs=None):
    if index_codecs is None:
        index_codecs = [bytes_codec(), crc32c()]
    return {"name": "sharding_indexed", "configuration": {
        "chunk_shape": list(chunk_shape), "codecs": inner_codecs, "index_codecs": index_codecs,
        "index_location": index_location}}


BLOSC_CNAMES = ["lz4", "lz4hc", "blosclz", "zstd", "zlib"]
BLOSC_SHUFFLES = ["noshuffle", "shuffle", "bitshuffle"]


def codec_chain(name: str, itemsize: int):
    """The codec list called `name`, and the chunk shape (the shard shape when sharded)."""
    chains = {
        "bytes-little": ([bytes_codec("little")], CHUNKS),
        "bytes-big": ([bytes_codec("big")], CHUNKS),
        "transpose": ([transpose(), bytes_codec()], CHUNKS),
        "transpose-big-zstd": ([transpose(), bytes_codec("big"), zstd(1)], CHUNKS),
        "crc32c": ([bytes_codec(), crc32c()], CHUNKS),
        "gzip": ([bytes_codec(), gzip(5)], CHUNKS),
        "gzip-1": ([bytes_codec(), gzip(1)], CHUNKS),
        "zstd": ([bytes_codec(), zstd(0)], CHUNKS),
        "zstd-checksum": ([bytes_codec(), zstd(3, True)], CHUNKS),
        "zstd-gzip-crc32c": ([bytes_codec(), zstd(1), gzip(1), crc32c()], CHUNKS),
        "sharding-end": ([sharding([bytes_codec(), zstd()], index_location="end")], SHARD),
        "sharding-start": ([sharding([bytes_codec(), zstd()], index_location="start")], SHARD),
        "sharding-plain-index": ([sharding([bytes_codec()], index_codecs=[bytes_codec()])], SHARD),
        "sharding-nested-inner": ([sharding([transpose(), bytes_codec("big"), gzip(1), crc32c()],
                                            index_location="start")], SHARD),
        "sharding-blosc-inner": ([sharding([bytes_codec(), blosc("lz4", "shuffle", itemsize)])], SHARD),
        "sharding-in-sharding": ([sharding([sharding([bytes_codec(), zstd()], chunk_shape=(2, 5))],
                                           chunk_shape=(4, 10), index_location="start")], SHARD),
        # The shard representation after transpose is (10, 8); square inner chunks divide it either way.
        "transpose-sharding": ([transpose(), sharding([bytes_codec(), zstd()], chunk_shape=(2, 2))], SHARD),
    }
    for cname in BLOSC_CNAMES:
        for shuffle in BLOSC_SHUFFLES:
            chains[f"blosc-{cname}-{shuffle}"] = ([bytes_codec(), blosc(cname, shuffle, itemsize)], CHUNKS)
    return chains[name]


CODEC_NAMES = [
    "bytes-little", "bytes-big", "transpose", "transpose-big-zstd", "crc32c", "gzip", "gzip-1", "zstd",
    "zstd-checksum", "zstd-gzip-crc32c", "sharding-end", "sharding-start", "sharding-plain-index",
    "sharding-nested-inner", "sharding-blosc-inner", "sharding-in-sharding", "transpose-sharding",
] + [f"blosc-{c}-{s}" for c in BLOSC_CNAMES for s in BLOSC_SHUFFLES]


@dataclass
class Case:
    id: str
    dtype: str
    codec_name: str
    fill_value: object = 0
    partial: bool = True
    shape: tuple = SHAPE
    codecs: list = field(default_factory=list)
    chunks: tuple = CHUNKS

    def __post_init__(self):
        self.codecs, self.chunks = codec_chain(self.codec_name, np.dtype(self.dtype).itemsize)


def fill_value_json(value, dtype: str):
    """The zarr.json spelling of a fill value."""
    kind = np.dtype(dtype).kind
    if kind == "b":
        return bool(value)
    if kind == "c":
        return [fill_value_json(value.real, "float64"), fill_value_json(value.imag, "float64")]
    if kind == "f":
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return float(value)
    return int(value)


def make_data(dtype: str, shape, seed: int = 0) -> np.ndarray:
    """Random values spanning the type's range; floats include NaN, infinities and -0."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, size=shape, dtype=dt, endpoint=True)
    if dt.kind == "f":
        data = (rng.standard_normal(shape) * 1000).astype(dt)
        flat = data.reshape(-1)
        flat[::11] = np.nan
        flat[3::13] = np.inf
        flat[5::17] = -np.inf
        flat[7::19] = -0.0
        return data
    part = np.float32 if dt == np.complex64 else np.float64
    real = make_data(np.dtype(part).name, shape, seed)
    imag = make_data(np.dtype(part).name, shape, seed + 1)
    return (real + 1j * imag.astype(dt)).astype(dt)


def expected_after_write(case: Case, data: np.ndarray) -> np.ndarray:
    """What reading the whole array returns after writing `data` (only PARTIAL_REGION if partial)."""
    if not case.partial:
        return data
    expected = np.full(case.shape, case.fill_value, dtype=case.dtype)
    expected[PARTIAL_REGION] = data[PARTIAL_REGION]
    return expected


def build_cases():
    cases = []
    # Every data type with a few codec chains, written whole and partially.
    for dtype in DTYPES:
        for codec_name in ["zstd", "bytes-big", "sharding-end", "transpose-big-zstd"]:
            cases.append(Case(f"{dtype}-{codec_name}", dtype, codec_name, partial=False))
        cases.append(Case(f"{dtype}-zstd-partial", dtype, "zstd", partial=True))
    # Every codec chain with two data types, partially written (missing chunks read as fill).
    for codec_name in CODEC_NAMES:
        for dtype in ["uint16", "float64"]:
            cases.append(Case(f"{codec_name}-{dtype}", dtype, codec_name, partial=True, fill_value=3))
    # Fill values.
    for dtype in ["float16", "float32", "float64"]:
        for name, value in [("nan", math.nan), ("inf", math.inf), ("-inf", -math.inf), ("1.5", 1.5)]:
            cases.append(Case(f"fill-{dtype}-{name}", dtype, "zstd", fill_value=value))
            cases.append(Case(f"fill-{dtype}-{name}-sharded", dtype, "sharding-start", fill_value=value))
    cases.append(Case("fill-complex64", "complex64", "zstd", fill_value=complex(1.5, -2)))
    cases.append(Case("fill-complex128-nan", "complex128", "zstd", fill_value=complex(math.nan, 0)))
    cases.append(Case("fill-int8-neg", "int8", "zstd", fill_value=-7))
    cases.append(Case("fill-uint64-max", "uint64", "zstd", fill_value=2**64 - 1))
    cases.append(Case("fill-int64-min", "int64", "sharding-end", fill_value=-(2**63)))
    cases.append(Case("fill-bool-true", "bool", "zstd", fill_value=True))
    return cases


CASES = build_cases()

# The subset tensorstore is checked against (both ways).
TENSORSTORE_CASE_IDS = [
    "uint16-zstd", "int64-bytes-big", "float32-transpose-big-zstd", "complex64-zstd", "bool-zstd",
    "float16-zstd", "uint8-sharding-end", "gzip-uint16", "crc32c-float64", "zstd-checksum-uint16",
    "blosc-lz4-shuffle-float64", "blosc-zstd-bitshuffle-uint16", "sharding-start-float64",
    "sharding-nested-inner-uint16", "sharding-plain-index-float64", "fill-float32-nan",
    "fill-float64-inf-sharded",
]
