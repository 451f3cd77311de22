// The c-blosc 1.x chunk format (c-blosc README_CHUNK_FORMAT.rst and README_HEADER.rst; blosc.c),
// written once for the CPU and the GPU: header parsing with every check c-blosc's decoder makes,
// the block / split-stream layout, a serial reference decoder, the block size c-blosc chooses,
// and a serial reference encoder (lz4 inside).
//
// Header (16 bytes, README_HEADER.rst): version (2), versionlz, flags, typesize (1 byte each),
// then nbytes, blocksize, cbytes (int32 little-endian). flags: bit 0 byte shuffle, bit 1 memcpyed
// (the data follows the header uncompressed), bit 2 bit shuffle, bit 3 reserved (c-blosc 1.x
// rejects it), bit 4 "blocks are not split", bits 5-7 the compressor format (0 blosclz, 1 lz4 and
// lz4hc, 2 snappy, 3 zlib, 4 zstd). Unless memcpyed, nblocks int32 block start offsets follow
// (relative to the chunk start); each block is nstreams streams, each an int32 compressed size
// and that many bytes; a stream whose size equals its decoded size is stored raw.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/cuda/bitshuffle_format.hpp"
#include "codec/cuda/blosclz_format.hpp"
#include "codec/cuda/device_chunk_batch.hpp"
#include "codec/cuda/little_endian.hpp"
#include "codec/cuda/lz4_block_format.hpp"
#include "codec/cuda/shuffle_format.hpp"
#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

inline constexpr uint64_t kBloscHeaderSize = 16;
inline constexpr uint32_t kBloscFormatVersion = 2;
inline constexpr uint32_t kBloscLz4VersionFormat = 1;
inline constexpr uint32_t kBloscFlagShuffle = 0x1;
inline constexpr uint32_t kBloscFlagMemcpyed = 0x2;
inline constexpr uint32_t kBloscFlagBitshuffle = 0x4;
inline constexpr uint32_t kBloscFlagReserved = 0x8;
inline constexpr uint32_t kBloscFlagDontSplit = 0x10;
/// c-blosc's MAX_SPLITS and MIN_BUFFERSIZE (blosc.c).
inline constexpr uint32_t kBloscMaxSplits = 16;
inline constexpr uint64_t kBloscMinBufferSize = 128;
/// BLOSC_MAX_BLOCKSIZE: (INT_MAX - BLOSC_MAX_TYPESIZE * sizeof(int32_t)) / 3.
inline constexpr uint64_t kBloscMaxBlockSize = (2147483647ull - 255 * 4) / 3;

/// The compressor formats of flags bits 5-7.
enum class BloscCompressor : uint32_t { blosclz = 0, lz4 = 1, snappy = 2, zlib = 3, zstd = 4 };

/// Parsed and checked header of one chunk.
struct BloscHeader {
  uint32_t flags = 0;
  uint32_t typesize = 0;
  uint64_t nbytes = 0;
  uint64_t blocksize = 0;
  uint64_t cbytes = 0;
  uint64_t nblocks = 0;
  uint64_t leftover = 0;  ///< size of the last block when it is shorter, else 0
  BloscCompressor compressor = BloscCompressor::blosclz;
  CUZARR_HOST_DEVICE bool memcpyed() const { return (flags & kBloscFlagMemcpyed) != 0; }
};

/// Which block compressors a caller of blosc_parse_header decodes: the lz4 family (lz4, lz4hc,
/// blosclz: blosc_decode_batch's kernel) or also zstd and zlib (blosc_inner_streams.hpp).
enum class BloscBlockCodecs : uint8_t { lz4_family, with_zstd_zlib };

/// Checks and parses the header of the `in_size`-byte chunk `in` to decode into `capacity` bytes,
/// as c-blosc 1.x does (blosc_run_decompression_with_context): corrupt_input for a short buffer,
/// negative sizes, a zero or too large block size or type size, reserved flags, a memcpyed
/// chunk whose cbytes is not nbytes + 16, a bstarts array larger than the chunk, cbytes larger
/// than in_size; unsupported for another format version, for snappy blocks, and for zlib / zstd
/// blocks unless `codecs` is with_zstd_zlib; output_too_small when nbytes exceeds capacity.
CUZARR_HOST_DEVICE inline DeviceChunkStatus blosc_parse_header(
    const unsigned char* in, uint64_t in_size, uint64_t capacity, BloscHeader& h,
    BloscBlockCodecs codecs = BloscBlockCodecs::lz4_family) {
  if (in_size < kBloscHeaderSize) return DeviceChunkStatus::corrupt_input;
  const uint32_t version = in[0];
  h.flags = in[2];
  h.typesize = in[3];
  const uint32_t nbytes = load_le32(in + 4), blocksize = load_le32(in + 8),
                 cbytes = load_le32(in + 12);
  if (nbytes > 0x7FFFFFFFu || blocksize > 0x7FFFFFFFu || cbytes > 0x7FFFFFFFu)
    return DeviceChunkStatus::corrupt_input;  // negative int32 in c-blosc
  h.nbytes = nbytes;
  h.blocksize = blocksize;
  h.cbytes = cbytes;
  if (h.cbytes < kBloscHeaderSize || h.cbytes > in_size) return DeviceChunkStatus::corrupt_input;
  h.compressor = static_cast<BloscCompressor>(h.flags >> 5);
  h.nblocks = 0;
  h.leftover = 0;
  if (h.nbytes == 0) return DeviceChunkStatus::ok;  // "Source buffer was empty, so we are done"
  if (h.blocksize == 0 || h.blocksize > kBloscMaxBlockSize || h.typesize == 0)
    return DeviceChunkStatus::corrupt_input;
  if (version != kBloscFormatVersion) return DeviceChunkStatus::unsupported;
  if (h.flags & kBloscFlagReserved) return DeviceChunkStatus::corrupt_input;
  h.nblocks = h.nbytes / h.blocksize;
  h.leftover = h.nbytes % h.blocksize;
  if (h.leftover > 0) ++h.nblocks;
  if (h.nbytes > capacity) return DeviceChunkStatus::output_too_small;
  if (h.memcpyed()) {
    return h.nbytes + kBloscHeaderSize == h.cbytes ? DeviceChunkStatus::ok
                                                   : DeviceChunkStatus::corrupt_input;
  }
  switch (h.compressor) {
    case BloscCompressor::blosclz:
    case BloscCompressor::lz4:
      break;
    case BloscCompressor::zlib:
    case BloscCompressor::zstd:
      if (codecs != BloscBlockCodecs::with_zstd_zlib) return DeviceChunkStatus::unsupported;
      break;
    case BloscCompressor::snappy:
      return DeviceChunkStatus::unsupported;
    default:
      return DeviceChunkStatus::corrupt_input;
  }
  if (h.nblocks > (h.cbytes - kBloscHeaderSize) / 4) return DeviceChunkStatus::corrupt_input;
  return DeviceChunkStatus::ok;
}

/// Layout of block j of a chunk whose header parsed.
struct BloscBlock {
  uint64_t offset = 0;  ///< first decoded byte of the block in the chunk
  uint64_t size = 0;    ///< decoded bytes of the block
  uint32_t nstreams = 1;
  uint64_t stream_size = 0;  ///< decoded bytes per stream
  bool byte_shuffled = false;
  bool bit_shuffled = false;
};

/// True when a block of `size` bytes is split into one stream per byte of the type. The decoder
/// (blosc_d) splits unless the header says "don't split", the type has more than 16 bytes, the
/// block holds fewer than 128 elements, or it is the short last block.
CUZARR_HOST_DEVICE inline bool blosc_block_is_split(uint32_t flags, uint32_t typesize,
                                                    uint64_t size, bool leftover_block) {
  return !(flags & kBloscFlagDontSplit) && typesize <= kBloscMaxSplits &&
         size / typesize >= kBloscMinBufferSize && !leftover_block;
}

CUZARR_HOST_DEVICE inline BloscBlock blosc_block(const BloscHeader& h, uint64_t j) {
  BloscBlock b;
  const bool leftover_block = h.leftover > 0 && j + 1 == h.nblocks;
  b.offset = j * h.blocksize;
  b.size = leftover_block ? h.leftover : h.blocksize;
  b.nstreams = blosc_block_is_split(h.flags, h.typesize, b.size, leftover_block) ? h.typesize : 1;
  b.stream_size = b.size / b.nstreams;
  // Byte shuffle wins when both flags are set; it needs typesize > 1, bit shuffle a block of at
  // least one element (blosc_d: doshuffle / dobitshuffle).
  b.byte_shuffled = (h.flags & kBloscFlagShuffle) && h.typesize > 1;
  b.bit_shuffled = !b.byte_shuffled && (h.flags & kBloscFlagBitshuffle) && b.size >= h.typesize;
  return b;
}

/// Where the streams of block j start in the chunk, checked: past the bstarts array and inside
/// cbytes. corrupt_input otherwise, or when the streams do not divide the block evenly.
CUZARR_HOST_DEVICE inline DeviceChunkStatus blosc_block_start(const unsigned char* in,
                                                              const BloscHeader& h,
                                                              const BloscBlock& b, uint64_t j,
                                                              uint64_t& start) {
  start = load_le32(in + kBloscHeaderSize + 4 * j);
  if (start < kBloscHeaderSize + 4 * h.nblocks || start > h.cbytes)
    return DeviceChunkStatus::corrupt_input;
  if (b.stream_size * b.nstreams != b.size) return DeviceChunkStatus::corrupt_input;
  return DeviceChunkStatus::ok;
}

/// Reads the stream header at in[pos]: its compressed size `csize`, checked against cbytes; pos
/// moves past the size field.
CUZARR_HOST_DEVICE inline DeviceChunkStatus blosc_stream_size(const unsigned char* in,
                                                              const BloscHeader& h, uint64_t& pos,
                                                              uint64_t& csize) {
  if (pos + 4 > h.cbytes) return DeviceChunkStatus::corrupt_input;
  const uint32_t size = load_le32(in + pos);
  pos += 4;
  if (size > 0x7FFFFFFFu || size > h.cbytes - pos) return DeviceChunkStatus::corrupt_input;
  csize = size;
  return DeviceChunkStatus::ok;
}

/// Serial reference decoder of one chunk with lz4 / blosclz blocks (others: unsupported) into
/// out[capacity]; `tmp` holds at least blocksize bytes (for unshuffling). Reports the bytes
/// produced (nbytes) in `produced`.
CUZARR_HOST_DEVICE inline DeviceChunkStatus blosc_decode_serial(
    const unsigned char* in, uint64_t in_size, unsigned char* out, uint64_t capacity,
    unsigned char* tmp, uint64_t& produced) {
  produced = 0;
  BloscHeader h;
  DeviceChunkStatus status = blosc_parse_header(in, in_size, capacity, h);
  if (status != DeviceChunkStatus::ok) return status;
  if (h.memcpyed()) {
    for (uint64_t t = 0; t < h.nbytes; ++t) out[t] = in[kBloscHeaderSize + t];
    produced = h.nbytes;
    return DeviceChunkStatus::ok;
  }
  for (uint64_t j = 0; j < h.nblocks; ++j) {
    const BloscBlock b = blosc_block(h, j);
    uint64_t pos;
    status = blosc_block_start(in, h, b, j, pos);
    if (status != DeviceChunkStatus::ok) return status;
    const bool shuffled = b.byte_shuffled || b.bit_shuffled;
    unsigned char* dest = shuffled ? tmp : out + b.offset;
    for (uint32_t s = 0; s < b.nstreams; ++s) {
      uint64_t csize;
      status = blosc_stream_size(in, h, pos, csize);
      if (status != DeviceChunkStatus::ok) return status;
      unsigned char* stream_out = dest + s * b.stream_size;
      if (csize == b.stream_size) {
        for (uint64_t t = 0; t < csize; ++t) stream_out[t] = in[pos + t];
      } else {
        const DecodeResult r =
            h.compressor == BloscCompressor::lz4
                ? lz4_decode_block_serial(in + pos, csize, stream_out, b.stream_size)
                : blosclz_decode_serial(in + pos, csize, stream_out, b.stream_size);
        if (r.status != DeviceChunkStatus::ok || r.size != b.stream_size)
          return DeviceChunkStatus::corrupt_input;
      }
      pos += csize;
    }
    if (b.byte_shuffled) unshuffle_bytes(tmp, out + b.offset, b.size, h.typesize);
    if (b.bit_shuffled) bitunshuffle_bytes(tmp, out + b.offset, b.size, h.typesize);
  }
  produced = h.nbytes;
  return DeviceChunkStatus::ok;
}

// Encoder --------------------------------------------------------------------------------------

/// The shuffle filter of an encoded chunk (blosc's BLOSC_NOSHUFFLE / SHUFFLE / BITSHUFFLE).
enum class BloscShuffle : uint8_t { none = 0, byte = 1, bit = 2 };

/// What the encoder needs to know about one chunk.
struct BloscEncodeParams {
  int clevel = 5;         ///< 0 (store) .. 9
  uint32_t typesize = 1;  ///< 1 .. 255
  BloscShuffle shuffle = BloscShuffle::byte;
  uint64_t forced_blocksize = 0;  ///< 0: choose as c-blosc does
};

/// c-blosc 1.x's split decision for lz4 (split_block, BLOSC_FORWARD_COMPAT_SPLIT, the default).
CUZARR_HOST_DEVICE inline bool blosc_lz4_splits(uint32_t typesize, uint64_t blocksize) {
  return typesize <= kBloscMaxSplits && blocksize / typesize >= kBloscMinBufferSize;
}

/// The block size c-blosc 1.x chooses for lz4 (blosc.c, compute_blocksize).
CUZARR_HOST_DEVICE inline uint64_t blosc_compute_blocksize(int clevel, uint32_t typesize,
                                                           uint64_t nbytes,
                                                           uint64_t forced_blocksize) {
  constexpr uint64_t kL1 = 32 * 1024;
  if (nbytes < typesize) return 1;
  uint64_t blocksize = nbytes;
  if (forced_blocksize) {
    blocksize = forced_blocksize < kBloscMinBufferSize ? kBloscMinBufferSize : forced_blocksize;
    if (blocksize > kBloscMaxBlockSize) blocksize = kBloscMaxBlockSize;
  } else if (nbytes >= kL1) {
    blocksize = kL1;
    switch (clevel) {
      case 0:
        blocksize /= 4;
        break;
      case 1:
        blocksize /= 2;
        break;
      case 2:
        break;
      case 3:
        blocksize *= 2;
        break;
      case 4:
      case 5:
        blocksize *= 4;
        break;
      default:
        blocksize *= 8;
        break;  // 6 .. 9 (lz4 is not one of the "HCR" codecs)
    }
  }
  if (clevel > 0 && blosc_lz4_splits(typesize, blocksize)) {
    if (blocksize > (1u << 18)) blocksize = 1u << 18;
    blocksize *= typesize;
    if (blocksize < (1u << 16)) blocksize = 1u << 16;
    if (blocksize > 1024 * 1024) blocksize = 1024 * 1024;
  }
  if (blocksize > nbytes) blocksize = nbytes;
  if (blocksize > typesize) blocksize = blocksize / typesize * typesize;
  return blocksize;
}

/// The header of an encoded chunk before its sizes are known: flags and block layout.
struct BloscEncodeLayout {
  uint32_t flags = 0;
  uint64_t blocksize = 0;
  uint64_t nblocks = 0;
  bool memcpyed = false;
};

CUZARR_HOST_DEVICE inline BloscEncodeLayout blosc_encode_layout(const BloscEncodeParams& p,
                                                                uint64_t nbytes) {
  BloscEncodeLayout l;
  l.blocksize = blosc_compute_blocksize(p.clevel, p.typesize, nbytes, p.forced_blocksize);
  if (p.shuffle == BloscShuffle::byte) l.flags |= kBloscFlagShuffle;
  if (p.shuffle == BloscShuffle::bit) l.flags |= kBloscFlagBitshuffle;
  // c-blosc stores chunks below MIN_BUFFERSIZE bytes, or at clevel 0, uncompressed.
  l.memcpyed = p.clevel == 0 || nbytes < kBloscMinBufferSize;
  if (!blosc_lz4_splits(p.typesize, l.blocksize)) l.flags |= kBloscFlagDontSplit;
  l.flags |= static_cast<uint32_t>(BloscCompressor::lz4) << 5;
  if (l.memcpyed) l.flags |= kBloscFlagMemcpyed;
  l.nblocks = l.blocksize == 0 ? 0 : (nbytes + l.blocksize - 1) / l.blocksize;
  return l;
}

CUZARR_HOST_DEVICE inline void blosc_write_header(unsigned char* out, uint32_t flags,
                                                  uint32_t typesize, uint64_t nbytes,
                                                  uint64_t blocksize, uint64_t cbytes) {
  out[0] = kBloscFormatVersion;
  out[1] = kBloscLz4VersionFormat;
  out[2] = static_cast<unsigned char>(flags);
  out[3] = static_cast<unsigned char>(typesize);
  store_le32(out + 4, static_cast<uint32_t>(nbytes));
  store_le32(out + 8, static_cast<uint32_t>(blocksize));
  store_le32(out + 12, static_cast<uint32_t>(cbytes));
}

/// The size of a memcpyed chunk, the most the encoder writes for nbytes.
CUZARR_HOST_DEVICE constexpr uint64_t blosc_max_encoded_size(uint64_t nbytes) {
  return nbytes + kBloscHeaderSize;
}

/// Writes a memcpyed chunk (header + the raw data).
CUZARR_HOST_DEVICE inline void blosc_write_memcpyed(const unsigned char* src, uint64_t nbytes,
                                                    uint32_t flags, uint32_t typesize,
                                                    uint64_t blocksize, unsigned char* out) {
  blosc_write_header(out, flags | kBloscFlagMemcpyed, typesize, nbytes, blocksize,
                     nbytes + kBloscHeaderSize);
  for (uint64_t t = 0; t < nbytes; ++t) out[kBloscHeaderSize + t] = src[t];
}

/// The LZ4 acceleration c-blosc gives its lz4 streams at `clevel` (1 to 9): 10 - clevel, so that
/// lower levels search faster and find fewer matches.
CUZARR_HOST_DEVICE inline uint32_t blosc_lz4_acceleration(int clevel) {
  return clevel >= 1 && clevel <= 9 ? static_cast<uint32_t>(10 - clevel) : 1;
}

/// Encodes stream `src[size]` at out[pos] (size field + data) with lz4 at `acceleration`
/// (blosc_lz4_acceleration), stored raw when lz4 does not make it smaller; returns false when it
/// does not fit `capacity`.
CUZARR_HOST_DEVICE inline bool blosc_encode_stream(const unsigned char* src, uint64_t size,
                                                   unsigned char* out, uint64_t& pos,
                                                   uint64_t capacity, uint32_t* hash_table,
                                                   uint32_t acceleration) {
  if (pos + 4 > capacity) return false;
  const uint64_t room = capacity - pos - 4;
  // A compressed size equal to `size` would read as raw: ask for at most size - 1 bytes.
  const uint64_t limit = size - 1 < room ? size - 1 : room;
  uint64_t written =
      size == 0 ? 0 : lz4_encode_block(src, size, out + pos + 4, limit, hash_table, acceleration);
  if (written == 0) {  // incompressible: store raw
    if (size > room) return false;
    for (uint64_t t = 0; t < size; ++t) out[pos + 4 + t] = src[t];
    written = size;
  }
  store_le32(out + pos, static_cast<uint32_t>(written));
  pos += 4 + written;
  return true;
}

/// Serial reference encoder: writes the chunk for src[nbytes] into out[capacity] and returns its
/// size, or 0 when even the memcpyed form (nbytes + 16) does not fit. `tmp` holds blocksize bytes,
/// `hash_table` kLz4HashEntries entries.
CUZARR_HOST_DEVICE inline uint64_t blosc_encode_serial(const unsigned char* src, uint64_t nbytes,
                                                       const BloscEncodeParams& p,
                                                       unsigned char* out, uint64_t capacity,
                                                       unsigned char* tmp, uint32_t* hash_table) {
  const BloscEncodeLayout l = blosc_encode_layout(p, nbytes);
  const uint64_t memcpyed_size = nbytes + kBloscHeaderSize;
  const uint64_t limit = capacity < memcpyed_size ? capacity : memcpyed_size;
  if (!l.memcpyed) {
    BloscHeader h;
    h.flags = l.flags;
    h.typesize = p.typesize;
    h.nbytes = nbytes;
    h.blocksize = l.blocksize;
    h.nblocks = l.nblocks;
    h.leftover = nbytes % l.blocksize;
    uint64_t pos = kBloscHeaderSize + 4 * l.nblocks;
    bool fits = pos <= limit;
    for (uint64_t j = 0; fits && j < l.nblocks; ++j) {
      const BloscBlock b = blosc_block(h, j);
      store_le32(out + kBloscHeaderSize + 4 * j, static_cast<uint32_t>(pos));
      const unsigned char* block = src + b.offset;
      if (b.byte_shuffled) {
        shuffle_bytes(block, tmp, b.size, p.typesize);
        block = tmp;
      } else if (b.bit_shuffled) {
        bitshuffle_bytes(block, tmp, b.size, p.typesize);
        block = tmp;
      }
      for (uint32_t s = 0; fits && s < b.nstreams; ++s) {
        fits = blosc_encode_stream(block + s * b.stream_size, b.stream_size, out, pos, limit,
                                   hash_table, blosc_lz4_acceleration(p.clevel));
      }
    }
    if (fits) {
      blosc_write_header(out, l.flags, p.typesize, nbytes, l.blocksize, pos);
      return pos;
    }
  }
  if (memcpyed_size > capacity) return 0;
  blosc_write_memcpyed(src, nbytes, l.flags, p.typesize, l.blocksize, out);
  return memcpyed_size;
}

}  // namespace cuzarr::gpu
