// The standalone Compressor on the CPU: every algorithm x bitstream kind x checksum policy round
// trip at chunk boundaries, batches, raw output read back by each algorithm's reference library,
// the native header, corrupt and truncated input, checksum policies and option errors.
#include <bzlib.h>
#include <gtest/gtest.h>
#include <lz4.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#if CUZARR_HAVE_BLOSC
#include <blosc.h>
#endif

#include "cuzarr/api/compressor.hpp"
#include "cuzarr/api/native_bitstream.hpp"
#include "cuzarr/codec/crc32c.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/memory/cuda_device.hpp"

namespace cuzarr {
namespace {

constexpr size_t kChunk = 1000;

// Realistic bytes: a smooth float32 field plus a little noise (compressible, not trivially).
Buffer field_bytes(size_t size, unsigned seed = 1) {
  Buffer buffer = Buffer::allocate(size);
  std::mt19937 random(seed);
  std::normal_distribution<float> noise(0.0f, 0.01f);
  std::vector<std::byte> bytes(size);
  for (size_t i = 0; i < size; i += 4) {
    const float value = std::sin(static_cast<float>(i) * 0.001f) + noise(random);
    std::memcpy(bytes.data() + i, &value, std::min<size_t>(4, size - i));
  }
  if (size > 0) std::memcpy(buffer.data(), bytes.data(), size);
  return buffer;
}

std::vector<std::byte> contents(const Buffer& buffer) {
  return {buffer.data(), buffer.data() + buffer.size()};
}

Compressor make(CompressionAlgorithm algorithm, BitstreamKind bitstream,
                ChecksumPolicy checksum = ChecksumPolicy::none, size_t chunk_size = kChunk) {
  CompressorOptions options;
  options.algorithm = algorithm;
  options.bitstream = bitstream;
  options.checksum = checksum;
  options.chunk_size = chunk_size;
  return Compressor(options);
}

DecompressCall sized(uint64_t size) {
  DecompressCall call;
  call.uncompressed_size = size;
  return call;
}

std::string name_of(CompressionAlgorithm a) { return std::string(compression_algorithm_name(a)); }

// --- round trips -----------------------------------------------------------------------------

using RoundTripParam = std::tuple<CompressionAlgorithm, BitstreamKind, ChecksumPolicy>;

class CompressorRoundTrip : public ::testing::TestWithParam<RoundTripParam> {};

TEST_P(CompressorRoundTrip, EveryChunkBoundary) {
  const auto [algorithm, bitstream, checksum] = GetParam();
  const Compressor compressor = make(algorithm, bitstream, checksum);
  for (size_t size : {size_t{0}, size_t{1}, kChunk - 1, kChunk, kChunk + 1, 7 * kChunk + 13}) {
    SCOPED_TRACE("size " + std::to_string(size));
    const Buffer input = field_bytes(size);
    const CompressResult encoded = compressor.compress(input);
    const size_t chunks = size == 0 ? 1 : (size + kChunk - 1) / kChunk;
    EXPECT_EQ(encoded.stats.chunks, chunks);
    EXPECT_EQ(encoded.chunk_compressed_sizes.size(), chunks);
    EXPECT_EQ(encoded.stats.bytes_in, size);
    EXPECT_EQ(encoded.stats.bytes_out, encoded.output.size());
    EXPECT_EQ(encoded.stats.executed_on, ExecutedOn::host);
    EXPECT_FALSE(encoded.stats.staged_through_host);
    EXPECT_EQ(encoded.stats.algorithm, algorithm);
    const DecompressResult decoded = compressor.decompress(encoded.output, sized(size));
    EXPECT_EQ(contents(decoded.output), contents(input));
    EXPECT_EQ(decoded.stats.chunks, chunks);
    EXPECT_EQ(decoded.stats.bytes_out, size);
    EXPECT_EQ(decoded.stats.algorithm, algorithm);
    EXPECT_EQ(decoded.stats.checksums_verified,
              bitstream == BitstreamKind::native && checksum == ChecksumPolicy::compute_and_verify);
  }
}

std::vector<CompressionAlgorithm> algorithms() { return available_compression_algorithms(); }

INSTANTIATE_TEST_SUITE_P(
    AllAlgorithms, CompressorRoundTrip,
    ::testing::Combine(::testing::ValuesIn(algorithms()),
                       ::testing::Values(BitstreamKind::native, BitstreamKind::raw,
                                         BitstreamKind::raw_with_size),
                       ::testing::Values(ChecksumPolicy::none, ChecksumPolicy::compute,
                                         ChecksumPolicy::compute_and_verify)),
    [](const ::testing::TestParamInfo<RoundTripParam>& info) {
      return name_of(std::get<0>(info.param)) + "_" +
             std::string(bitstream_kind_name(std::get<1>(info.param))) + "_" +
             std::string(checksum_policy_name(std::get<2>(info.param)));
    });

TEST(Compressor, AvailableAlgorithmsFollowTheBuild) {
  const auto list = available_compression_algorithms();
  EXPECT_EQ(list.size(), CUZARR_HAVE_BLOSC ? 8u : 7u);
  EXPECT_EQ(compression_algorithm_available(CompressionAlgorithm::blosc), CUZARR_HAVE_BLOSC != 0);
}

TEST(Compressor, DefaultsAre64KiBChunksZstdNative) {
  const Compressor compressor;
  EXPECT_EQ(compressor.options().chunk_size, size_t{65536});
  EXPECT_EQ(compressor.options().algorithm, CompressionAlgorithm::zstd);
  const Buffer input = field_bytes(200000);
  const CompressResult encoded = compressor.compress(input);
  EXPECT_EQ(encoded.stats.chunks, 4u);
  EXPECT_LT(encoded.output.size(), input.size());
  EXPECT_EQ(contents(compressor.decompress(encoded.output).output), contents(input));
}

TEST(Compressor, LevelsChangeTheOutputAndStillRoundTrip) {
  for (auto algorithm : algorithms()) {
    SCOPED_TRACE(name_of(algorithm));
    const auto range = compression_level_range(algorithm);
    const Buffer input = field_bytes(50000);
    for (int level : {range.min, range.default_level, range.max}) {
      if (algorithm == CompressionAlgorithm::zstd && level < -5) level = -5;  // fast, not 131072
      CompressorOptions options;
      options.algorithm = algorithm;
      options.level = level;
      options.chunk_size = 20000;
      const Compressor compressor(options);
      const CompressResult encoded = compressor.compress(input);
      EXPECT_EQ(read_native_header(encoded.output.bytes()).level, level);
      EXPECT_EQ(contents(compressor.decompress(encoded.output).output), contents(input));
    }
  }
}

TEST(Compressor, NativeDecodeTakesEverythingFromTheHeader) {
  CompressorOptions options;
  options.algorithm = CompressionAlgorithm::lz4;
  options.chunk_size = 333;
  const Buffer input = field_bytes(5000);
  const CompressResult encoded = Compressor(options).compress(input);
  // A Compressor with another algorithm and chunk size decodes it from the header.
  const Compressor other;
  const DecompressResult decoded = other.decompress(encoded.output);
  EXPECT_EQ(decoded.stats.algorithm, CompressionAlgorithm::lz4);
  EXPECT_EQ(decoded.stats.chunks, 16u);
  EXPECT_EQ(contents(decoded.output), contents(input));
}

TEST(Compressor, NativeHeaderFields) {
  const Compressor compressor =
      make(CompressionAlgorithm::gzip, BitstreamKind::native, ChecksumPolicy::compute);
  const Buffer input = field_bytes(2500);
  const CompressResult encoded = compressor.compress(input);
  const auto bytes = encoded.output.bytes();
  ASSERT_TRUE(is_native_bitstream(bytes));
  EXPECT_EQ(std::memcmp(bytes.data(), "CZCB", 4), 0);
  EXPECT_EQ(static_cast<uint8_t>(bytes[4]), 1);  // version
  EXPECT_EQ(static_cast<uint8_t>(bytes[5]), 4);  // gzip
  EXPECT_EQ(static_cast<uint8_t>(bytes[6]), 1);  // checksums flag
  const NativeBitstreamHeader header = read_native_header(bytes);
  EXPECT_EQ(header.algorithm, CompressionAlgorithm::gzip);
  EXPECT_EQ(header.level, 6);
  EXPECT_EQ(header.chunk_size, kChunk);
  EXPECT_EQ(header.uncompressed_size, 2500u);
  ASSERT_EQ(header.chunk_count(), 3u);
  EXPECT_EQ(header.header_size(), 32u + 3 * 8 + 3 * 8 + 4);
  EXPECT_EQ(header.uncompressed_chunk_size(2), 500u);
  uint64_t total = header.header_size();
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(header.compressed_sizes[i], encoded.chunk_compressed_sizes[i]);
    total += header.compressed_sizes[i];
  }
  EXPECT_EQ(total, encoded.output.size());
  EXPECT_TRUE(header.has_checksums);
  // Chunk 0's stored CRCs are those of its compressed and decoded bytes.
  EXPECT_EQ(header.compressed_crc32c[0],
            crc32c(bytes.subspan(header.header_size(), header.compressed_sizes[0])));
  EXPECT_EQ(header.uncompressed_crc32c[0], crc32c(input.bytes().first(kChunk)));
  EXPECT_NO_THROW(verify_native_header_checksum(header, bytes));
  // Without checksums the header is the fixed part plus the size table.
  const CompressResult plain =
      make(CompressionAlgorithm::gzip, BitstreamKind::native).compress(input);
  EXPECT_EQ(read_native_header(plain.output.bytes()).header_size(), 32u + 3 * 8);
}

// A header read from its own bytes alone (as for bitstreams in device memory) equals the header
// read from the whole bitstream; lying tables are caught against the total size.
TEST(Compressor, NativeHeaderReadsFromItsPrefix) {
  const Compressor compressor =
      make(CompressionAlgorithm::zstd, BitstreamKind::native, ChecksumPolicy::compute);
  const Buffer encoded = compressor.compress(field_bytes(5000)).output;
  const auto bytes = encoded.bytes();
  const size_t header_size = native_header_size(bytes.first(kNativeFixedHeaderSize), bytes.size());
  const NativeBitstreamHeader whole = read_native_header(bytes);
  EXPECT_EQ(header_size, whole.header_size());
  const NativeBitstreamHeader prefix = read_native_header(bytes.first(header_size), bytes.size());
  EXPECT_EQ(prefix.compressed_sizes, whole.compressed_sizes);
  EXPECT_EQ(prefix.uncompressed_crc32c, whole.uncompressed_crc32c);
  EXPECT_NO_THROW(verify_native_header_checksum(prefix, bytes.first(header_size)));
  // Too few header bytes for the tables: a caller error, not corrupt data.
  EXPECT_THROW(read_native_header(bytes.first(header_size - 1), bytes.size()),
               InvalidArgumentError);
  // A total size that cannot hold the tables, or one byte short of the chunks: corrupt.
  EXPECT_THROW(native_header_size(bytes.first(kNativeFixedHeaderSize), header_size - 1),
               CorruptDataError);
  EXPECT_THROW(read_native_header(bytes.first(header_size), bytes.size() - 1), CorruptDataError);
  EXPECT_THROW(native_header_size(bytes.first(kNativeFixedHeaderSize - 1), bytes.size()),
               CorruptDataError);
}

TEST(Compressor, RawWithSizeIsAnEightByteSizeThenRaw) {
  for (auto algorithm : algorithms()) {
    SCOPED_TRACE(name_of(algorithm));
    const Buffer input = field_bytes(4321);
    const CompressResult raw = make(algorithm, BitstreamKind::raw).compress(input);
    const CompressResult with_size = make(algorithm, BitstreamKind::raw_with_size).compress(input);
    ASSERT_EQ(with_size.output.size(), raw.output.size() + 8);
    uint64_t size = 0;
    std::memcpy(&size, with_size.output.data(), 8);  // little-endian machine
    EXPECT_EQ(size, 4321u);
    EXPECT_EQ(std::memcmp(with_size.output.data() + 8, raw.output.data(), raw.output.size()), 0);
    // raw_with_size decodes without a size hint.
    EXPECT_EQ(
        contents(make(algorithm, BitstreamKind::raw_with_size).decompress(with_size.output).output),
        contents(input));
  }
}

// --- batches -------------------------------------------------------------------------------------

TEST(Compressor, BatchesRoundTripEveryKind) {
  std::vector<Buffer> inputs;
  std::vector<uint64_t> sizes;
  for (size_t size : {size_t{0}, size_t{1}, size_t{999}, size_t{1000}, size_t{12345}}) {
    inputs.push_back(field_bytes(size, static_cast<unsigned>(size)));
    sizes.push_back(size);
  }
  for (auto algorithm : algorithms()) {
    for (auto bitstream :
         {BitstreamKind::native, BitstreamKind::raw, BitstreamKind::raw_with_size}) {
      SCOPED_TRACE(name_of(algorithm) + " " + std::string(bitstream_kind_name(bitstream)));
      const Compressor compressor = make(algorithm, bitstream, ChecksumPolicy::compute_and_verify);
      const auto encoded = compressor.compress(inputs);
      ASSERT_EQ(encoded.size(), inputs.size());
      std::vector<Buffer> streams;
      for (size_t i = 0; i < encoded.size(); ++i) {
        // Each batch entry equals the single-buffer result.
        EXPECT_EQ(contents(encoded[i].output), contents(compressor.compress(inputs[i]).output));
        streams.push_back(encoded[i].output);
      }
      const auto decoded = compressor.decompress(streams, {}, sizes);
      ASSERT_EQ(decoded.size(), inputs.size());
      for (size_t i = 0; i < inputs.size(); ++i)
        EXPECT_EQ(contents(decoded[i].output), contents(inputs[i])) << "buffer " << i;
    }
  }
}

TEST(Compressor, EmptyBatch) {
  const Compressor compressor;
  EXPECT_TRUE(compressor.compress(std::span<const Buffer>{}).empty());
  EXPECT_TRUE(compressor.decompress(std::span<const Buffer>{}).empty());
}

TEST(Compressor, BatchErrorsNameTheBuffer) {
  const Compressor compressor;
  std::vector<Buffer> streams{compressor.compress(field_bytes(100)).output,
                              Buffer::copy_of("junk")};
  try {
    compressor.decompress(streams);
    FAIL() << "no error";
  } catch (const CorruptDataError& e) {
    EXPECT_NE(std::string(e.what()).find("buffer 1"), std::string::npos) << e.what();
  }
  const std::vector<uint64_t> wrong_count{1, 2, 3};
  EXPECT_THROW(
      make(CompressionAlgorithm::zstd, BitstreamKind::raw).decompress(streams, {}, wrong_count),
      InvalidArgumentError);
}

// --- raw output read by the reference libraries
// ----------------------------------------------------

// Splits a raw bitstream at the chunk sizes the compressor reported.
std::vector<std::span<const std::byte>> raw_chunks(const CompressResult& encoded) {
  std::vector<std::span<const std::byte>> chunks;
  size_t offset = 0;
  for (uint64_t size : encoded.chunk_compressed_sizes) {
    chunks.push_back(encoded.output.bytes().subspan(offset, size));
    offset += size;
  }
  EXPECT_EQ(offset, encoded.output.size());
  return chunks;
}

std::vector<std::byte> inflate_with_zlib(std::span<const std::byte> stream, int window_bits,
                                         size_t size) {
  std::vector<std::byte> out(size + 1);
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, window_bits), Z_OK);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(stream.data()));
  z.avail_in = static_cast<uInt>(stream.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&z, Z_FINISH), Z_STREAM_END);
  EXPECT_EQ(z.avail_in, 0u);
  out.resize(z.total_out);
  inflateEnd(&z);
  return out;
}

// Decodes one chunk's stream with the algorithm's own library, knowing its decoded size.
std::vector<std::byte> reference_decode(CompressionAlgorithm algorithm,
                                        std::span<const std::byte> stream, size_t size) {
  std::vector<std::byte> out(size);
  switch (algorithm) {
    case CompressionAlgorithm::lz4: {
      const int got = LZ4_decompress_safe(reinterpret_cast<const char*>(stream.data()),
                                          reinterpret_cast<char*>(out.data()),
                                          static_cast<int>(stream.size()), static_cast<int>(size));
      EXPECT_EQ(got, static_cast<int>(size));
      return out;
    }
    case CompressionAlgorithm::zstd: {
      EXPECT_EQ(ZSTD_getFrameContentSize(stream.data(), stream.size()), size);
      const size_t got = ZSTD_decompress(out.data(), out.size(), stream.data(), stream.size());
      EXPECT_EQ(got, size) << (ZSTD_isError(got) ? ZSTD_getErrorName(got) : "");
      return out;
    }
    case CompressionAlgorithm::deflate:
      return inflate_with_zlib(stream, -15, size);
    case CompressionAlgorithm::gzip:
      EXPECT_EQ(static_cast<uint8_t>(stream[0]), 0x1f);  // RFC 1952 ID1, ID2
      EXPECT_EQ(static_cast<uint8_t>(stream[1]), 0x8b);
      return inflate_with_zlib(stream, 15 + 16, size);
    case CompressionAlgorithm::zlib: {
      uLongf length = static_cast<uLongf>(size);
      std::vector<std::byte> zout(size + 1);
      EXPECT_EQ(uncompress(reinterpret_cast<Bytef*>(zout.data()), &length,
                           reinterpret_cast<const Bytef*>(stream.data()), stream.size()),
                Z_OK);
      zout.resize(length);
      return zout;
    }
    case CompressionAlgorithm::bz2: {
      unsigned int length = static_cast<unsigned int>(size + 1);
      std::vector<std::byte> bout(size + 1);
      EXPECT_EQ(
          BZ2_bzBuffToBuffDecompress(reinterpret_cast<char*>(bout.data()), &length,
                                     reinterpret_cast<char*>(const_cast<std::byte*>(stream.data())),
                                     static_cast<unsigned int>(stream.size()), 0, 0),
          BZ_OK);
      bout.resize(length);
      return bout;
    }
    case CompressionAlgorithm::lzma: {
      uint64_t limit = UINT64_MAX;
      size_t in_pos = 0;
      size_t out_pos = 0;
      std::vector<std::byte> xout(size + 1);
      EXPECT_EQ(lzma_stream_buffer_decode(
                    &limit, 0, nullptr, reinterpret_cast<const uint8_t*>(stream.data()), &in_pos,
                    stream.size(), reinterpret_cast<uint8_t*>(xout.data()), &out_pos, xout.size()),
                LZMA_OK);
      EXPECT_EQ(in_pos, stream.size());
      xout.resize(out_pos);
      return xout;
    }
    case CompressionAlgorithm::blosc: {
#if CUZARR_HAVE_BLOSC
      size_t nbytes = 0;
      EXPECT_EQ(blosc_cbuffer_validate(stream.data(), stream.size(), &nbytes), 0);
      EXPECT_EQ(nbytes, size);
      if (size > 0) {
        EXPECT_EQ(blosc_decompress_ctx(stream.data(), out.data(), out.size(), 1),
                  static_cast<int>(size));
      }
#endif
      return out;
    }
  }
  return {};
}

TEST(Compressor, RawChunksAreReadByTheReferenceLibraries) {
  for (auto algorithm : algorithms()) {
    for (size_t size : {size_t{0}, size_t{1}, size_t{777}, size_t{3 * kChunk + 5}}) {
      SCOPED_TRACE(name_of(algorithm) + " size " + std::to_string(size));
      const Buffer input = field_bytes(size);
      const CompressResult encoded = make(algorithm, BitstreamKind::raw).compress(input);
      const auto chunks = raw_chunks(encoded);
      std::vector<std::byte> joined;
      for (size_t i = 0; i < chunks.size(); ++i) {
        const size_t length = std::min(kChunk, size - i * kChunk);
        const auto part = reference_decode(algorithm, chunks[i], length);
        joined.insert(joined.end(), part.begin(), part.end());
      }
      EXPECT_EQ(joined, contents(input));
    }
  }
}

TEST(Compressor, RawZstdOfManyChunksIsOneValidMultiFrameStream) {
  const Buffer input = field_bytes(10 * kChunk + 3);
  const CompressResult encoded =
      make(CompressionAlgorithm::zstd, BitstreamKind::raw).compress(input);
  std::vector<std::byte> out(input.size());
  EXPECT_EQ(ZSTD_decompress(out.data(), out.size(), encoded.output.data(), encoded.output.size()),
            input.size());
  EXPECT_EQ(out, contents(input));
}

TEST(Compressor, RawStreamsWrittenByTheReferenceLibrariesDecode) {
  // A zstd frame and a zlib stream made by the libraries themselves, one chunk each.
  const Buffer input = field_bytes(900);
  std::vector<std::byte> frame(ZSTD_compressBound(input.size()));
  frame.resize(ZSTD_compress(frame.data(), frame.size(), input.data(), input.size(), 5));
  EXPECT_EQ(contents(make(CompressionAlgorithm::zstd, BitstreamKind::raw)
                         .decompress(Buffer::copy_of(frame), sized(900))
                         .output),
            contents(input));
  std::vector<std::byte> zstream(compressBound(input.size()));
  uLongf length = zstream.size();
  ASSERT_EQ(compress(reinterpret_cast<Bytef*>(zstream.data()), &length,
                     reinterpret_cast<const Bytef*>(input.data()), input.size()),
            Z_OK);
  zstream.resize(length);
  EXPECT_EQ(contents(make(CompressionAlgorithm::zlib, BitstreamKind::raw)
                         .decompress(Buffer::copy_of(zstream), sized(900))
                         .output),
            contents(input));
}

// --- corrupt input ----------------------------------------------------------------------------

// Decoding `bytes` must either succeed or throw CorruptDataError (never another error, never an
// out-of-bounds access: run under CUZARR_SANITIZE). Returns true when it threw.
bool decode_fails_cleanly(const Compressor& compressor, std::span<const std::byte> bytes,
                          uint64_t size) {
  try {
    compressor.decompress(Buffer::copy_of(bytes), sized(size));
    return false;
  } catch (const CorruptDataError&) {
    return true;
  } catch (const UnsupportedError& e) {
    // A flipped algorithm id may name blosc in a build without it.
    EXPECT_NE(std::string(e.what()).find("was not built"), std::string::npos) << e.what();
    return true;
  }
}

TEST(Compressor, EveryTruncationIsCorruptData) {
  for (auto algorithm : algorithms()) {
    for (auto bitstream :
         {BitstreamKind::native, BitstreamKind::raw, BitstreamKind::raw_with_size}) {
      SCOPED_TRACE(name_of(algorithm) + " " + std::string(bitstream_kind_name(bitstream)));
      const Compressor compressor = make(algorithm, bitstream, ChecksumPolicy::none, 400);
      const Buffer input = field_bytes(1000);
      const Buffer encoded = compressor.compress(input).output;
      for (size_t length = 0; length < encoded.size(); ++length) {
        EXPECT_TRUE(decode_fails_cleanly(compressor, encoded.bytes().first(length), 1000))
            << "truncated to " << length << " of " << encoded.size() << " bytes";
      }
      // Trailing bytes are refused too.
      std::vector<std::byte> longer = contents(encoded);
      longer.push_back(std::byte{0});
      EXPECT_TRUE(decode_fails_cleanly(compressor, longer, 1000));
    }
  }
}

TEST(Compressor, FlippedBytesNeverEscapeAsAnotherError) {
  for (auto algorithm : algorithms()) {
    for (auto bitstream : {BitstreamKind::native, BitstreamKind::raw}) {
      SCOPED_TRACE(name_of(algorithm) + " " + std::string(bitstream_kind_name(bitstream)));
      const Compressor compressor = make(algorithm, bitstream, ChecksumPolicy::none, 400);
      const Buffer encoded = compressor.compress(field_bytes(1000)).output;
      std::vector<std::byte> bytes = contents(encoded);
      for (size_t i = 0; i < bytes.size(); ++i) {
        for (uint8_t mask : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xff}}) {
          bytes[i] ^= std::byte{mask};
          decode_fails_cleanly(compressor, bytes, 1000);
          bytes[i] ^= std::byte{mask};
        }
      }
    }
  }
}

TEST(Compressor, WithChecksumsEveryFlippedByteIsDetected) {
  for (auto algorithm : algorithms()) {
    SCOPED_TRACE(name_of(algorithm));
    const Compressor compressor =
        make(algorithm, BitstreamKind::native, ChecksumPolicy::compute_and_verify, 400);
    std::vector<std::byte> bytes = contents(compressor.compress(field_bytes(1000)).output);
    for (size_t i = 0; i < bytes.size(); ++i) {
      bytes[i] ^= std::byte{0x10};
      EXPECT_TRUE(decode_fails_cleanly(compressor, bytes, 1000)) << "byte " << i;
      bytes[i] ^= std::byte{0x10};
    }
  }
}

// Expects CorruptDataError whose message contains `needle`.
void expect_corrupt(const Compressor& compressor, std::span<const std::byte> bytes,
                    const std::string& needle, uint64_t size = 3000) {
  try {
    compressor.decompress(Buffer::copy_of(bytes), sized(size));
    ADD_FAILURE() << "no error; expected one naming " << needle;
  } catch (const CorruptDataError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

void expect_error_naming_corrupt(const Compressor& compressor, const Buffer& bytes,
                                 const DecompressCall& call, const std::string& needle) {
  try {
    compressor.decompress(bytes, call);
    ADD_FAILURE() << "no error; expected one naming " << needle;
  } catch (const CorruptDataError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

void put_le(std::vector<std::byte>& bytes, size_t offset, uint64_t value, size_t n) {
  for (size_t i = 0; i < n; ++i) bytes[offset + i] = static_cast<std::byte>(value >> (8 * i));
}

TEST(Compressor, CorruptNativeHeaderFieldsAreNamed) {
  const Compressor compressor = make(CompressionAlgorithm::zstd, BitstreamKind::native);
  const std::vector<std::byte> good = contents(compressor.compress(field_bytes(3000)).output);
  auto with = [&](size_t offset, uint64_t value, size_t n) {
    std::vector<std::byte> bytes = good;
    put_le(bytes, offset, value, n);
    return bytes;
  };
  expect_corrupt(compressor, std::span(good).first(10), "too few");
  expect_corrupt(compressor, with(0, 'X', 1), "magic");
  expect_corrupt(compressor, with(4, 0, 1), "version");
  expect_corrupt(compressor, with(4, 2, 1), "version");
  expect_corrupt(compressor, with(5, 99, 1), "algorithm");
  expect_corrupt(compressor, with(6, 0x80, 1), "flags");
  expect_corrupt(compressor, with(7, 1, 1), "reserved");
  expect_corrupt(compressor, with(12, 0, 4), "chunk_size");
  expect_corrupt(compressor, with(12, 2000, 4), "chunk_count");
  expect_corrupt(compressor, with(16, 1ull << 40, 8), "chunk_count");
  expect_corrupt(compressor, with(24, 1ull << 60, 8), "chunk_count");
  expect_corrupt(compressor, with(32, 1ull << 62, 8), "chunk 0: \"compressed_size\"");
  expect_corrupt(compressor, with(40, 0, 8), "chunk 1: \"compressed_size\" is 0");
  // A chunk table entry larger than any stream of a chunk that size could be.
  std::vector<std::byte> padded = with(32, 5000 + read_native_header(good).compressed_sizes[0], 8);
  padded.resize(padded.size() + 5000);
  expect_corrupt(compressor, padded, "exceeds");
  // Chunks swapped in size: the stream of chunk 0 is cut short.
  const NativeBitstreamHeader header = read_native_header(good);
  expect_corrupt(compressor, with(32, header.compressed_sizes[0] - 1, 8), "chunk");
}

TEST(Compressor, CorruptRawInputNamesTheChunk) {
  const Compressor lz4 = make(CompressionAlgorithm::lz4, BitstreamKind::raw);
  const CompressResult encoded = lz4.compress(field_bytes(3000));
  // Decoded with the wrong size, the last chunk's stream decodes to more than expected.
  expect_corrupt(lz4, encoded.output.bytes(), "chunk 2: lz4", 2999);
  // A raw stream may not be empty, and too many chunks for the bytes given are refused.
  expect_corrupt(lz4, {}, "chunks", 0);
  expect_corrupt(lz4, encoded.output.bytes().first(3), "chunks", uint64_t{1} << 40);
  // Garbage in the second chunk of a raw gzip bitstream.
  const Compressor gzip = make(CompressionAlgorithm::gzip, BitstreamKind::raw);
  const CompressResult gz = gzip.compress(field_bytes(3000));
  std::vector<std::byte> bytes = contents(gz.output);
  bytes[gz.chunk_compressed_sizes[0]] = std::byte{0};  // ID1 of member 1
  expect_corrupt(gzip, bytes, "chunk 1: gzip");
  // raw_with_size shorter than its prefix.
  const Compressor with_size = make(CompressionAlgorithm::zstd, BitstreamKind::raw_with_size);
  expect_corrupt(with_size, std::vector<std::byte>(5), "8-byte uncompressed size");
  // Decoded with another chunk size than it was encoded with.
  const Buffer zstd_raw =
      make(CompressionAlgorithm::zstd, BitstreamKind::raw).compress(field_bytes(3000)).output;
  expect_corrupt(make(CompressionAlgorithm::zstd, BitstreamKind::raw, ChecksumPolicy::none, 1500),
                 zstd_raw.bytes(), "follow the last chunk");
}

TEST(Compressor, ClaimsOverTheCallersLimitAreRefusedBeforeDecoding) {
  const Buffer input = field_bytes(5000);
  for (auto bitstream : {BitstreamKind::native, BitstreamKind::raw_with_size}) {
    const Compressor compressor = make(CompressionAlgorithm::zstd, bitstream);
    const Buffer encoded = compressor.compress(input).output;
    DecompressCall call;
    call.max_uncompressed_size = 4999;
    expect_error_naming_corrupt(compressor, encoded, call, "exceeds the limit");
    call.max_uncompressed_size = 5000;
    EXPECT_EQ(contents(compressor.decompress(encoded, call).output), contents(input));
  }
}

TEST(Compressor, ChecksumPolicies) {
  const Buffer input = field_bytes(3000);
  const Buffer encoded =
      make(CompressionAlgorithm::lz4, BitstreamKind::native, ChecksumPolicy::compute)
          .compress(input)
          .output;
  const NativeBitstreamHeader header = read_native_header(encoded.bytes());
  const size_t crc_table = 32 + header.chunk_count() * 8;
  // A wrong stored CRC of chunk 1's decoded bytes (and the header CRC fixed up to match).
  std::vector<std::byte> bad_crc = contents(encoded);
  put_le(bad_crc, crc_table + 8 + 4, header.uncompressed_crc32c[1] ^ 1, 4);
  const size_t covered = header.header_size() - 4;
  put_le(bad_crc, covered, crc32c(std::span(bad_crc).first(covered)), 4);
  const auto decode = [&](ChecksumPolicy policy, std::span<const std::byte> bytes) {
    return make(CompressionAlgorithm::lz4, BitstreamKind::native, policy)
        .decompress(Buffer::copy_of(bytes));
  };
  // Ignored under none and compute, detected under compute_and_verify.
  EXPECT_EQ(contents(decode(ChecksumPolicy::none, bad_crc).output), contents(input));
  EXPECT_FALSE(decode(ChecksumPolicy::none, bad_crc).stats.checksums_verified);
  EXPECT_EQ(contents(decode(ChecksumPolicy::compute, bad_crc).output), contents(input));
  expect_corrupt(
      make(CompressionAlgorithm::lz4, BitstreamKind::native, ChecksumPolicy::compute_and_verify),
      bad_crc, "chunk 1: crc32c of the decoded bytes");
  // A changed header byte without a matching header CRC.
  std::vector<std::byte> bad_header = contents(encoded);
  put_le(bad_header, 8, 7, 4);  // the informational level
  EXPECT_EQ(contents(decode(ChecksumPolicy::none, bad_header).output), contents(input));
  expect_corrupt(
      make(CompressionAlgorithm::lz4, BitstreamKind::native, ChecksumPolicy::compute_and_verify),
      bad_header, "header_crc32c");
  // A flipped payload byte: the compressed bytes' CRC names the chunk.
  std::vector<std::byte> bad_payload = contents(encoded);
  bad_payload[header.header_size() + header.compressed_sizes[0] + 3] ^= std::byte{4};
  expect_corrupt(
      make(CompressionAlgorithm::lz4, BitstreamKind::native, ChecksumPolicy::compute_and_verify),
      bad_payload, "chunk 1: crc32c of the compressed bytes");
  // A stream written without checksums decodes under compute_and_verify, unverified.
  const Buffer plain =
      make(CompressionAlgorithm::lz4, BitstreamKind::native).compress(input).output;
  const auto decoded = decode(ChecksumPolicy::compute_and_verify, plain.bytes());
  EXPECT_EQ(contents(decoded.output), contents(input));
  EXPECT_FALSE(decoded.stats.checksums_verified);
}

// --- options and memory -------------------------------------------------------------------------

template <typename E>
void expect_error_naming(const std::function<void()>& body, const std::string& needle) {
  try {
    body();
    ADD_FAILURE() << "no error; expected one naming " << needle;
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(Compressor, BadOptionsNameTheOption) {
  auto with = [](auto change) {
    CompressorOptions options;
    change(options);
    return [options] { Compressor{options}; };
  };
  expect_error_naming<InvalidArgumentError>(with([](auto& o) { o.chunk_size = 0; }), "chunk_size");
  expect_error_naming<InvalidArgumentError>(
      with([](auto& o) { o.chunk_size = kMaxCompressionChunkSize + 1; }), "chunk_size");
  expect_error_naming<InvalidArgumentError>(with([](auto& o) { o.level = 23; }), "level");
  expect_error_naming<InvalidArgumentError>(with([](auto& o) {
                                              o.algorithm = CompressionAlgorithm::deflate;
                                              o.level = 10;
                                            }),
                                            "level");
  expect_error_naming<InvalidArgumentError>(with([](auto& o) {
                                              o.algorithm = CompressionAlgorithm::lz4;
                                              o.level = 0;
                                            }),
                                            "level");
  expect_error_naming<InvalidArgumentError>(
      with([](auto& o) { o.algorithm = static_cast<CompressionAlgorithm>(42); }), "algorithm");
  expect_error_naming<InvalidArgumentError>([] { parse_compression_algorithm("snappy"); },
                                            "algorithm");
  expect_error_naming<InvalidArgumentError>([] { parse_bitstream_kind("framed"); }, "bitstream");
  expect_error_naming<InvalidArgumentError>([] { parse_checksum_policy("crc"); }, "checksum");
  expect_error_naming<InvalidArgumentError>([] { parse_execution_target("tpu"); }, "execution");
  if (CUZARR_HAVE_BLOSC) {
    expect_error_naming<InvalidArgumentError>(with([](auto& o) {
                                                o.algorithm = CompressionAlgorithm::blosc;
                                                o.blosc.cname = "snappy";
                                              }),
                                              "blosc.cname");
    expect_error_naming<InvalidArgumentError>(with([](auto& o) {
                                                o.algorithm = CompressionAlgorithm::blosc;
                                                o.blosc.typesize = 0;
                                              }),
                                              "blosc.typesize");
  } else {
    EXPECT_THROW(with([](auto& o) { o.algorithm = CompressionAlgorithm::blosc; })(),
                 UnsupportedError);
  }
  expect_error_naming<InvalidArgumentError>(
      [] { make(CompressionAlgorithm::zstd, BitstreamKind::raw).decompress(Buffer::copy_of("x")); },
      "uncompressed_size");
}

TEST(Compressor, NamesRoundTrip) {
  for (auto algorithm : algorithms())
    EXPECT_EQ(parse_compression_algorithm(compression_algorithm_name(algorithm)), algorithm);
  EXPECT_EQ(parse_compression_algorithm("xz"), CompressionAlgorithm::lzma);
  EXPECT_EQ(parse_bitstream_kind("raw-with-size"), BitstreamKind::raw_with_size);
  EXPECT_EQ(parse_checksum_policy("verify"), ChecksumPolicy::compute_and_verify);
  EXPECT_EQ(parse_execution_target("auto"), ExecutionTarget::automatic);
}

TEST(Compressor, BloscOptionsReachTheBloscHeader) {
  if (!CUZARR_HAVE_BLOSC) GTEST_SKIP() << "built without c-blosc";
  CompressorOptions options;
  options.algorithm = CompressionAlgorithm::blosc;
  options.bitstream = BitstreamKind::raw;
  options.blosc.cname = "zstd";
  options.blosc.shuffle = BloscShuffle::bitshuffle;
  options.blosc.typesize = 8;
  const CompressResult encoded = Compressor(options).compress(field_bytes(800));
  const auto* header = reinterpret_cast<const uint8_t*>(encoded.output.data());
  EXPECT_EQ(header[3], 8);                // typesize
  EXPECT_NE(header[2] & 0x04, 0);         // bitshuffle flag
  EXPECT_EQ((header[2] >> 5) & 0x07, 4);  // compressor format code: zstd
}

TEST(Compressor, DeviceRequestsWithoutAGpuAreUnsupported) {
  if (cuda_unavailable_reason().empty()) GTEST_SKIP() << "a GPU is usable here";
  const Compressor compressor;
  CompressCall call;
  call.output_kind = MemoryKind::device;
  EXPECT_THROW(compressor.compress(field_bytes(10), call), UnsupportedError);
  DecompressCall dcall;
  dcall.output_kind = MemoryKind::device;
  EXPECT_THROW(compressor.decompress(compressor.compress(field_bytes(10)).output, dcall),
               UnsupportedError);
  CompressorOptions options;
  options.execution = ExecutionTarget::device;
  expect_error_naming<UnsupportedError>([&] { Compressor(options).compress(field_bytes(10)); },
                                        "execution");
}

TEST(Compressor, HostExecutionIsAlwaysTheHost) {
  CompressorOptions options;
  options.execution = ExecutionTarget::host;
  const auto encoded = Compressor(options).compress(field_bytes(100));
  EXPECT_EQ(encoded.stats.executed_on, ExecutedOn::host);
  EXPECT_EQ(std::string(executed_on_name(encoded.stats.executed_on)), "host");
}

}  // namespace
}  // namespace cuzarr
