// The layout the v3 crc32c codec and numcodecs' Fletcher32 and JenkinsLookup3 share: the data,
// then a 32-bit checksum of it as a 4-byte little-endian integer. Their batch loops.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>

#include "cuzarr/codec/chunk_status.hpp"
#include "cuzarr/memory/buffer.hpp"

namespace cuzarr {

/// A 32-bit checksum of some bytes.
using Checksum32Function = std::function<uint32_t(std::span<const std::byte>)>;

/// out[i] = in[i], then checksum(in[i]). Throws InvalidArgumentError naming `codec` when the batch
/// sizes differ.
void encode_with_trailing_checksum(std::span<const Buffer> in, std::span<Buffer> out,
                                   std::span<ChunkStatus> status, std::string_view codec,
                                   const Checksum32Function& checksum);

/// out[i] = a zero-copy view of in[i] without its last 4 bytes, once they equal the checksum of
/// the rest; else the chunk's status is corrupt_data (a message naming `codec`), as it is when
/// in[i] is shorter than 4 bytes.
void decode_with_trailing_checksum(std::span<const Buffer> in, std::span<Buffer> out,
                                   std::span<ChunkStatus> status, std::string_view codec,
                                   const Checksum32Function& checksum);

}  // namespace cuzarr
