#include "cuzarr/codec/bytes_codec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>

#include "codec/codec_configuration.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

template <class T>
void swap_all(std::byte* data, size_t count, T (*swap)(T)) {
  for (size_t i = 0; i < count; ++i) {
    T v;
    std::memcpy(&v, data + i * sizeof(T), sizeof(T));
    v = swap(v);
    std::memcpy(data + i * sizeof(T), &v, sizeof(T));
  }
}

uint16_t swap16(uint16_t v) { return __builtin_bswap16(v); }
uint32_t swap32(uint32_t v) { return __builtin_bswap32(v); }
uint64_t swap64(uint64_t v) { return __builtin_bswap64(v); }

constexpr BytesCodec::Endian kHostEndian =
    std::endian::native == std::endian::big ? BytesCodec::Endian::big : BytesCodec::Endian::little;

void require_matching_array(const NDBuffer& array, const ChunkRepresentation& decoded) {
  if (array.shape() != decoded.shape || array.dtype() != decoded.data_type) {
    throw InvalidArgumentError(fmt::format(
        "codec \"bytes\": got an array of {} {}, expected {} {}", array.dtype().name(),
        shape_to_string(array.shape()), decoded.data_type.name(), shape_to_string(decoded.shape)));
  }
  if (!is_host_accessible(array.kind())) {
    throw InvalidArgumentError("codec \"bytes\": the CPU codec needs a host-accessible array");
  }
}

bool is_decode_target(const NDBuffer& out, const ChunkRepresentation& decoded) {
  return out.buffer().data() != nullptr && out.shape() == decoded.shape &&
         out.dtype() == decoded.data_type && is_host_accessible(out.kind());
}

}  // namespace

void byte_swap_units(std::byte* data, size_t size, size_t unit) {
  switch (unit) {
    case 1:
      return;
    case 2:
      swap_all<uint16_t>(data, size / 2, swap16);
      return;
    case 4:
      swap_all<uint32_t>(data, size / 4, swap32);
      return;
    case 8:
      swap_all<uint64_t>(data, size / 8, swap64);
      return;
    default:
      for (size_t off = 0; off + unit <= size; off += unit)
        std::reverse(data + off, data + off + unit);
  }
}

std::shared_ptr<BytesCodec> BytesCodec::create(const nlohmann::json& configuration,
                                               const ChunkRepresentation& decoded) {
  CodecConfiguration config("bytes", configuration, {"endian"});
  if (decoded.data_type.is_variable_length()) {
    throw InvalidArgumentError(
        fmt::format("{}cannot encode the variable-length data type {} (use \"{}\")",
                    config.prefix(), decoded.data_type.name(),
                    decoded.data_type.kind() == DataTypeKind::string ? "vlen-utf8" : "vlen-bytes"));
  }
  std::optional<Endian> endian;
  if (auto text = config.string("endian")) {
    if (*text == "little") {
      endian = Endian::little;
    } else if (*text == "big") {
      endian = Endian::big;
    } else {
      throw InvalidArgumentError(fmt::format(
          "{}\"endian\" must be \"little\" or \"big\", got \"{}\"", config.prefix(), *text));
    }
  }
  // v3 bytes codec: "endian" may be omitted only when the data type has a single byte per unit.
  if (!endian && decoded.data_type.endian_unit() > 1) {
    throw InvalidArgumentError(fmt::format("{}\"endian\" is required for data type {}",
                                           config.prefix(), decoded.data_type.name()));
  }
  return std::make_shared<BytesCodec>(endian);
}

nlohmann::json BytesCodec::to_json() const {
  nlohmann::json j{{"name", "bytes"}};
  if (endian_) j["configuration"] = {{"endian", *endian_ == Endian::little ? "little" : "big"}};
  return j;
}

bool BytesCodec::needs_swap(const DataType& dtype) const {
  return endian_ && *endian_ != kHostEndian && dtype.endian_unit() > 1;
}

void BytesCodec::encode(std::span<const NDBuffer> in, std::span<Buffer> out,
                        const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const {
  check_batch_sizes("bytes", in.size(), out.size(), status.size());
  const bool swap = needs_swap(decoded.data_type);
  const int64_t nbytes = decoded.nbytes();
  for_each_chunk(status, [&](size_t i) {
    require_matching_array(in[i], decoded);
    // Always a copy: the encoded bytes may outlive the caller's array (stores keep them).
    Buffer bytes = Buffer::allocate(static_cast<size_t>(nbytes));
    NDBuffer(bytes, decoded.data_type, decoded.shape).assign(in[i]);
    if (swap) byte_swap_units(bytes.data(), bytes.size(), decoded.data_type.endian_unit());
    out[i] = std::move(bytes);
  });
}

void BytesCodec::decode(std::span<const Buffer> in, std::span<NDBuffer> out,
                        const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const {
  check_batch_sizes("bytes", in.size(), out.size(), status.size());
  const bool swap = needs_swap(decoded.data_type);
  const size_t unit = decoded.data_type.endian_unit();
  const auto nbytes = static_cast<size_t>(decoded.nbytes());
  for_each_chunk(status, [&](size_t i) {
    const Buffer& bytes = in[i];
    if (!is_host_accessible(bytes.kind())) {
      throw InvalidArgumentError(
          "codec \"bytes\": the CPU codec needs host-accessible encoded bytes");
    }
    if (bytes.size() != nbytes) {
      throw CorruptDataError(
          fmt::format("codec \"bytes\": expected {} bytes for a chunk of {} {}, got {}", nbytes,
                      decoded.data_type.name(), shape_to_string(decoded.shape), bytes.size()));
    }
    if (is_decode_target(out[i], decoded)) {
      if (swap && out[i].is_c_contiguous()) {
        if (nbytes > 0) std::memcpy(out[i].data(), bytes.data(), nbytes);
        byte_swap_units(out[i].data(), nbytes, unit);
      } else if (swap) {
        Buffer copy = Buffer::copy_of(bytes.bytes());
        byte_swap_units(copy.data(), copy.size(), unit);
        out[i].assign(NDBuffer(copy, decoded.data_type, decoded.shape));
      } else {
        out[i].assign(NDBuffer(bytes, decoded.data_type, decoded.shape));
      }
      return;
    }
    const bool aligned = reinterpret_cast<uintptr_t>(bytes.data()) % unit == 0;
    if (!swap && aligned) {
      out[i] = NDBuffer(bytes, decoded.data_type, decoded.shape);  // zero-copy view
      return;
    }
    Buffer copy = Buffer::copy_of(bytes.bytes());
    if (swap) byte_swap_units(copy.data(), copy.size(), unit);
    out[i] = NDBuffer(std::move(copy), decoded.data_type, decoded.shape);
  });
}

}  // namespace cuzarr
