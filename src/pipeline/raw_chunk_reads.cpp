#include "pipeline/raw_chunk_reads.hpp"

#include "cuzarr/codec/bytes_codec.hpp"

namespace cuzarr {

bool stores_raw_elements(const CodecChain& chain) {
  const auto& rep = chain.decoded_representation();
  if (!chain.array_to_array().empty() || !chain.bytes_to_bytes().empty() ||
      rep.data_type.is_variable_length()) {
    return false;
  }
  const auto* bytes = dynamic_cast<const BytesCodec*>(chain.array_to_bytes().get());
  return bytes && !bytes->needs_swap(rep.data_type);
}

std::vector<std::span<std::byte>> c_order_byte_runs(const NDBuffer& view) {
  std::vector<std::span<std::byte>> runs;
  if (view.size() == 0) return runs;
  const Shape& shape = view.shape();
  const auto& strides = view.byte_strides();
  // The innermost dimensions whose elements follow one another form one run.
  int64_t run = static_cast<int64_t>(view.dtype().size());
  size_t outer = shape.size();
  while (outer > 0 && strides[outer - 1] == run) {
    run *= shape[outer - 1];
    --outer;
  }
  int64_t count = 1;
  for (size_t d = 0; d < outer; ++d) count *= shape[d];
  runs.reserve(static_cast<size_t>(count));
  Index index(outer, 0);
  std::byte* at = view.data();
  for (int64_t r = 0; r < count; ++r) {
    runs.emplace_back(at, static_cast<size_t>(run));
    // The next index in C order, moving `at` along.
    for (size_t d = outer; d-- > 0;) {
      at += strides[d];
      if (++index[d] < shape[d]) break;
      at -= strides[d] * index[d];
      index[d] = 0;
    }
  }
  return runs;
}

}  // namespace cuzarr
