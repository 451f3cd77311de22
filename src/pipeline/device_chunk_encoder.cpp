#include "pipeline/device_chunk_encoder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstdint>

#include "cuzarr/codec/blosc_codec.hpp"
#include "cuzarr/codec/bytes_codec.hpp"
#include "cuzarr/codec/crc32c_codec.hpp"
#include "cuzarr/codec/numcodecs_lz4_codec.hpp"
#include "cuzarr/codec/numcodecs_shuffle_codec.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/core/log.hpp"
#if defined(CUZARR_HAVE_CUDA)
#include "codec/cuda/blosc_frame_format.hpp"
#include "codec/cuda/blosc_kernels.hpp"
#include "codec/cuda/crc32c_kernels.hpp"
#include "codec/cuda/device_batch_tables.hpp"
#include "codec/cuda/lz4_kernels.hpp"
#include "codec/cuda/shuffle_kernels.hpp"
#endif

namespace cuzarr {

struct DeviceChunkEncoder::Step {
  virtual ~Step() = default;
  std::string name;
  /// The most bytes a chunk of `size` bytes encodes to.
  virtual uint64_t max_encoded_size(uint64_t size) const = 0;
  /// Scratch device bytes for `count` chunks of at most `max_input` bytes.
  virtual size_t temp_bytes(size_t count, uint64_t max_input) const {
    (void)count, (void)max_input;
    return 0;
  }
#if defined(CUZARR_HAVE_CUDA)
  virtual void encode(const gpu::DeviceChunkBatch& batch, void* temp, uint64_t max_input,
                      Stream stream) const = 0;
#endif
};

DeviceChunkEncoder::~DeviceChunkEncoder() = default;

std::string DeviceChunkEncoder::describe() const {
  std::string text;
  for (const auto& step : steps_) text += fmt::format("{}{}", text.empty() ? "" : ", ", step->name);
  return text;
}

#if defined(CUZARR_HAVE_CUDA)
namespace {

// numcodecs.lz4: the decoded size (4 bytes, little endian), then one LZ4 block.
struct NumcodecsLz4Step final : DeviceChunkEncoder::Step {
  uint64_t max_encoded_size(uint64_t size) const override {
    return gpu::numcodecs_lz4_max_encoded_size(size);
  }
  size_t temp_bytes(size_t count, uint64_t) const override {
    return gpu::lz4_encode_temp_bytes(count);
  }
  void encode(const gpu::DeviceChunkBatch& batch, void* temp, uint64_t,
              Stream stream) const override {
    gpu::numcodecs_lz4_encode_batch(batch, temp, stream);
  }
};

// blosc with lz4 blocks: a c-blosc 1.x chunk (c-blosc's block size and split rules).
struct BloscLz4Step final : DeviceChunkEncoder::Step {
  gpu::BloscEncodeParams params;
  uint64_t max_encoded_size(uint64_t size) const override {
    return gpu::blosc_max_encoded_size(size);
  }
  size_t temp_bytes(size_t count, uint64_t max_input) const override {
    return gpu::blosc_encode_temp_bytes(count, max_input);
  }
  void encode(const gpu::DeviceChunkBatch& batch, void* temp, uint64_t max_input,
              Stream stream) const override {
    gpu::blosc_encode_batch(batch, params, temp, max_input, stream);
  }
};

// crc32c (Zarr v3): the bytes, then their CRC-32C (4 bytes, little endian).
struct Crc32cStep final : DeviceChunkEncoder::Step {
  uint64_t max_encoded_size(uint64_t size) const override { return size + 4; }
  size_t temp_bytes(size_t count, uint64_t) const override {
    return gpu::crc32c_codec_temp_bytes(count);
  }
  void encode(const gpu::DeviceChunkBatch& batch, void* temp, uint64_t,
              Stream stream) const override {
    gpu::crc32c_encode_batch(batch, temp, stream);
  }
};

// numcodecs.shuffle: encoded[k * n + i] = decoded[i * elementsize + k].
struct ShuffleStep final : DeviceChunkEncoder::Step {
  uint32_t element_size = 0;
  uint64_t max_encoded_size(uint64_t size) const override { return size; }
  void encode(const gpu::DeviceChunkBatch& batch, void*, uint64_t, Stream stream) const override {
    gpu::shuffle_batch(batch, element_size, stream);
  }
};

// The GPU encode step of `codec` for inputs of `input_size` bytes (nullopt: not known, i.e. after
// a compressor), or null with the reason in `why`.
std::unique_ptr<DeviceChunkEncoder::Step> step_for(const BytesToBytesCodec& codec,
                                                   std::optional<uint64_t> input_size,
                                                   std::string& why) {
  if (dynamic_cast<const NumcodecsLz4Codec*>(&codec)) return std::make_unique<NumcodecsLz4Step>();
  if (dynamic_cast<const Crc32cCodec*>(&codec)) return std::make_unique<Crc32cStep>();
  if (const auto* blosc = dynamic_cast<const BloscCodec*>(&codec)) {
    if (blosc->cname() != "lz4") {
      why = fmt::format("the GPU blosc encoder writes lz4 blocks, not {}", blosc->cname());
      return nullptr;
    }
    if (blosc->typesize() < 1 || blosc->typesize() > 255 || blosc->clevel() < 0 ||
        blosc->clevel() > 9 || blosc->blocksize() < 0) {
      why = "the GPU blosc encoder takes typesize 1..255, clevel 0..9";
      return nullptr;
    }
    auto step = std::make_unique<BloscLz4Step>();
    step->params.clevel = blosc->clevel();
    step->params.typesize = static_cast<uint32_t>(blosc->typesize());
    step->params.shuffle =
        blosc->shuffle() == BloscCodec::Shuffle::shuffle      ? gpu::BloscShuffle::byte
        : blosc->shuffle() == BloscCodec::Shuffle::bitshuffle ? gpu::BloscShuffle::bit
                                                              : gpu::BloscShuffle::none;
    step->params.forced_blocksize = static_cast<uint64_t>(blosc->blocksize());
    return step;
  }
  if (const auto* shuffle = dynamic_cast<const NumcodecsShuffleCodec*>(&codec)) {
    const int64_t size = shuffle->elementsize();
    // The CPU codec refuses sizes that are not a multiple of elementsize; the kernel would leave
    // the trailing bytes in place. Only chunks of a known, whole number of elements go to it.
    if (size <= 1 || size >= (int64_t{1} << 31) || !input_size ||
        *input_size % static_cast<uint64_t>(size) != 0) {
      why =
          "numcodecs.shuffle is encoded on the GPU only for whole elements of more than one "
          "byte, as the first codec after bytes";
      return nullptr;
    }
    auto step = std::make_unique<ShuffleStep>();
    step->element_size = static_cast<uint32_t>(size);
    return step;
  }
  why = "it has no GPU encoder";
  return nullptr;
}

constexpr uint64_t kAlignment = 256;

uint64_t align_up(uint64_t v) { return (v + kAlignment - 1) / kAlignment * kAlignment; }

}  // namespace

std::unique_ptr<DeviceChunkEncoder> DeviceChunkEncoder::for_chain(const CodecChain& chain,
                                                                  const CodecPlacement& placement) {
  const auto& b2b = chain.bytes_to_bytes();
  if (b2b.empty()) return nullptr;  // nothing to encode: the CPU path copies the bytes
  bool asked = false;               // some codec of the chain is placed on the GPU
  bool all_gpu = true;
  for (const auto& codec : b2b) {
    const Placement p = placement.of(codec->name());
    asked = asked || p == Placement::gpu;
    // Automatic placement keeps the CPU encoders: the GPU LZ4 and blosc encoders run one thread
    // per stream, slower than the CPU's cores today.
    all_gpu = all_gpu && p == Placement::gpu;
  }
  if (!all_gpu) {
    if (asked) {
      std::string names;
      for (const auto& codec : b2b)
        if (placement.of(codec->name()) != Placement::gpu)
          names += fmt::format("{}\"{}\"", names.empty() ? "" : ", ", codec->name());
      log_once("device-write-cpu-placed-" + names,
               fmt::format("writes from device memory encode on the CPU where a chain's codecs "
                           "are not all placed on the GPU (not placed there: {})",
                           names));
    }
    return nullptr;
  }
  const auto why_cpu = [&](const std::string& codec, const std::string& why) {
    log_once("device-write-cpu-codec-" + codec + why,
             fmt::format("codec \"{}\" encodes on the CPU for writes from device memory: {}", codec,
                         why));
    return nullptr;
  };
  const auto* bytes = dynamic_cast<const BytesCodec*>(chain.array_to_bytes().get());
  if (!chain.array_to_array().empty() || !bytes)
    return why_cpu(b2b.front()->name(), "the GPU encodes chains of [bytes, bytes -> bytes codecs]");
  const auto& rep = chain.array_to_bytes_representation();
  if (rep.data_type.is_variable_length())
    return why_cpu(b2b.front()->name(), "variable-length data is encoded on the CPU");
  if (bytes->endian() == BytesCodec::Endian::big && rep.data_type.size() > 1)
    return why_cpu(b2b.front()->name(), "big-endian \"bytes\" is encoded on the CPU");
  static_assert(std::endian::native == std::endian::little);

  std::unique_ptr<DeviceChunkEncoder> encoder(new DeviceChunkEncoder());
  std::optional<uint64_t> size = static_cast<uint64_t>(rep.nbytes());
  for (const auto& codec : b2b) {
    std::string why;
    auto step = step_for(*codec, size, why);
    if (!step) return why_cpu(codec->name(), why);
    step->name = codec->name();
    if (size) {
      const auto next = codec->fixed_encoded_size(static_cast<int64_t>(*size));
      size = next ? std::optional<uint64_t>(static_cast<uint64_t>(*next)) : std::nullopt;
    }
    encoder->steps_.push_back(std::move(step));
  }
  return encoder;
}

std::vector<Buffer> DeviceChunkEncoder::encode(std::span<const Buffer> chunks,
                                               std::span<const std::string> labels,
                                               const Stream& stream) const {
  const size_t n = chunks.size();
  if (n == 0) return {};
  std::vector<const std::byte*> inputs(n);
  std::vector<uint64_t> sizes(n);
  for (size_t i = 0; i < n; ++i) {
    inputs[i] = chunks[i].data();
    sizes[i] = chunks[i].size();
  }
  Buffer previous;  // the outputs of the step before (inputs of this one)
  for (const auto& step : steps_) {
    // Each chunk's output space, aligned, in one device buffer.
    std::vector<uint64_t> offsets(n);
    uint64_t total = 0, max_input = 0;
    for (size_t i = 0; i < n; ++i) {
      offsets[i] = total;
      total += align_up(step->max_encoded_size(sizes[i]));
      max_input = std::max(max_input, sizes[i]);
    }
    Buffer output = gpu::device_scratch(static_cast<size_t>(total), stream);
    std::vector<gpu::DeviceChunkRef> refs(n);
    for (size_t i = 0; i < n; ++i) {
      refs[i] = {inputs[i], sizes[i], output.data() + offsets[i], step->max_encoded_size(sizes[i])};
    }
    gpu::DeviceBatchTables tables(refs, stream);
    Buffer temp = gpu::device_scratch(step->temp_bytes(n, max_input), stream);
    step->encode(tables.batch(), temp.data(), max_input, stream);
    tables.fetch_results();
    for (size_t i = 0; i < n; ++i) {
      if (tables.status(i) != gpu::DeviceChunkStatus::ok) {
        throw InvalidArgumentError(fmt::format("{}: codec \"{}\" (encoded on the GPU): {}",
                                               labels[i], step->name,
                                               gpu::device_chunk_status_message(tables.status(i))));
      }
      const uint64_t produced = tables.output_size(i);
      if (produced > refs[i].output_capacity) {
        throw InvalidArgumentError(
            fmt::format("{}: codec \"{}\" (encoded on the GPU) reports {} bytes, above its "
                        "bound of {}",
                        labels[i], step->name, produced, refs[i].output_capacity));
      }
      inputs[i] = output.data() + offsets[i];
      sizes[i] = produced;
    }
    previous = std::move(output);  // the step before's outputs are no longer needed
  }
  // Only the encoded bytes cross to the host, packed into one pinned buffer.
  std::vector<uint64_t> at(n);
  uint64_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    at[i] = total;
    total += sizes[i];
  }
  Buffer host = Buffer::allocate(static_cast<size_t>(std::max<uint64_t>(total, 1)),
                                 MemoryKind::pinned, stream);
  for (size_t i = 0; i < n; ++i) {
    if (sizes[i] == 0) continue;
    copy_bytes(host.data() + at[i], MemoryKind::pinned, inputs[i], MemoryKind::device,
               static_cast<size_t>(sizes[i]), stream);
  }
  stream.synchronize();
  std::vector<Buffer> encoded(n);
  for (size_t i = 0; i < n; ++i)
    encoded[i] = host.slice(static_cast<size_t>(at[i]), static_cast<size_t>(sizes[i]));
  return encoded;
}
#else
std::unique_ptr<DeviceChunkEncoder> DeviceChunkEncoder::for_chain(const CodecChain&,
                                                                  const CodecPlacement&) {
  return nullptr;
}

std::vector<Buffer> DeviceChunkEncoder::encode(std::span<const Buffer>,
                                               std::span<const std::string>, const Stream&) const {
  throw UnsupportedError("encoding on the GPU needs CUDA support in this build");
}
#endif

}  // namespace cuzarr
