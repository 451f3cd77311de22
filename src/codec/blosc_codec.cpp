#include "cuzarr/codec/blosc_codec.hpp"

#include <blosc.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "codec/codec_configuration.hpp"
#include "codec/decode_output.hpp"
#include "codec/decode_window.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/core/parallel.hpp"

namespace cuzarr {
namespace {

const char* shuffle_name(BloscCodec::Shuffle s) {
  switch (s) {
    case BloscCodec::Shuffle::noshuffle:
      return "noshuffle";
    case BloscCodec::Shuffle::shuffle:
      return "shuffle";
    case BloscCodec::Shuffle::bitshuffle:
      return "bitshuffle";
  }
  return "noshuffle";
}

int shuffle_flag(BloscCodec::Shuffle s) {
  switch (s) {
    case BloscCodec::Shuffle::noshuffle:
      return BLOSC_NOSHUFFLE;
    case BloscCodec::Shuffle::shuffle:
      return BLOSC_SHUFFLE;
    case BloscCodec::Shuffle::bitshuffle:
      return BLOSC_BITSHUFFLE;
  }
  return BLOSC_NOSHUFFLE;
}

// True when `cname` is in blosc_list_compressors()'s comma-separated list.
bool compressor_available(std::string_view cname) {
  std::string_view list = blosc_list_compressors();
  while (!list.empty()) {
    const size_t comma = list.find(',');
    if (list.substr(0, comma) == cname) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

void check_input_size(size_t size) {
  if (size > static_cast<size_t>(BLOSC_MAX_BUFFERSIZE)) {
    throw InvalidArgumentError(
        fmt::format("codec \"blosc\": a chunk of {} bytes exceeds c-blosc's limit of {} bytes",
                    size, BLOSC_MAX_BUFFERSIZE));
  }
}

}  // namespace

bool BloscCodec::available() noexcept { return true; }

BloscCodec::BloscCodec(std::string cname, int clevel, Shuffle shuffle, int64_t typesize,
                       int64_t blocksize)
    : cname_(std::move(cname)),
      clevel_(clevel),
      shuffle_(shuffle),
      typesize_(typesize),
      blocksize_(blocksize) {
  static constexpr std::string_view kV3Names[] = {"lz4", "lz4hc", "blosclz", "zstd", "zlib"};
  bool known = false;
  for (auto n : kV3Names) known = known || n == cname_;
  if (!known) {
    throw UnsupportedError(fmt::format(
        "codec \"blosc\": unknown \"cname\" \"{}\" (expected lz4, lz4hc, blosclz, zstd or zlib)",
        cname_));
  }
  if (!compressor_available(cname_)) {
    throw UnsupportedError(
        fmt::format("codec \"blosc\": compressor \"{}\" is not in this c-blosc build (it has {})",
                    cname_, blosc_list_compressors()));
  }
  if (clevel < 0 || clevel > 9)
    throw InvalidArgumentError(
        fmt::format("codec \"blosc\": \"clevel\" must be in [0, 9], got {}", clevel));
  if (typesize < 1)
    throw InvalidArgumentError(
        fmt::format("codec \"blosc\": \"typesize\" must be positive, got {}", typesize));
  if (blocksize < 0)
    throw InvalidArgumentError(
        fmt::format("codec \"blosc\": \"blocksize\" must be >= 0, got {}", blocksize));
}

std::shared_ptr<BloscCodec> BloscCodec::create(const nlohmann::json& configuration,
                                               const ChunkRepresentation& decoded) {
  CodecConfiguration config("blosc", configuration,
                            {"cname", "clevel", "shuffle", "typesize", "blocksize"});
  const std::string cname = config.string("cname").value_or("zstd");
  const int clevel = static_cast<int>(config.integer("clevel", 0, 9).value_or(5));
  const auto elem = static_cast<int64_t>(decoded.data_type.size());
  // v3 blosc codec: "typesize" matters only when shuffling; it defaults to the element size.
  const int64_t typesize = config.integer("typesize", 1, INT32_MAX).value_or(elem);
  Shuffle shuffle = elem == 1 ? Shuffle::bitshuffle : Shuffle::shuffle;
  if (auto s = config.string("shuffle")) {
    if (*s == "noshuffle") {
      shuffle = Shuffle::noshuffle;
    } else if (*s == "shuffle") {
      shuffle = Shuffle::shuffle;
    } else if (*s == "bitshuffle") {
      shuffle = Shuffle::bitshuffle;
    } else {
      throw InvalidArgumentError(fmt::format(
          "{}\"shuffle\" must be \"noshuffle\", \"shuffle\" or \"bitshuffle\", got \"{}\"",
          config.prefix(), *s));
    }
  }
  const int64_t blocksize = config.integer("blocksize", 0, INT32_MAX).value_or(0);
  return std::make_shared<BloscCodec>(cname, clevel, shuffle, typesize, blocksize);
}

nlohmann::json BloscCodec::to_json() const {
  return {{"name", "blosc"},
          {"configuration",
           {{"cname", cname_},
            {"clevel", clevel_},
            {"shuffle", shuffle_name(shuffle_)},
            {"typesize", typesize_},
            {"blocksize", blocksize_}}}};
}

std::optional<size_t> BloscCodec::encode_into_bound(size_t decoded_size) const {
  return decoded_size + BLOSC_MAX_OVERHEAD;
}

std::optional<size_t> BloscCodec::encode_into(std::span<const std::byte> in,
                                              std::span<std::byte> out) const {
  check_input_size(in.size());
  if (out.size() < in.size() + BLOSC_MAX_OVERHEAD) {
    throw InvalidArgumentError(
        fmt::format("codec \"blosc\": {} output bytes are too few for a chunk of {} bytes",
                    out.size(), in.size()));
  }
  // One internal thread: the callers already run chunks in parallel.
  const int written = blosc_compress_ctx(
      clevel_, shuffle_flag(shuffle_), static_cast<size_t>(typesize_), in.size(), in.data(),
      out.data(), out.size(), cname_.c_str(), static_cast<size_t>(blocksize_), 1);
  if (written <= 0)
    throw InvalidArgumentError(fmt::format("codec \"blosc\": compression failed ({})", written));
  return static_cast<size_t>(written);
}

void BloscCodec::encode(std::span<const Buffer> in, std::span<Buffer> out,
                        const ChunkRepresentation&, std::span<ChunkStatus> status) const {
  check_batch_sizes("blosc", in.size(), out.size(), status.size());
  for_each_chunk(status, [&](size_t i) {
    auto data = in[i].bytes();
    check_input_size(data.size());
    Buffer result = Buffer::allocate(data.size() + BLOSC_MAX_OVERHEAD);
    out[i] = result.slice(0, *encode_into(data, result.bytes()));
  });
}

namespace {

// The decoded size a blosc buffer's header records. c-blosc 1.x format: a 16-byte header
// (version, flags, typesize, nbytes, blocksize, cbytes); blosc_cbuffer_validate checks it against
// the real input size, so decompression never reads past the input.
size_t validated_decoded_size(std::span<const std::byte> data) {
  if (data.size() < BLOSC_MIN_HEADER_LENGTH) {
    throw CorruptDataError(
        fmt::format("codec \"blosc\": {} bytes are too few for a {}-byte blosc header", data.size(),
                    BLOSC_MIN_HEADER_LENGTH));
  }
  size_t nbytes = 0;
  if (blosc_cbuffer_validate(data.data(), data.size(), &nbytes) != 0) {
    throw CorruptDataError(
        fmt::format("codec \"blosc\": invalid blosc header for {} input bytes", data.size()));
  }
  return nbytes;
}

// Decompresses a validated buffer into `out` (out.size() == its decoded size).
void decompress_into(std::span<const std::byte> data, std::span<std::byte> out, size_t threads) {
  if (out.empty()) return;
  const int got = blosc_decompress_ctx(data.data(), out.data(), out.size(),
                                       static_cast<int>(std::clamp<size_t>(threads, 1, 256)));
  if (got < 0 || static_cast<size_t>(got) != out.size()) {
    throw CorruptDataError(fmt::format(
        "codec \"blosc\": decompression failed ({}; expected {} bytes)", got, out.size()));
  }
}

}  // namespace

void BloscCodec::decode(std::span<const Buffer> in, std::span<Buffer> out,
                        const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const {
  check_batch_sizes("blosc", in.size(), out.size(), status.size());
  const size_t limit = decoded_size_limit(decoded);
  const size_t threads = std::max<size_t>(1, cpu_threads() / std::max<size_t>(1, in.size()));
  for_each_chunk(status, [&](size_t i) {
    auto data = in[i].bytes();
    const size_t nbytes = validated_decoded_size(data);
    if (nbytes > limit) {
      throw CorruptDataError(
          fmt::format("codec \"blosc\": header claims {} decoded bytes, more than the limit of {} "
                      "for this chunk",
                      nbytes, limit));
    }
    Buffer result = Buffer::allocate(nbytes);
    decompress_into(data, result.bytes(), threads);
    out[i] = std::move(result);
  });
}

bool BloscCodec::decode_into(std::span<const std::byte> in, std::span<std::byte> out,
                             const ChunkRepresentation&, size_t threads) const {
  if (validated_decoded_size(in) != out.size()) return false;
  decompress_into(in, out, threads);
  return true;
}

bool BloscCodec::decode_to_sink(std::span<const std::byte> in, size_t size,
                                const DecodedBytesSink& sink) const {
  if (validated_decoded_size(in) != size) return false;
  if (size == 0) return true;
  // c-blosc 1.x format: after the 16-byte header (version, versionlz, flags, typesize, nbytes,
  // blocksize, cbytes) come the offsets of blocks of `blocksize` decoded bytes (the last one may
  // be shorter), each compressed (and shuffled) on its own, or, with BLOSC_MEMCPYED, the bytes
  // themselves. blosc_getitem decodes the blocks an item range overlaps through its own
  // block-sized buffers, so whole blocks at a time give the chunk in order with no chunk-sized
  // buffer. It reads item ranges: the block and chunk sizes must be whole items.
  const auto version = static_cast<uint8_t>(in[0]);
  size_t typesize = 0, nbytes = 0, cbytes = 0, blocksize = 0;
  int flags = 0;
  blosc_cbuffer_metainfo(in.data(), &typesize, &flags);
  blosc_cbuffer_sizes(in.data(), &nbytes, &cbytes, &blocksize);
  constexpr size_t kLargestStreamedBlock = size_t{16} << 20;
  if (version != BLOSC_VERSION_FORMAT || typesize == 0 || blocksize == 0 || blocksize > size ||
      blocksize > kLargestStreamedBlock || blocksize % typesize != 0 || size % typesize != 0) {
    return false;  // decode() handles (or rejects) the rest with a chunk-sized buffer
  }
  const size_t window = std::max<size_t>(1, kDecodeWindowBytes / blocksize) * blocksize;
  thread_local std::vector<std::byte> piece;
  if (piece.size() < window) piece.resize(window);
  for (size_t at = 0; at < size; at += window) {
    const size_t length = std::min(window, size - at);
    const int got = blosc_getitem(in.data(), static_cast<int>(at / typesize),
                                  static_cast<int>(length / typesize), piece.data());
    if (got < 0 || static_cast<size_t>(got) != length) {
      throw CorruptDataError(
          fmt::format("codec \"blosc\": decompression failed ({}) for decoded bytes [{}, {}) of {}",
                      got, at, at + length, size));
    }
    sink(std::span<const std::byte>(piece.data(), length));
  }
  return true;
}

namespace {

uint32_t load_le32(const std::byte* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

void store_le32(std::byte* p, uint32_t v) {
  for (int k = 0; k < 4; ++k) p[k] = static_cast<std::byte>(v >> (8 * k));
}

// Reads the next `n` encoded bytes into `to`; CorruptDataError when the input ends first.
void read_exactly(const BytesToBytesCodec::EncodedBytesSource& source, std::byte* to, size_t n,
                  size_t& read, size_t encoded_size) {
  for (size_t done = 0; done < n;) {
    const size_t got = source(std::span(to + done, n - done));
    if (got == 0 || got > n - done) {
      throw CorruptDataError(fmt::format(
          "codec \"blosc\": the input ended after {} of its {} bytes", read + done, encoded_size));
    }
    done += got;
  }
  read += n;
}

}  // namespace

bool BloscCodec::decode_stream_to_sink(size_t encoded_size, const EncodedBytesSource& source,
                                       size_t size, const DecodedBytesSink& sink) const {
  // c-blosc 1.x format: a 16-byte header (version, versionlz, flags, typesize, then nbytes,
  // blocksize and cbytes as little-endian 32-bit words), the 32-bit offsets of the blocks, then
  // the blocks, each compressed (and shuffled) on its own. So the blocks of a window, behind a
  // header and offsets of their own, are a blosc chunk that c-blosc decodes like any other.
  // Declined: plain copies (flag 0x2) and delta (flag 0x8, which refers every block to the
  // first), and blocks that are not whole items or out of order.
  constexpr size_t kHeader = BLOSC_MIN_HEADER_LENGTH;
  constexpr size_t kLargestStreamedBlock = size_t{16} << 20;
  if (size == 0 || encoded_size < kHeader || encoded_size > INT32_MAX) return false;
  std::array<std::byte, kHeader> header;
  size_t read = 0;
  read_exactly(source, header.data(), kHeader, read, encoded_size);
  const auto version = static_cast<uint8_t>(header[0]);
  const auto flags = static_cast<uint8_t>(header[2]);
  const auto typesize = static_cast<size_t>(header[3]);
  const size_t nbytes = load_le32(&header[4]), blocksize = load_le32(&header[8]),
               cbytes = load_le32(&header[12]);
  if (version != BLOSC_VERSION_FORMAT || (flags & (BLOSC_MEMCPYED | 0x8)) != 0 || nbytes != size ||
      cbytes != encoded_size || typesize == 0 || blocksize == 0 || blocksize > size ||
      blocksize > kLargestStreamedBlock || blocksize % typesize != 0 || size % typesize != 0) {
    return false;
  }
  const size_t nblocks = (size + blocksize - 1) / blocksize;
  const size_t offsets_end = kHeader + 4 * nblocks;
  if (offsets_end > encoded_size) return false;
  std::vector<std::byte> offsets(4 * nblocks);
  read_exactly(source, offsets.data(), offsets.size(), read, encoded_size);
  const auto start = [&](size_t block) {
    return block < nblocks ? size_t{load_le32(&offsets[4 * block])} : encoded_size;
  };
  for (size_t b = 0; b < nblocks; ++b) {
    if (start(b) < (b == 0 ? offsets_end : start(b - 1)) || start(b) > encoded_size) return false;
  }

  const size_t blocks_per_window = std::max<size_t>(1, kDecodeWindowBytes / blocksize);
  thread_local std::vector<std::byte> part;   // a window's blocks as a chunk of their own
  thread_local std::vector<std::byte> piece;  // their decoded bytes
  for (size_t first = 0, count = 0; first < nblocks; first += count) {
    count = std::min(blocks_per_window, nblocks - first);
    // A chunk of its own smaller than one block would make c-blosc take its size as the block
    // size (and split the block's streams), so a last, shorter block never goes alone.
    if (first + count == nblocks - 1 && size % blocksize != 0) ++count;
    const size_t decoded = std::min(count * blocksize, size - first * blocksize);
    // Encoded bytes [read, end) hold these blocks (read == start(first) but for a gap after the
    // offsets, which is kept).
    const size_t end = start(first + count), own_offsets = kHeader + 4 * count;
    const size_t part_size = own_offsets + (end - read);
    if (part.size() < part_size) part.resize(part_size);
    std::copy(header.begin(), header.end(), part.begin());
    store_le32(&part[4], static_cast<uint32_t>(decoded));
    store_le32(&part[12], static_cast<uint32_t>(part_size));
    for (size_t k = 0; k < count; ++k)
      store_le32(&part[kHeader + 4 * k],
                 static_cast<uint32_t>(own_offsets + start(first + k) - read));
    const size_t base = read;
    read_exactly(source, part.data() + own_offsets, end - base, read, encoded_size);
    if (piece.size() < decoded) piece.resize(decoded);
    const int got = blosc_decompress_ctx(part.data(), piece.data(), decoded, 1);
    if (got < 0 || static_cast<size_t>(got) != decoded) {
      throw CorruptDataError(
          fmt::format("codec \"blosc\": decompression failed ({}) for decoded bytes [{}, {}) of {}",
                      got, first * blocksize, first * blocksize + decoded, size));
    }
    sink(std::span<const std::byte>(piece.data(), decoded));
  }
  return true;
}

}  // namespace cuzarr
