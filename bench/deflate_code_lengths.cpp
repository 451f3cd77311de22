// What the GPU's deflate decoders meet in zlib's output of the benchmarks' data: literals and
// matches per KiB of output, the mean match length, and how many decoded codes are longer than a
// primary table of a given size resolves (literal/length codes past 9 and 10 bits, distance codes
// past 8, 9 and 10 bits: kHuffmanFastBits and kDistanceFastBits in deflate_huffman.hpp). Decoded
// with the serial decoder; every chunk is checked against its input.
// usage: cuzarr_deflate_code_lengths [chunk MiB (default 4)] [chunks (default 2)]   (CPU only)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "bench_data.hpp"
#include "codec/cuda/inflate_format.hpp"

namespace {

using namespace cuzarr::gpu;
using cuzarr::bench::make_field;
using cuzarr::bench::zlib_compress;

constexpr int kRawWindowBits = -15;

/// The code length of `symbol` in a built table (0 when it has no code).
template <class Table>
uint32_t code_length(const Table& t, uint32_t symbol) {
  for (uint32_t len = 1; len <= kHuffmanMaxBits; ++len) {
    for (uint32_t i = t.first_index[len]; i < t.first_index[len] + t.count[len]; ++i) {
      if (t.symbols[i] == symbol) return len;
    }
  }
  return 0;
}

uint32_t length_symbol(uint32_t length) {  // RFC 1951, 3.2.5
  uint32_t i = 28;
  while (deflate_length_base(i) > length) --i;
  return 257 + i;
}

uint32_t distance_symbol(uint32_t distance) {
  uint32_t i = 29;
  while (deflate_distance_base(i) > distance) --i;
  return i;
}

struct Counts {
  uint64_t literals = 0, literal_past[2] = {};  // codes of more than 9, 10 bits
  uint64_t matches = 0, match_bytes = 0, length_past_10 = 0;
  uint64_t distance_past[3] = {};  // codes of more than 8, 9, 10 bits
};

/// Takes every literal and match of inflate_next_to, counting the code length of each while the
/// block's tables are current.
struct CountingSink {
  const InflateWorkspace* ws;
  unsigned char* out;
  Counts* counts;
  static constexpr bool full() { return false; }
  static constexpr void decode_fast(InflateStream&, const InflateWorkspace&, uint64_t) {}
  void put(uint64_t op, unsigned char byte) {
    out[op] = byte;
    const uint32_t len = code_length(ws->litlen, byte);
    ++counts->literals;
    counts->literal_past[0] += len > 9;
    counts->literal_past[1] += len > 10;
  }
  bool take_match(uint64_t op, uint32_t length, uint32_t distance) {
    ++counts->matches;
    counts->match_bytes += length;
    counts->length_past_10 += code_length(ws->litlen, length_symbol(length)) > 10;
    const uint32_t len = code_length(ws->distance, distance_symbol(distance));
    for (uint32_t k = 0; k < 3; ++k) counts->distance_past[k] += len > 8 + k;
    for (uint32_t t = 0; t < length; ++t) out[op + t] = out[op + t - distance];
    return true;
  }
};

}  // namespace

int main(int argc, char** argv) {
  const size_t chunk = (argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 4) << 20;
  const size_t chunks = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 2;
  if (chunk == 0 || chunks == 0) {
    std::fprintf(stderr, "usage: %s [chunk MiB] [chunks]\n", argv[0]);
    return 2;
  }
  std::printf("%zu chunks of %zu KiB, raw deflate; per KiB of output; %% of literals / matches\n",
              chunks, chunk >> 10);
  std::printf("%-8s %5s %6s %9s %8s %9s %7s %7s %8s %7s %7s %7s\n", "data", "level", "ratio",
              "literals", "matches", "mean len", "lit>9", "lit>10", "len>10", "dist>8", "dist>9",
              "dist>10");
  for (const bool is_float : {false, true}) {
    const std::vector<unsigned char> data = make_field(chunk * chunks, is_float, 1);
    for (const int level : {1, 6}) {
      Counts c;
      uint64_t in_bytes = 0;
      for (size_t k = 0; k < chunks; ++k) {
        const unsigned char* input = data.data() + k * chunk;
        const std::vector<unsigned char> z = zlib_compress(input, chunk, level, kRawWindowBits);
        in_bytes += z.size();
        std::vector<unsigned char> out(chunk);
        auto ws = std::make_unique<InflateWorkspace>();
        InflateStream s;
        inflate_begin(s, *ws, z.data(), z.size(), 0, 0);
        CountingSink sink{ws.get(), out.data(), &c};
        for (;;) {
          InflateStep step;
          if (inflate_next_to(s, *ws, sink, chunk, step) != DeviceChunkStatus::ok) {
            std::fprintf(stderr, "chunk %zu did not decode\n", k);
            return 1;
          }
          if (step.end) break;
          inflate_execute_serial(step, z.data(), out.data());  // a stored block
        }
        if (s.op != chunk || !std::equal(out.begin(), out.end(), input)) {
          std::fprintf(stderr, "chunk %zu decoded to other bytes\n", k);
          return 1;
        }
      }
      const double kib = static_cast<double>(chunk * chunks) / 1024.0;
      const auto pct = [](uint64_t n, uint64_t of) { return of ? 100.0 * n / of : 0.0; };
      std::printf(
          "%-8s %5d %6.2f %9.0f %8.0f %9.2f %6.2f%% %6.2f%% %7.2f%% %6.2f%% %6.2f%% %6.2f%%\n",
          is_float ? "float32" : "uint16", level, static_cast<double>(chunk * chunks) / in_bytes,
          c.literals / kib, c.matches / kib, c.matches ? double(c.match_bytes) / c.matches : 0.0,
          pct(c.literal_past[0], c.literals), pct(c.literal_past[1], c.literals),
          pct(c.length_past_10, c.matches), pct(c.distance_past[0], c.matches),
          pct(c.distance_past[1], c.matches), pct(c.distance_past[2], c.matches));
    }
  }
  return 0;
}
