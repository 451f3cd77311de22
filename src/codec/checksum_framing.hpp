// The layout every 32-bit checksum codec shares: the data with a checksum of it as a 4-byte
// little-endian integer before it (numcodecs' crc32 and adler32 by default) or after it (the v3
// crc32c codec, numcodecs' crc32c, fletcher32 and jenkins_lookup3). Their batch loops.
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

/// Where the checksum stands: before or after the data.
enum class ChecksumPlace { start, end };

/// out[i] = in[i] with checksum(in[i]) at `place`. Throws InvalidArgumentError naming `codec`
/// when the batch sizes differ.
void encode_with_checksum(std::span<const Buffer> in, std::span<Buffer> out,
                          std::span<ChunkStatus> status, std::string_view codec,
                          ChecksumPlace place, const Checksum32Function& checksum);

/// out[i] = a zero-copy view of the data of in[i], once the 4 bytes at `place` equal its
/// checksum; else the chunk's status is corrupt_data (a message naming `codec`), as it is when
/// in[i] is shorter than 4 bytes.
void decode_with_checksum(std::span<const Buffer> in, std::span<Buffer> out,
                          std::span<ChunkStatus> status, std::string_view codec,
                          ChecksumPlace place, const Checksum32Function& checksum);

}  // namespace cuzarr
