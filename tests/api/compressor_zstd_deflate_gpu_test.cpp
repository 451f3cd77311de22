// GPU tests of the Compressor's decode-only GPU backends for zstd, deflate, gzip and zlib: streams
// written by libzstd and zlib (levels, data families, every bitstream kind) decode on the GPU to
// the original bytes; raw deflate-family bitstreams decode on the host (device execution refuses
// them); compression stays on the host; corrupt and truncated streams, in batches with good ones,
// are CorruptDataError naming the chunk. Skips without a CUDA device.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <zlib.h>
#include <zstd.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "api/compression_backend.hpp"
#include "cuzarr/api/compressor.hpp"
#include "cuzarr/core/error.hpp"
#include "gpu_test.hpp"

namespace cuzarr {
namespace {

class CompressorZstdDeflateGpu : public ::cuzarr::test::GpuTest {};

constexpr CompressionAlgorithm kAlgorithms[] = {
    CompressionAlgorithm::zstd, CompressionAlgorithm::deflate, CompressionAlgorithm::gzip,
    CompressionAlgorithm::zlib};

bool is_deflate_family(CompressionAlgorithm a) { return a != CompressionAlgorithm::zstd; }

// Data families: compressible text-like runs, random bytes (stored / raw blocks), zeros (RLE).
Buffer family(int kind, size_t size, uint32_t seed) {
  Buffer b = Buffer::allocate(size);
  std::mt19937 random(seed);
  for (size_t i = 0; i < size; ++i) {
    uint8_t v = 0;
    if (kind == 0) v = static_cast<uint8_t>((i / 5) % 61 + (random() % 8 == 0 ? random() % 7 : 0));
    if (kind == 1) v = static_cast<uint8_t>(random());
    b.data()[i] = std::byte{v};
  }
  return b;
}

std::vector<std::byte> contents(const Buffer& buffer) {
  const Buffer host =
      buffer.kind() == MemoryKind::device ? buffer.copy_to(MemoryKind::host) : buffer;
  return {host.data(), host.data() + host.size()};
}

std::vector<int> levels_of(CompressionAlgorithm a) {
  if (a == CompressionAlgorithm::zstd) return {-3, 1, 3, 12};
  return {0, 1, 6, 9};  // 0: stored blocks
}

TEST_F(CompressorZstdDeflateGpu, LibraryStreamsDecodeOnTheGpu) {
  for (const auto algorithm : kAlgorithms) {
    for (const int level : levels_of(algorithm)) {
      for (const auto bitstream :
           {BitstreamKind::native, BitstreamKind::raw, BitstreamKind::raw_with_size}) {
        for (const int kind : {0, 1, 2}) {
          for (const size_t size : {size_t{0}, size_t{1}, size_t{70000}, size_t{1} << 20}) {
            SCOPED_TRACE(fmt::format("{} level {} {} family {} size {}",
                                     compression_algorithm_name(algorithm), level,
                                     bitstream_kind_name(bitstream), kind, size));
            CompressorOptions options;
            options.algorithm = algorithm;
            options.level = level;
            options.bitstream = bitstream;
            options.chunk_size = 65536;  // a short last chunk for 70000 bytes
            options.checksum = bitstream == BitstreamKind::native
                                   ? ChecksumPolicy::compute_and_verify
                                   : ChecksumPolicy::none;
            const Compressor compressor(options);
            const Buffer original = family(kind, size, 7);
            // Encoded on the host by libzstd / zlib.
            const CompressResult encoded = compressor.compress(original);
            ASSERT_EQ(encoded.stats.executed_on, ExecutedOn::host);
            DecompressCall call;
            call.uncompressed_size = size;
            const DecompressResult decoded =
                compressor.decompress(encoded.output.copy_to(MemoryKind::device), call);
            EXPECT_EQ(decoded.output.kind(), MemoryKind::device);
            const bool on_gpu = !is_deflate_family(algorithm) || bitstream == BitstreamKind::native;
            EXPECT_EQ(decoded.stats.executed_on, on_gpu ? ExecutedOn::device : ExecutedOn::host);
            EXPECT_EQ(contents(decoded.output), contents(original));
          }
        }
      }
    }
  }
}

TEST_F(CompressorZstdDeflateGpu, DeviceExecutionDecodesAndRefusesWhatItCannot) {
  const Buffer original = family(0, 300000, 3);
  for (const auto algorithm : kAlgorithms) {
    SCOPED_TRACE(compression_algorithm_name(algorithm));
    CompressorOptions options;
    options.algorithm = algorithm;
    options.execution = ExecutionTarget::device;
    const Buffer device = original.copy_to(MemoryKind::device);
    // No GPU encoder: compressing with device execution is refused, auto runs on the host.
    try {
      Compressor(options).compress(device);
      FAIL() << "device execution compressed without a GPU encoder";
    } catch (const UnsupportedError& e) {
      EXPECT_NE(std::string(e.what()).find("no GPU implementation"), std::string::npos) << e.what();
    }
    CompressorOptions automatic = options;
    automatic.execution = ExecutionTarget::automatic;
    const CompressResult encoded = Compressor(automatic).compress(device);
    EXPECT_EQ(encoded.stats.executed_on, ExecutedOn::host);
    // The native bitstream decodes with device execution.
    const DecompressResult decoded = Compressor(options).decompress(encoded.output);
    EXPECT_EQ(decoded.stats.executed_on, ExecutedOn::device);
    EXPECT_EQ(contents(decoded.output), contents(original));
    // Raw deflate-family bitstreams cannot: their stream ends are found by decoding.
    CompressorOptions raw = automatic;
    raw.bitstream = BitstreamKind::raw;
    const Buffer raw_stream = Compressor(raw).compress(original).output.copy_to(MemoryKind::device);
    DecompressCall call;
    call.uncompressed_size = original.size();
    raw.execution = ExecutionTarget::device;
    if (is_deflate_family(algorithm)) {
      EXPECT_THROW(Compressor(raw).decompress(raw_stream, call), UnsupportedError);
    } else {
      const DecompressResult r = Compressor(raw).decompress(raw_stream, call);
      EXPECT_EQ(r.stats.executed_on, ExecutedOn::device);
      EXPECT_EQ(contents(r.output), contents(original));
    }
  }
}

// One stream per chunk in device memory, decoded by the GPU backend directly.
struct DeviceStreams {
  std::vector<Buffer> inputs;   // device
  std::vector<Buffer> outputs;  // device
  std::vector<DecompressTask> tasks;
  void add(const std::vector<std::byte>& stream, size_t decoded_size, std::string label) {
    Buffer in = Buffer::allocate(std::max<size_t>(stream.size(), 1), MemoryKind::device);
    if (!stream.empty())
      copy_bytes(in.data(), MemoryKind::device, stream.data(), MemoryKind::host, stream.size());
    Buffer out = Buffer::allocate(std::max<size_t>(decoded_size, 1), MemoryKind::device);
    tasks.push_back(DecompressTask{std::span<const std::byte>(in.data(), stream.size()),
                                   std::span<std::byte>(out.data(), decoded_size),
                                   std::move(label)});
    inputs.push_back(std::move(in));
    outputs.push_back(std::move(out));
  }
};

std::vector<std::byte> host_stream(CompressionAlgorithm algorithm, const Buffer& data, int level) {
  CompressorOptions options;
  options.algorithm = algorithm;
  options.level = level;
  options.bitstream = BitstreamKind::raw;
  options.chunk_size = std::max<size_t>(data.size(), 1);
  const Buffer out = Compressor(options).compress(data).output;
  return {out.data(), out.data() + out.size()};
}

// The message of the CorruptDataError the GPU backend throws for `stream` ("" when it decodes).
std::string backend_error(CompressionAlgorithm algorithm, const std::vector<std::byte>& stream,
                          size_t decoded_size) {
  const CompressionBackend* backend = device_compression_backend(algorithm);
  DeviceStreams batch;
  const Buffer good = family(0, 5000, 1);
  batch.add(host_stream(algorithm, good, 1), good.size(), "chunk 0");
  batch.add(stream, decoded_size, "chunk 1");
  batch.add(host_stream(algorithm, good, 1), good.size(), "chunk 2");
  try {
    backend->decompress(batch.tasks, Stream::create());
  } catch (const CorruptDataError& e) {
    return e.what();
  }
  return "";
}

TEST_F(CompressorZstdDeflateGpu, CorruptStreamsAreCorruptData) {
  const Buffer original = family(0, 40000, 11);
  for (const auto algorithm : kAlgorithms) {
    SCOPED_TRACE(compression_algorithm_name(algorithm));
    const CompressionBackend* backend = device_compression_backend(algorithm);
    ASSERT_NE(backend, nullptr);
    EXPECT_EQ(backend->executed_on(), ExecutedOn::device);
    const std::vector<std::byte> stream = host_stream(algorithm, original, 6);
    // Intact: decodes (the batch of three succeeds).
    EXPECT_EQ(backend_error(algorithm, stream, original.size()), "");
    // Truncated by 1, 2, 7 bytes and to half: always refused, naming the chunk.
    for (const size_t cut : {size_t{1}, size_t{2}, size_t{7}, stream.size() / 2}) {
      SCOPED_TRACE(fmt::format("cut {}", cut));
      const std::vector<std::byte> truncated(stream.begin(), stream.end() - cut);
      const std::string m = backend_error(algorithm, truncated, original.size());
      EXPECT_NE(m.find("chunk 1"), std::string::npos) << m;
    }
    // Empty input, and a stream that decodes to fewer or more bytes than expected.
    EXPECT_NE(backend_error(algorithm, {}, original.size()), "");
    EXPECT_NE(backend_error(algorithm, stream, original.size() + 1), "");
    EXPECT_NE(backend_error(algorithm, stream, original.size() - 1), "");
    // Damaged bytes: refused, or (where the damage leaves a valid stream) decoded; never a crash
    // or another error. zlib and gzip trailers (Adler-32, CRC-32) catch every change of content;
    // gzip's MTIME / XFL / OS header bytes (4..9) are not checked by any decoder, and the last
    // byte of the DEFLATE data may hold only padding bits where the damage lands.
    size_t refused = 0, positions = 0;
    for (size_t position = 0; position < stream.size(); position += 37) {
      std::vector<std::byte> damaged = stream;
      damaged[position] ^= std::byte{0x5A};
      const std::string m = backend_error(algorithm, damaged, original.size());
      ++positions;
      if (!m.empty()) {
        ++refused;
        EXPECT_NE(m.find("chunk 1"), std::string::npos) << m;
      } else if ((algorithm == CompressionAlgorithm::zlib && position != stream.size() - 5) ||
                 (algorithm == CompressionAlgorithm::gzip && (position < 4 || position > 9) &&
                  position != stream.size() - 9)) {
        ADD_FAILURE() << "damage at byte " << position << " was accepted";
      }
    }
    EXPECT_GT(refused, 0u) << positions << " positions damaged";
  }
}

TEST_F(CompressorZstdDeflateGpu, ReferenceLibraryFramingVariants) {
  const Buffer original = family(0, 100000, 5);
  const auto* src = reinterpret_cast<const Bytef*>(original.data());
  // A gzip member with a file name and comment (RFC 1952 FNAME, FCOMMENT), written by zlib.
  {
    z_stream z{};
    ASSERT_EQ(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
    gz_header header{};
    char name[] = "data.bin";
    char comment[] = "cuzarr";
    header.name = reinterpret_cast<Bytef*>(name);
    header.comment = reinterpret_cast<Bytef*>(comment);
    header.hcrc = 1;
    ASSERT_EQ(deflateSetHeader(&z, &header), Z_OK);
    std::vector<std::byte> out(deflateBound(&z, original.size()) + 64);
    z.next_in = const_cast<Bytef*>(src);
    z.avail_in = static_cast<uInt>(original.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    ASSERT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
    out.resize(z.total_out);
    deflateEnd(&z);
    EXPECT_EQ(backend_error(CompressionAlgorithm::gzip, out, original.size()), "");
  }
  // A zstd frame with a content checksum and no content size (streamed), and one with a
  // checksum whose last byte is damaged: checksum_mismatch.
  {
    ZSTD_CCtx* cctx = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0);
    std::vector<std::byte> out(ZSTD_compressBound(original.size()));
    const size_t n = ZSTD_compress2(cctx, out.data(), out.size(), original.data(), original.size());
    ZSTD_freeCCtx(cctx);
    ASSERT_FALSE(ZSTD_isError(n));
    out.resize(n);
    EXPECT_EQ(backend_error(CompressionAlgorithm::zstd, out, original.size()), "");
    out.back() ^= std::byte{0x01};
    EXPECT_NE(backend_error(CompressionAlgorithm::zstd, out, original.size()), "");
  }
}

}  // namespace
}  // namespace cuzarr
