// What the GPU's deflate decoders meet in zlib's output of the benchmarks' data: literals and
// matches per KiB of output, the mean match length, and how many decoded codes are longer than a
// primary table of a given size resolves (literal/length codes past 9 and 10 bits, distance codes
// past 8, 9 and 10 bits: kHuffmanFastBits and kDistanceFastBits in deflate_huffman.hpp), and the
// waves the GPU's match copies take (a model of warp_match_waves over groups of 32 matches in
// stream order: a match waits while an earlier pending match of its group writes a byte of its
// source), also with sources redirected through pending matches (a source range wholly inside
// one moves back by its distance; docs/gpu_deflate.md, "Match copies in fewer waves"). Decoded
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

/// A match of the output: `length` bytes at `at`, from `distance` back.
struct Match {
  uint64_t at, length, distance;
};

struct Counts {
  uint64_t literals = 0, literal_past[2] = {};  // codes of more than 9, 10 bits
  uint64_t matches = 0, match_bytes = 0, length_past_10 = 0;
  uint64_t distance_past[3] = {};      // codes of more than 8, 9, 10 bits
  uint64_t groups = 0, waves[2] = {};  // groups of 32 matches; their waves waiting, redirected
};

/// The waves that copy a group of matches (stream order, disjoint outputs): each wave copies the
/// pending matches whose source ranges no pending match writes. With `redirect`, a range wholly
/// inside one pending match's output first moves back by that match's distance (as often as
/// that holds; by the largest multiple that keeps it in the match's own source).
uint64_t copy_waves(const Match* m, size_t n, bool redirect) {
  std::vector<uint64_t> from(n), to(n);
  std::vector<char> pending(n, 1);
  for (size_t i = 0; i < n; ++i) {
    from[i] = m[i].at - m[i].distance;
    to[i] = std::min(from[i] + m[i].length, m[i].at);
  }
  uint64_t waves = 0;
  for (size_t left = n; left > 0; ++waves) {
    std::vector<char> ready(n, 0);
    for (size_t i = 0; i < n; ++i) {
      if (!pending[i]) continue;
      for (;;) {
        size_t blocker = n;  // the last pending match before i that starts before the range ends
        for (size_t k = 0; k < i; ++k) {
          if (pending[k] && m[k].at < to[i]) blocker = k;
        }
        if (blocker == n || m[blocker].at + m[blocker].length <= from[i]) {
          ready[i] = 1;
          break;
        }
        const Match& b = m[blocker];
        if (!redirect || from[i] < b.at || to[i] > b.at + b.length) break;
        const uint64_t back = ((from[i] - b.at) / b.distance + 1) * b.distance;
        from[i] -= back;
        to[i] -= back;
      }
    }
    for (size_t i = 0; i < n; ++i) {
      if (ready[i]) {
        pending[i] = 0;
        --left;
      }
    }
  }
  return waves;
}

/// Takes every literal and match of inflate_next_to, counting the code length of each while the
/// block's tables are current.
struct CountingSink {
  const InflateWorkspace* ws;
  unsigned char* out;
  Counts* counts;
  std::vector<Match>* matches;
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
    matches->push_back({op, length, distance});
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
  std::printf("%-8s %5s %6s %9s %8s %9s %7s %7s %8s %7s %7s %7s %8s %10s\n", "data", "level",
              "ratio", "literals", "matches", "mean len", "lit>9", "lit>10", "len>10", "dist>8",
              "dist>9", "dist>10", "waves/32", "redirected");
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
        std::vector<Match> matches;
        CountingSink sink{ws.get(), out.data(), &c, &matches};
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
        for (size_t g = 0; g < matches.size(); g += 32) {
          const size_t n = std::min<size_t>(32, matches.size() - g);
          ++c.groups;
          for (const bool redirect : {false, true})
            c.waves[redirect ? 1 : 0] += copy_waves(matches.data() + g, n, redirect);
        }
      }
      const double kib = static_cast<double>(chunk * chunks) / 1024.0;
      const auto pct = [](uint64_t n, uint64_t of) { return of ? 100.0 * n / of : 0.0; };
      std::printf(
          "%-8s %5d %6.2f %9.0f %8.0f %9.2f %6.2f%% %6.2f%% %7.2f%% %6.2f%% %6.2f%% %6.2f%% %8.2f "
          "%10.2f\n",
          is_float ? "float32" : "uint16", level, static_cast<double>(chunk * chunks) / in_bytes,
          c.literals / kib, c.matches / kib, c.matches ? double(c.match_bytes) / c.matches : 0.0,
          pct(c.literal_past[0], c.literals), pct(c.literal_past[1], c.literals),
          pct(c.length_past_10, c.matches), pct(c.distance_past[0], c.matches),
          pct(c.distance_past[1], c.matches), pct(c.distance_past[2], c.matches),
          static_cast<double>(c.waves[0]) / c.groups, static_cast<double>(c.waves[1]) / c.groups);
    }
  }
  return 0;
}
