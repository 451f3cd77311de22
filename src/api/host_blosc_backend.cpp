// blosc on the CPU: one c-blosc 1.x buffer per chunk, through the codec layer's "blosc" codec
// (resolved by name from the registry, so that builds without c-blosc link and report
// UnsupportedError when the codec is created).
#include <fmt/format.h>

#include <cstring>

#include "api/host_compression_backend.hpp"
#include "cuzarr/codec/codec.hpp"
#include "cuzarr/codec/codec_registry.hpp"
#include "cuzarr/core/data_type.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/metadata/array_metadata.hpp"

namespace cuzarr {
namespace {

// c-blosc 1.x format (README_HEADER.rst): version, versionlz, flags, typesize, then nbytes,
// blocksize and cbytes as 32-bit little-endian integers. A buffer is at most 16 bytes larger than
// its input (BLOSC_MAX_OVERHEAD).
constexpr size_t kHeaderSize = 16;
constexpr size_t kMaxOverhead = 16;

uint32_t read_le32(const std::byte* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

// A one-dimensional uint8 representation of `size` bytes (blosc's size limit for decoding).
ChunkRepresentation bytes_representation(size_t size) {
  return ChunkRepresentation{Shape{static_cast<int64_t>(size)}, DataType(DataTypeKind::uint8), {}};
}

std::shared_ptr<BytesToBytesCodec> blosc_codec(const CompressorOptions& options, size_t size) {
  CodecSpec spec;
  spec.name = "blosc";
  spec.configuration = {{"cname", options.blosc.cname},
                        {"clevel", options.effective_level()},
                        {"shuffle", std::string(blosc_shuffle_name(options.blosc.shuffle))},
                        {"typesize", options.blosc.typesize},
                        {"blocksize", 0}};
  return std::dynamic_pointer_cast<BytesToBytesCodec>(
      CodecRegistry::instance().create(spec, bytes_representation(size)));
}

// Decoding needs no options: the blosc header records them.
const BytesToBytesCodec& blosc_decoder() {
  static const std::shared_ptr<BytesToBytesCodec> codec = [] {
    CompressorOptions options;
    options.algorithm = CompressionAlgorithm::blosc;
    return blosc_codec(options, 1);
  }();
  return *codec;
}

Buffer wrap(std::span<const std::byte> bytes) {
  return Buffer::wrap(const_cast<std::byte*>(bytes.data()), bytes.size(), MemoryKind::host,
                      nullptr);
}

void check_status(const ChunkStatus& status) {
  if (!status.ok) throw_error(status.code, status.message);
}

class HostBloscBackend final : public HostCompressionBackend {
 public:
  CompressionAlgorithm algorithm() const noexcept override { return CompressionAlgorithm::blosc; }

  size_t max_compressed_size(size_t chunk_size) const override { return chunk_size + kMaxOverhead; }

  std::optional<size_t> find_stream_size(std::span<const std::byte> in,
                                         size_t decoded_size) const override {
    if (in.size() < kHeaderSize)
      throw CorruptDataError(
          fmt::format("blosc: {} bytes are too few for a {}-byte header", in.size(), kHeaderSize));
    const uint32_t nbytes = read_le32(in.data() + 4);
    const uint32_t cbytes = read_le32(in.data() + 12);
    if (nbytes != decoded_size)
      throw CorruptDataError(
          fmt::format("blosc: header says {} decoded bytes, expected {}", nbytes, decoded_size));
    if (cbytes < kHeaderSize || cbytes > in.size())
      throw CorruptDataError(fmt::format(
          "blosc: header says {} compressed bytes, but {} are available", cbytes, in.size()));
    return cbytes;
  }

 protected:
  size_t compress_chunk(std::span<const std::byte> in, std::span<std::byte> out,
                        const CompressorOptions& options) const override {
    const auto codec = blosc_codec(options, in.size());
    const Buffer input = wrap(in);
    Buffer encoded;
    ChunkStatus status;
    codec->encode({&input, 1}, {&encoded, 1}, bytes_representation(in.size()), {&status, 1});
    check_status(status);
    if (encoded.size() > out.size())
      throw InvalidArgumentError("blosc: compressed chunk exceeds its bound");
    std::memcpy(out.data(), encoded.data(), encoded.size());
    return encoded.size();
  }

  void decompress_chunk(std::span<const std::byte> in, std::span<std::byte> out) const override {
    const size_t size = *find_stream_size(in, out.size());
    if (size != in.size())
      throw CorruptDataError(
          fmt::format("blosc: header says {} compressed bytes, the chunk has {}", size, in.size()));
    const Buffer input = wrap(in);
    Buffer decoded;
    ChunkStatus status;
    blosc_decoder().decode({&input, 1}, {&decoded, 1}, bytes_representation(out.size()),
                           {&status, 1});
    check_status(status);
    if (decoded.size() != out.size())
      throw CorruptDataError(fmt::format("blosc: buffer decodes to {} bytes, expected {}",
                                         decoded.size(), out.size()));
    if (!out.empty()) std::memcpy(out.data(), decoded.data(), out.size());
  }
};

}  // namespace

const CompressionBackend& host_blosc_backend() {
  static const HostBloscBackend backend;
  return backend;
}

}  // namespace cuzarr
