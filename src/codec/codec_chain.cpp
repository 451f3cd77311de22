#include "cuzarr/codec/codec_chain.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "codec/direct_chunk_encoder.hpp"
#include "codec/strided_byte_writer.hpp"
#include "cuzarr/codec/bytes_codec.hpp"
#include "cuzarr/codec/codec_registry.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/core/parallel.hpp"

namespace cuzarr {
namespace {

const char* kind_name(CodecKind kind) {
  switch (kind) {
    case CodecKind::array_to_array:
      return "array -> array";
    case CodecKind::array_to_bytes:
      return "array -> bytes";
    case CodecKind::bytes_to_bytes:
      return "bytes -> bytes";
  }
  return "unknown";
}

void check_batch(size_t in, size_t out, size_t status) {
  if (in != status || out != status) {
    throw InvalidArgumentError(fmt::format(
        "codec chain: batch of {} inputs, {} outputs and {} statuses", in, out, status));
  }
}

bool same_view(const NDBuffer& a, const NDBuffer& b) {
  return a.data() == b.data() && a.shape() == b.shape() && a.byte_strides() == b.byte_strides() &&
         a.dtype() == b.dtype();
}

bool is_decode_target(const NDBuffer& out, const ChunkRepresentation& decoded) {
  return out.buffer().data() != nullptr && out.shape() == decoded.shape &&
         out.dtype() == decoded.data_type && is_host_accessible(out.kind());
}

// The representation each array->array codec receives on encode, followed by the one the
// array->bytes codec receives.
std::vector<ChunkRepresentation> stage_representations(
    const std::vector<std::shared_ptr<ArrayToArrayCodec>>& a2a,
    const ChunkRepresentation& decoded) {
  std::vector<ChunkRepresentation> reps{decoded};
  for (const auto& codec : a2a) reps.push_back(codec->encoded_representation(reps.back()));
  return reps;
}

// The chunks a chain of [bytes (no byte swap), one bytes -> bytes codec] can decode straight into
// their host destinations: the bytes -> bytes codec writes the elements in place (C-contiguous
// destinations) or streams them through a small buffer into a strided view (a chunk's place in
// a larger array), with no chunk-sized intermediate buffer. Decodes those and returns the indices
// of the others (all of them when the chain has another form).
std::vector<size_t> decode_directly(const ArrayToBytesCodec& a2b, const BytesToBytesCodec& b2b,
                                    std::span<const Buffer> in, std::span<NDBuffer> out,
                                    const ChunkRepresentation& decoded,
                                    std::span<ChunkStatus> status) {
  const size_t n = status.size();
  std::vector<size_t> rest;
  const auto* bytes = dynamic_cast<const BytesCodec*>(&a2b);
  if (!bytes || bytes->needs_swap(decoded.data_type) || decoded.data_type.is_variable_length()) {
    rest.resize(n);
    for (size_t i = 0; i < n; ++i) rest[i] = i;
    return rest;
  }
  std::vector<char> direct(n, 0);
  const size_t threads = std::max<size_t>(1, cpu_threads() / n);
  for_each_chunk(status, [&](size_t i) {
    if (!is_decode_target(out[i], decoded)) return;
    const auto size = static_cast<size_t>(decoded.nbytes());
    if (out[i].is_c_contiguous()) {
      direct[i] = b2b.decode_into(in[i].bytes(), std::span(out[i].data(), size), decoded, threads);
    } else {
      StridedByteWriter writer(out[i]);
      direct[i] = b2b.decode_to_sink(
          in[i].bytes(), size, [&](std::span<const std::byte> piece) { writer.write(piece); });
    }
  });
  for (size_t i = 0; i < n; ++i)
    if (status[i].ok && !direct[i]) rest.push_back(i);
  return rest;
}

// Chunks per group of a large encode or decode batch: one per thread, or 64 MiB of small chunks.
size_t batch_group_size(const ChunkRepresentation& decoded) {
  const uint64_t chunk_bytes = std::max<uint64_t>(1, static_cast<uint64_t>(decoded.nbytes()));
  return std::max<size_t>(cpu_threads(), (uint64_t{64} << 20) / chunk_bytes);
}

}  // namespace

std::shared_ptr<CodecChain> CodecChain::create(std::span<const CodecSpec> specs,
                                               const ChunkRepresentation& decoded) {
  auto chain = std::make_shared<CodecChain>();
  chain->decoded_ = decoded;
  ChunkRepresentation current = decoded;
  const auto& registry = CodecRegistry::instance();
  // v3 core spec, "Codecs": zero or more array -> array codecs, exactly one array -> bytes codec,
  // then zero or more bytes -> bytes codecs.
  for (size_t i = 0; i < specs.size(); ++i) {
    std::shared_ptr<Codec> codec;
    try {
      codec = registry.create(specs[i], current);
    } catch (const Error& e) {
      throw_error(e.code(), fmt::format("codecs[{}]: {}", i, e.what()));
    }
    const auto misplaced = [&](const std::string& why) {
      return InvalidArgumentError(
          fmt::format("codecs[{}]: codec \"{}\" is {} but {} (expected array -> array codecs, "
                      "one array -> bytes codec, then bytes -> bytes codecs)",
                      i, specs[i].name, kind_name(codec->kind()), why));
    };
    switch (codec->kind()) {
      case CodecKind::array_to_array:
        if (chain->a2b_) throw misplaced("comes after the array -> bytes codec");
        chain->a2a_inputs_.push_back(current);
        chain->a2a_.push_back(std::static_pointer_cast<ArrayToArrayCodec>(codec));
        try {
          current = chain->a2a_.back()->encoded_representation(current);
        } catch (const Error& e) {
          throw_error(e.code(), fmt::format("codecs[{}]: {}", i, e.what()));
        }
        break;
      case CodecKind::array_to_bytes:
        if (chain->a2b_)
          throw misplaced(fmt::format("a second one after \"{}\"", chain->a2b_->name()));
        chain->a2b_ = std::static_pointer_cast<ArrayToBytesCodec>(codec);
        chain->a2b_input_ = current;
        break;
      case CodecKind::bytes_to_bytes:
        if (!chain->a2b_) throw misplaced("comes before the array -> bytes codec");
        chain->b2b_.push_back(std::static_pointer_cast<BytesToBytesCodec>(codec));
        break;
    }
  }
  if (!chain->a2b_) {
    throw InvalidArgumentError(
        "codec chain has no array -> bytes codec (for example \"bytes\" or \"sharding_indexed\")");
  }
  return chain;
}

nlohmann::json CodecChain::to_json() const {
  nlohmann::json codecs = nlohmann::json::array();
  for (const auto& c : a2a_) codecs.push_back(c->to_json());
  codecs.push_back(a2b_->to_json());
  for (const auto& c : b2b_) codecs.push_back(c->to_json());
  return codecs;
}

std::optional<int64_t> CodecChain::fixed_encoded_size(const ChunkRepresentation& decoded) const {
  const auto reps = stage_representations(a2a_, decoded);
  auto size = a2b_->fixed_encoded_size(reps.back());
  for (const auto& codec : b2b_) {
    if (!size) return std::nullopt;
    size = codec->fixed_encoded_size(*size);
  }
  return size;
}

void CodecChain::encode(std::span<const NDBuffer> in, std::span<Buffer> out,
                        const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const {
  check_batch(in.size(), out.size(), status.size());
  const size_t n = status.size();
  if (n == 0) return;
  // In groups, as decode does: a stage's intermediate buffers all live at once.
  const size_t group = batch_group_size(decoded);
  if (n > group) {
    for (size_t first = 0; first < n; first += group) {
      const size_t count = std::min(group, n - first);
      encode(in.subspan(first, count), out.subspan(first, count), decoded,
             status.subspan(first, count));
    }
    return;
  }
  if (decoded.shape == decoded_.shape && decoded.data_type == decoded_.data_type) {
    if (const auto direct = DirectChunkEncoder::for_chain(*this)) {
      // [bytes] or [bytes, one compressor]: each chunk is copied or compressed from the caller's
      // array (gathered into a per-thread buffer when strided and compressed), with no
      // intermediate chunk-sized buffer.
      for_each_chunk(status, [&](size_t i) {
        Buffer bytes = Buffer::allocate(direct->bound());
        out[i] = bytes.slice(0, direct->encode(in[i], bytes.bytes()));
      });
      return;
    }
  }
  const auto reps = stage_representations(a2a_, decoded);

  std::vector<NDBuffer> arrays(in.begin(), in.end());
  for (size_t k = 0; k < a2a_.size(); ++k) {
    std::vector<NDBuffer> next(n);
    a2a_[k]->encode(arrays, next, reps[k], status);
    arrays = std::move(next);
  }
  if (b2b_.empty()) {
    a2b_->encode(arrays, out, reps.back(), status);
    return;
  }
  std::vector<Buffer> bytes(n);
  a2b_->encode(arrays, bytes, reps.back(), status);
  arrays.clear();
  for (size_t k = 0; k < b2b_.size(); ++k) {
    if (k + 1 == b2b_.size()) {
      b2b_[k]->encode(bytes, out, reps.back(), status);
    } else {
      std::vector<Buffer> next(n);
      b2b_[k]->encode(bytes, next, reps.back(), status);
      bytes = std::move(next);
    }
  }
}

void CodecChain::decode(std::span<const Buffer> in, std::span<NDBuffer> out,
                        const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const {
  check_batch(in.size(), out.size(), status.size());
  const size_t n = status.size();
  if (n == 0) return;
  // Each stage runs over the whole batch, so a stage's intermediate buffers all live at once:
  // decode large batches in groups that keep the threads busy (one chunk per thread, or 64 MiB
  // of small chunks) so that peak memory follows the group, not the batch.
  const size_t group = batch_group_size(decoded);
  if (n > group) {
    for (size_t first = 0; first < n; first += group) {
      const size_t count = std::min(group, n - first);
      decode(in.subspan(first, count), out.subspan(first, count), decoded,
             status.subspan(first, count));
    }
    return;
  }
  if (a2a_.empty() && b2b_.size() == 1) {
    const auto rest = decode_directly(*a2b_, *b2b_[0], in, out, decoded, status);
    if (rest.size() < n) {
      if (rest.empty()) return;
      // The few chunks the direct path declined (e.g. a zstd frame without a content size).
      std::vector<Buffer> rest_in;
      std::vector<NDBuffer> rest_out;
      std::vector<ChunkStatus> rest_status(rest.size());
      for (size_t i : rest) {
        rest_in.push_back(in[i]);
        rest_out.push_back(out[i]);
      }
      decode(rest_in, rest_out, decoded, rest_status);
      for (size_t j = 0; j < rest.size(); ++j) {
        out[rest[j]] = std::move(rest_out[j]);
        status[rest[j]] = std::move(rest_status[j]);
      }
      return;
    }
  }
  const auto reps = stage_representations(a2a_, decoded);

  // Bytes -> bytes codecs in reverse order.
  std::vector<Buffer> bytes(in.begin(), in.end());
  for (size_t k = b2b_.size(); k-- > 0;) {
    std::vector<Buffer> next(n);
    b2b_[k]->decode(bytes, next, reps.back(), status);
    bytes = std::move(next);
  }
  if (a2a_.empty()) {
    a2b_->decode(bytes, out, reps.back(), status);
    return;
  }

  // With array -> array codecs, let the array -> bytes codec decode straight into the caller's
  // arrays seen through the a2a encodings (for transpose: a permuted view, so no extra copy).
  std::vector<NDBuffer> arrays(n);
  {
    std::vector<ChunkStatus> seed_status(n);
    std::vector<NDBuffer> seeds(n);
    for (size_t i = 0; i < n; ++i) {
      if (status[i].ok && is_decode_target(out[i], decoded))
        seeds[i] = out[i];
      else
        seed_status[i].ok = false;
    }
    for (size_t k = 0; k < a2a_.size(); ++k) {
      std::vector<NDBuffer> next(n);
      a2a_[k]->encode(seeds, next, reps[k], seed_status);
      seeds = std::move(next);
    }
    for (size_t i = 0; i < n; ++i) {
      if (seed_status[i].ok) arrays[i] = std::move(seeds[i]);
    }
  }
  a2b_->decode(bytes, arrays, reps.back(), status);
  bytes.clear();
  for (size_t k = a2a_.size(); k-- > 0;) {
    std::vector<NDBuffer> next(n);
    a2a_[k]->decode(arrays, next, reps[k], status);
    arrays = std::move(next);
  }
  for_each_chunk(status, [&](size_t i) {
    if (is_decode_target(out[i], decoded)) {
      if (!same_view(out[i], arrays[i])) out[i].assign(arrays[i]);
    } else {
      out[i] = std::move(arrays[i]);
    }
  });
}

}  // namespace cuzarr
