#include "cuzarr/codec/vlen_codec.hpp"

#include <fmt/format.h>

#include <cstring>
#include <functional>

#include "codec/codec_configuration.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/core/utf.hpp"

namespace cuzarr {
namespace {

constexpr size_t kHeaderBytes = 4;

// Visits the element addresses of a strided view in C order.
void visit_elements(std::byte* base, const NDBuffer& array, size_t dim,
                    const std::function<void(std::byte*)>& visit) {
  if (dim == array.ndim()) {
    visit(base);
    return;
  }
  for (int64_t i = 0; i < array.shape()[dim]; ++i)
    visit_elements(base + i * array.byte_strides()[dim], array, dim + 1, visit);
}

void put_u32(std::byte* p, uint32_t v) {
  for (int k = 0; k < 4; ++k) p[k] = static_cast<std::byte>((v >> (8 * k)) & 0xFF);
}

uint32_t get_u32(const std::byte* p) {
  uint32_t v = 0;
  for (int k = 0; k < 4; ++k) v |= static_cast<uint32_t>(std::to_integer<uint8_t>(p[k])) << (8 * k);
  return v;
}

bool is_decode_target(const NDBuffer& out, const ChunkRepresentation& decoded) {
  return out.buffer().data() != nullptr && out.shape() == decoded.shape &&
         out.dtype() == decoded.data_type && is_host_accessible(out.kind());
}

}  // namespace

std::shared_ptr<VlenCodec> VlenCodec::create(Flavor flavor, const nlohmann::json& configuration,
                                             const ChunkRepresentation& decoded) {
  const std::string name = flavor == Flavor::utf8 ? "vlen-utf8" : "vlen-bytes";
  CodecConfiguration config(name, configuration, {});
  const DataTypeKind expected =
      flavor == Flavor::utf8 ? DataTypeKind::string : DataTypeKind::variable_length_bytes;
  if (decoded.data_type.kind() != expected) {
    throw InvalidArgumentError(fmt::format("{}needs data type {}, got {}", config.prefix(),
                                           DataType(expected).name(),
                                           decoded.data_type.description()));
  }
  return std::make_shared<VlenCodec>(flavor);
}

nlohmann::json VlenCodec::to_json() const {
  return {{"name", name()}, {"configuration", nlohmann::json::object()}};
}

void VlenCodec::encode(std::span<const NDBuffer> in, std::span<Buffer> out,
                       const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const {
  check_batch_sizes(name(), in.size(), out.size(), status.size());
  for_each_chunk(status, [&](size_t i) {
    const NDBuffer& array = in[i];
    if (array.shape() != decoded.shape || array.dtype() != decoded.data_type ||
        !is_host_accessible(array.kind())) {
      throw InvalidArgumentError(
          fmt::format("codec \"{}\": got a {} array of {} {}, expected host {} {}", name(),
                      memory_kind_name(array.kind()), array.dtype().description(),
                      shape_to_string(array.shape()), decoded.data_type.description(),
                      shape_to_string(decoded.shape)));
    }
    if (static_cast<uint64_t>(array.size()) > UINT32_MAX) {
      throw InvalidArgumentError(fmt::format(
          "codec \"{}\": {} elements do not fit the uint32 item count", name(), array.size()));
    }
    uint64_t total = kHeaderBytes;
    visit_elements(array.data(), array, 0, [&](std::byte* p) {
      VariableLengthValue v;
      std::memcpy(&v, p, sizeof v);
      if (v.size > UINT32_MAX) {
        throw InvalidArgumentError(fmt::format(
            "codec \"{}\": an element of {} bytes does not fit the uint32 length", name(), v.size));
      }
      total += kHeaderBytes + v.size;
    });
    Buffer bytes = Buffer::allocate(static_cast<size_t>(total));
    std::byte* w = bytes.data();
    put_u32(w, static_cast<uint32_t>(array.size()));
    w += kHeaderBytes;
    visit_elements(array.data(), array, 0, [&](std::byte* p) {
      VariableLengthValue v;
      std::memcpy(&v, p, sizeof v);
      put_u32(w, static_cast<uint32_t>(v.size));
      w += kHeaderBytes;
      if (v.size > 0) std::memcpy(w, v.data, static_cast<size_t>(v.size));
      w += v.size;
    });
    out[i] = std::move(bytes);
  });
}

void VlenCodec::decode(std::span<const Buffer> in, std::span<NDBuffer> out,
                       const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const {
  check_batch_sizes(name(), in.size(), out.size(), status.size());
  const auto elements = static_cast<uint64_t>(element_count(decoded.shape));
  for_each_chunk(status, [&](size_t i) {
    const Buffer& bytes = in[i];
    if (!is_host_accessible(bytes.kind())) {
      throw InvalidArgumentError(
          fmt::format("codec \"{}\": the CPU codec needs host-accessible encoded bytes", name()));
    }
    const size_t size = bytes.size();
    if (size < kHeaderBytes) {
      throw CorruptDataError(fmt::format(
          "codec \"{}\": {} bytes is too short for the 4-byte item count", name(), size));
    }
    const std::byte* base = bytes.data();
    const uint32_t count = get_u32(base);
    if (count != elements) {
      throw CorruptDataError(
          fmt::format("codec \"{}\": the item count is {}, expected {} for a chunk of shape {}",
                      name(), count, elements, shape_to_string(decoded.shape)));
    }
    // Parse every item first, so that a corrupt chunk leaves the output untouched.
    std::vector<VariableLengthValue> values(static_cast<size_t>(elements));
    size_t at = kHeaderBytes;
    for (uint64_t k = 0; k < elements; ++k) {
      if (size - at < kHeaderBytes) {
        throw CorruptDataError(fmt::format(
            "codec \"{}\": item {} of {}: the length field runs past the end of {} bytes", name(),
            k, elements, size));
      }
      const uint32_t length = get_u32(base + at);
      at += kHeaderBytes;
      if (length > size - at) {
        throw CorruptDataError(fmt::format(
            "codec \"{}\": item {} of {}: a length of {} bytes runs past the end of {} bytes",
            name(), k, elements, length, size));
      }
      values[k] = {length == 0 ? nullptr : reinterpret_cast<const char*>(base + at), length};
      if (flavor_ == Flavor::utf8 && !is_valid_utf8(values[k].view())) {
        throw CorruptDataError(
            fmt::format("codec \"{}\": item {} of {} is not valid UTF-8", name(), k, elements));
      }
      at += length;
    }
    if (at != size) {
      throw CorruptDataError(fmt::format("codec \"{}\": {} trailing bytes after {} items", name(),
                                         size - at, elements));
    }
    if (!is_decode_target(out[i], decoded))
      out[i] = NDBuffer::allocate(decoded.data_type, decoded.shape);
    const NDBuffer& target = out[i];
    // The elements point into the encoded bytes: the output keeps them alive.
    target.buffer().keep_alive_of(bytes);
    size_t k = 0;
    visit_elements(target.data(), target, 0, [&](std::byte* p) {
      std::memcpy(p, &values[k++], sizeof(VariableLengthValue));
    });
  });
}

}  // namespace cuzarr
