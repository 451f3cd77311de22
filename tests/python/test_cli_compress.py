"""`cuzarr compress` / `cuzarr decompress`: raw output read by Python's reference decoders (zlib,
gzip, bz2, lzma, numcodecs), streams written by them read by cuzarr, native round trips and
corrupt input."""

import bz2
import gzip
import lzma
import shutil
import struct
import subprocess
import zlib

import numcodecs
import numpy as np
import pytest

from cuzarr_cli import run

pytestmark = pytest.mark.cross_implementation

ALGORITHMS = ["lz4", "zstd", "deflate", "gzip", "zlib", "bz2", "lzma", "blosc"]


def field_bytes(size, seed=0):
    """A smooth float32 field plus noise, as `size` bytes."""
    rng = np.random.default_rng(seed)
    n = (size + 3) // 4
    values = np.sin(np.arange(n, dtype=np.float32) * 0.001) + rng.normal(0, 0.01, n).astype(np.float32)
    return values.tobytes()[:size]


@pytest.fixture(scope="module")
def blosc_available(tmp_path_factory):
    path = tmp_path_factory.mktemp("probe")
    (path / "in").write_bytes(b"abc")
    result = run("compress", path / "in", path / "out", "--algorithm", "blosc", expect_status=None)
    return result.returncode == 0


def skip_unbuilt(algorithm, blosc_available):
    if algorithm == "blosc" and not blosc_available:
        pytest.skip("cuzarr was built without c-blosc")


def compress(tmp_path, data, *options):
    source, target = tmp_path / "input.bin", tmp_path / "compressed.bin"
    source.write_bytes(data)
    run("compress", source, target, *options)
    return target.read_bytes()


def decompress(tmp_path, stream, *options):
    source, target = tmp_path / "stream.bin", tmp_path / "decoded.bin"
    source.write_bytes(stream)
    run("decompress", source, target, *options)
    return target.read_bytes()


def split_streams(data, decoder_factory):
    """Decodes streams back to back with zlib-style decompressobj()s (unused_data holds the rest)."""
    out = b""
    while data:
        decoder = decoder_factory()
        out += decoder.decompress(data)
        assert decoder.eof, "stream truncated"
        data = decoder.unused_data
    return out


def reference_decode(algorithm, stream, size):
    """Decodes one raw stream (one chunk) with Python's or numcodecs' implementation."""
    if algorithm == "lz4":
        # numcodecs.LZ4 is an LZ4 block behind a 4-byte little-endian size. It cannot decode an
        # empty block (not even its own), which is the single token 0x00.
        if size == 0:
            assert stream == b"\x00"
            return b""
        return numcodecs.LZ4().decode(struct.pack("<I", size) + stream)
    if algorithm == "zstd":
        return bytes(numcodecs.Zstd().decode(stream))
    if algorithm == "deflate":
        return zlib.decompress(stream, wbits=-15)
    if algorithm == "gzip":
        return gzip.decompress(stream)
    if algorithm == "zlib":
        return zlib.decompress(stream)
    if algorithm == "bz2":
        return bz2.decompress(stream)
    if algorithm == "lzma":
        return lzma.decompress(stream, format=lzma.FORMAT_XZ)
    if algorithm == "blosc":
        return bytes(numcodecs.Blosc().decode(stream))
    raise AssertionError(algorithm)


def reference_encode(algorithm, data):
    """One raw stream of `data` written by the reference implementation."""
    if algorithm == "lz4":
        return bytes(numcodecs.LZ4().encode(data))[4:]  # drop numcodecs' size prefix
    if algorithm == "zstd":
        return bytes(numcodecs.Zstd(level=5).encode(data))
    if algorithm == "deflate":
        compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
        return compressor.compress(data) + compressor.flush()
    if algorithm == "gzip":
        return gzip.compress(data)
    if algorithm == "zlib":
        return zlib.compress(data)
    if algorithm == "bz2":
        return bz2.compress(data)
    if algorithm == "lzma":
        return lzma.compress(data, format=lzma.FORMAT_XZ)
    if algorithm == "blosc":
        return bytes(numcodecs.Blosc(cname="zstd", shuffle=numcodecs.Blosc.SHUFFLE).encode(data))
    raise AssertionError(algorithm)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("size", [0, 1, 100_000])
def test_raw_single_chunk_is_read_by_the_reference(tmp_path, algorithm, size, blosc_available):
    skip_unbuilt(algorithm, blosc_available)
    if size == 0 and algorithm in ("zstd", "blosc"):
        pytest.skip("numcodecs cannot decode an empty zstd frame or blosc buffer, not even its own")
    data = field_bytes(size)
    stream = compress(tmp_path, data, "--algorithm", algorithm, "--format", "raw", "--chunk-size", "1MiB")
    assert reference_decode(algorithm, stream, size) == data


@pytest.mark.parametrize("algorithm", ["gzip", "zlib", "deflate", "bz2", "lzma"])
def test_raw_many_chunks_are_streams_back_to_back(tmp_path, algorithm):
    data = field_bytes(300_000, seed=3)
    stream = compress(tmp_path, data, "--algorithm", algorithm, "--format", "raw", "--chunk-size", "64KiB")
    if algorithm == "gzip":
        assert gzip.decompress(stream) == data  # a multi-member gzip file (RFC 1952, 2.2)
    elif algorithm == "bz2":
        assert bz2.decompress(stream) == data  # concatenated bzip2 streams
    elif algorithm == "lzma":
        assert lzma.decompress(stream, format=lzma.FORMAT_XZ) == data  # concatenated .xz streams
    elif algorithm == "zlib":
        assert split_streams(stream, zlib.decompressobj) == data
    else:
        assert split_streams(stream, lambda: zlib.decompressobj(wbits=-15)) == data


def test_raw_zstd_many_chunks_are_one_multi_frame_stream(tmp_path):
    data = field_bytes(200_000, seed=4)
    stream = compress(tmp_path, data, "--algorithm", "zstd", "--format", "raw", "--chunk-size", "50000")
    try:
        import zstandard
    except ImportError:
        zstandard = None
    if zstandard is not None:
        decoded = zstandard.ZstdDecompressor().decompressobj(read_across_frames=True).decompress(stream)
    elif shutil.which("zstd"):
        decoded = subprocess.run(["zstd", "-d", "-c"], input=stream, capture_output=True, check=True).stdout
    else:
        pytest.skip("neither the zstandard module nor the zstd tool is installed")
    assert decoded == data


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_reference_streams_are_read_by_cuzarr(tmp_path, algorithm, blosc_available):
    skip_unbuilt(algorithm, blosc_available)
    data = field_bytes(70_000, seed=5)
    stream = reference_encode(algorithm, data)
    decoded = decompress(tmp_path, stream, "--algorithm", algorithm, "--format", "raw",
                         "--chunk-size", "1MiB", "--size", str(len(data)))
    assert decoded == data


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("checksum", ["none", "compute", "verify"])
def test_native_round_trip(tmp_path, algorithm, checksum, blosc_available):
    skip_unbuilt(algorithm, blosc_available)
    data = field_bytes(250_001, seed=6)
    stream = compress(tmp_path, data, "--algorithm", algorithm, "--checksum", checksum, "--chunk-size", "32KiB")
    assert stream[:4] == b"CZCB"
    assert stream[5] == ALGORITHMS.index(algorithm) + 1
    assert struct.unpack_from("<IQQ", stream, 12) == (32 * 1024, len(data), 8)
    # Native input describes itself: no algorithm or chunk size needed.
    assert decompress(tmp_path, stream, "--checksum", "verify") == data


def test_raw_with_size_prefix(tmp_path):
    data = field_bytes(12345, seed=7)
    stream = compress(tmp_path, data, "--algorithm", "zlib", "--format", "raw-with-size")
    assert struct.unpack_from("<Q", stream)[0] == len(data)
    assert zlib.decompress(stream[8:]) == data
    assert decompress(tmp_path, stream, "--algorithm", "zlib", "--format", "raw-with-size") == data


def test_corrupt_native_file_fails_with_the_file_and_chunk_named(tmp_path):
    data = field_bytes(200_000, seed=8)
    stream = bytearray(compress(tmp_path, data, "--checksum", "compute"))
    stream[-10] ^= 0xFF  # inside the last chunk
    (tmp_path / "bad.bin").write_bytes(bytes(stream))
    result = run("decompress", tmp_path / "bad.bin", tmp_path / "out.bin", "--checksum", "verify",
                 expect_status=2)
    assert f"{tmp_path / 'bad.bin'}: chunk 3: crc32c of the compressed bytes" in result.stderr
    truncated = tmp_path / "short.bin"
    truncated.write_bytes(bytes(stream[:100]))
    result = run("decompress", truncated, tmp_path / "out.bin", expect_status=2)
    assert f"{truncated}: native bitstream" in result.stderr


def test_bad_options_name_the_option(tmp_path):
    (tmp_path / "in").write_bytes(b"x" * 10)
    result = run("compress", tmp_path / "in", tmp_path / "out", "--algorithm", "snappy", expect_status=2)
    assert '"algorithm"' in result.stderr
    result = run("compress", tmp_path / "in", tmp_path / "out", "--level", "99", expect_status=2)
    assert '"level"' in result.stderr
    result = run("compress", tmp_path / "in", tmp_path / "out", "--chunk-size", "12XB", expect_status=2)
    assert "--chunk-size" in result.stderr
    result = run("decompress", tmp_path / "in", tmp_path / "out", "--format", "raw", expect_status=2)
    assert "--size" in result.stderr
