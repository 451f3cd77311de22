#include "pipeline/direct_chunk_read.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "codec/strided_byte_writer.hpp"
#include "cuzarr/codec/bytes_codec.hpp"
#include "cuzarr/codec/numcodecs_delta_codec.hpp"
#include "cuzarr/core/error.hpp"
#include "pipeline/raw_chunk_reads.hpp"

namespace cuzarr {
namespace {

// The codecs of a chain read_chunk_into_place takes: an optional numcodecs.delta with dtype ==
// astype (its running sum is then taken in place), "bytes" with no byte swap, and at most one
// compressor.
struct DirectChain {
  bool readable = false;
  const NumcodecsDeltaCodec* delta = nullptr;
  const BytesToBytesCodec* compressor = nullptr;
};

DirectChain direct_chain(const CodecChain& chain) {
  DirectChain d;
  const auto& rep = chain.decoded_representation();
  const auto& a2a = chain.array_to_array();
  if (a2a.size() > 1 || chain.bytes_to_bytes().size() > 1 || rep.data_type.is_variable_length())
    return d;
  if (a2a.size() == 1) {
    d.delta = dynamic_cast<const NumcodecsDeltaCodec*>(a2a[0].get());
    if (!d.delta || d.delta->dtype() != d.delta->astype()) return d;
  }
  const auto* bytes = dynamic_cast<const BytesCodec*>(chain.array_to_bytes().get());
  if (!bytes || bytes->needs_swap(rep.data_type)) return d;
  if (!chain.bytes_to_bytes().empty()) d.compressor = chain.bytes_to_bytes()[0].get();
  d.readable = true;
  return d;
}

}  // namespace

bool reads_chunks_into_place(const CodecChain& chain) { return direct_chain(chain).readable; }

DirectChunkRead read_chunk_into_place(const Store& store, const std::string& key,
                                      const CodecChain& chain, const NDBuffer& place,
                                      ScratchPool<Buffer>& scratch) {
  const auto& rep = chain.decoded_representation();
  const auto nbytes = static_cast<size_t>(rep.nbytes());
  if (place.shape() != rep.shape || place.dtype().size() != rep.data_type.size() ||
      !is_host_accessible(place.kind())) {
    return DirectChunkRead::declined;
  }
  const auto found = [](ReadIntoResult r) {
    return r == ReadIntoResult::read     ? DirectChunkRead::done
           : r == ReadIntoResult::absent ? DirectChunkRead::absent
                                         : DirectChunkRead::declined;
  };
  const DirectChain direct = direct_chain(chain);
  if (!direct.readable) return DirectChunkRead::declined;
  // The elements in place, then the delta's running sum over them where the chain has one.
  const auto in_place = [&](DirectChunkRead read) {
    if (read == DirectChunkRead::done && direct.delta)
      direct.delta->decode_in_place(c_order_byte_runs(place));
    return read;
  };
  if (!direct.compressor) return in_place(found(store.read_into(key, c_order_byte_runs(place))));

  const BytesToBytesCodec* codec = direct.compressor;
  const auto size = store.size(key);
  if (!size) return DirectChunkRead::absent;
  // A chunk whose encoded size is out of all proportion goes the usual way (which bounds it).
  if (*size > 2 * static_cast<uint64_t>(nbytes) + (uint64_t{1} << 20))
    return DirectChunkRead::declined;
  // Streaming decoders read the encoded bytes piece by piece too: no buffer of the chunk's size
  // on either side. The others (and chunks a streaming decoder declines) are read whole into a
  // scratch buffer reused from chunk to chunk.
  try {
    uint64_t offset = 0;
    const auto source = [&](std::span<std::byte> piece) {
      const size_t n = store.read_at(key, offset, piece);
      offset += n;
      return n;
    };
    StridedByteWriter writer(place);
    if (codec->decode_stream_to_sink(
            static_cast<size_t>(*size), source, nbytes,
            [&](std::span<const std::byte> piece) { writer.write(piece); }))
      return in_place(DirectChunkRead::done);
  } catch (const Error& e) {
    throw_error(e.code(), fmt::format("chunk \"{}\": {}", key, e.what()));
  }
  const auto buffer = scratch.take();
  if (buffer->size() < *size) {
    // Some slack, so that slightly larger chunks later reuse the buffer.
    *buffer = Buffer::allocate(static_cast<size_t>(*size + *size / 8));
  }
  const std::span<std::byte> encoded = buffer->bytes().first(static_cast<size_t>(*size));
  const std::span<std::byte> targets[1] = {encoded};
  const DirectChunkRead read = found(store.read_into(key, targets));
  if (read != DirectChunkRead::done) return read;
  try {
    bool decoded = false;
    if (place.is_c_contiguous()) {
      decoded = codec->decode_into(encoded, std::span(place.data(), nbytes), rep, 1);
    } else {
      StridedByteWriter writer(place);
      decoded = codec->decode_to_sink(
          encoded, nbytes, [&](std::span<const std::byte> piece) { writer.write(piece); });
    }
    return in_place(decoded ? DirectChunkRead::done : DirectChunkRead::declined);
  } catch (const Error& e) {
    throw_error(e.code(), fmt::format("chunk \"{}\": {}", key, e.what()));
  }
}

}  // namespace cuzarr
