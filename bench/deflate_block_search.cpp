// How well can a deflate stream be split for parallel decoding without decoding it first? The
// measurements behind the design of block-parallel inflate (docs/gpu_deflate.md), on zlib's output
// of the benchmarks' data:
//   1. block boundaries: the true ones (zlib's inflate stopping at each block, Z_BLOCK), and the
//      candidates that a search over every bit offset finds with the decoder's own checks of a
//      dynamic block header (BFINAL 0, BTYPE 2, counts, the code length code, the run-length coded
//      lengths, both codes complete): how many candidates are not true boundaries;
//   2. decoding from a true boundary without the 32 KiB before it: how many of the bytes it
//      produces depend on that unknown window (copied from it, directly or through earlier
//      matches), in the first 64 KiB after the boundary;
//   3. what the GPU's block search scans in each input segment of kInflateBpSegmentBytes after the
//      first: the distance from its start to the first boundary, and how far the search reads
//      before it stops, with a queue of 32 candidates (its first queue) and of 8 (its queue now,
//      kInflateBpSearchQueue in warp_inflate_bp_search).
// usage: cuzarr_deflate_block_search [chunk MiB]   (CPU only)
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "bench_data.hpp"
#include "codec/cuda/inflate_block_parallel.hpp"
#include "codec/cuda/inflate_block_search.hpp"
#include "codec/cuda/inflate_format.hpp"

namespace {

using namespace cuzarr::gpu;
using cuzarr::bench::make_field;
using cuzarr::bench::zlib_compress;

constexpr int kRawWindowBits = -15;
constexpr uint64_t kWindow = 32768;  // deflate's largest distance (RFC 1951, 3.2.5)

/// Bit offsets of every block's first bit (zlib's inflate with Z_BLOCK).
std::vector<uint64_t> true_block_starts(const std::vector<unsigned char>& stream, size_t out_size) {
  std::vector<uint64_t> starts{0};
  std::vector<unsigned char> out(out_size + 1);
  z_stream z{};
  if (inflateInit2(&z, kRawWindowBits) != Z_OK) std::exit(2);
  z.next_in = const_cast<Bytef*>(stream.data());
  z.avail_in = static_cast<uInt>(stream.size());
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  for (;;) {
    const int r = inflate(&z, Z_BLOCK);
    if (r == Z_STREAM_END) break;
    if (r != Z_OK) std::exit(2);
    // zlib.h, Z_BLOCK: data_type holds the unused bits of the last input byte, +128 right after an
    // end-of-block code (+64 while in the last block).
    if ((z.data_type & 128) != 0 && (z.data_type & 64) == 0)
      starts.push_back(uint64_t{z.total_in} * 8 - static_cast<uint64_t>(z.data_type & 7));
  }
  inflateEnd(&z);
  return starts;
}

/// Whether a non-final dynamic block header with valid codes starts at bit `at`.
bool dynamic_header_at(const std::vector<unsigned char>& stream, uint64_t at,
                       InflateWorkspace& ws) {
  InflateStream s;
  inflate_begin(s, ws, stream.data(), stream.size(), at / 8, 0);
  s.bits.refill();
  s.bits.consume(static_cast<uint32_t>(at % 8));
  if (s.bits.bits(3) != 4) return false;  // BFINAL 0, BTYPE 2 (RFC 1951, 3.2.3: LSB first)
  return detail::read_dynamic_codes(s, ws) == DeviceChunkStatus::ok;
}

/// Bits the GPU's block search reads from `from` (a segment's start) before it stops, with a queue
/// of `queue` candidates: offsets that pass inflate_dynamic_header_may_start are queued in stream
/// order and fully tested when the queue is full or the segment ends, and the search stops at the
/// first queue that holds `boundary` (no false candidate passes the full test: column "false").
uint64_t search_scan_bits(const std::vector<unsigned char>& stream, uint64_t from,
                          uint64_t boundary, unsigned queue) {
  const uint64_t end = std::min<uint64_t>(stream.size() * 8, from + kInflateBpSegmentBytes * 8);
  unsigned pending = 0;
  bool holds_boundary = false;
  for (uint64_t at = from; at < end; ++at) {
    if (!inflate_dynamic_header_may_start(stream.data(), stream.size(), at)) continue;
    holds_boundary = holds_boundary || at == boundary;
    if (++pending < queue) continue;
    if (holds_boundary) return at + 1 - from;
    pending = 0;
  }
  return end - from;
}

/// Mean and most, in KiB, over the segments.
struct Spread {
  double sum = 0, most = 0;
  uint64_t n = 0;
  void add(uint64_t bits) {
    const double kib = static_cast<double>(bits) / 8.0 / 1024.0;
    sum += kib;
    most = std::max(most, kib);
    ++n;
  }
  double mean() const { return n ? sum / static_cast<double>(n) : 0.0; }
};

struct Taint {
  uint64_t produced = 0;  // bytes decoded from the boundary (at most kSpan)
  uint64_t tainted = 0;   // of these, bytes that depend on the unknown window
  uint64_t last_tainted = 0;
};

/// Decodes from the block starting at bit `at` for up to kSpan bytes with the 32 KiB before it
/// unknown: a match byte copied from the unknown window, or from a tainted byte, is tainted.
Taint decode_without_window(const std::vector<unsigned char>& stream, uint64_t at,
                            InflateWorkspace& ws) {
  constexpr uint64_t kSpan = 65536;
  std::vector<unsigned char> out(kWindow + kSpan + 258, 0);
  std::vector<unsigned char> taint(out.size(), 0);
  for (uint64_t k = 0; k < kWindow; ++k) taint[k] = 1;
  InflateStream s;
  inflate_begin(s, ws, stream.data(), stream.size(), at / 8, kWindow);
  s.window_start = 0;  // distances may reach into the (unknown) window
  s.bits.refill();
  s.bits.consume(static_cast<uint32_t>(at % 8));
  Taint t;
  while (s.op < kWindow + kSpan) {
    InflateStep step;
    if (inflate_next(s, ws, out.data(), out.size(), step) != DeviceChunkStatus::ok || step.end)
      break;
    for (uint64_t k = 0; k < step.length; ++k) {
      const uint64_t dst = step.out_pos + k;
      taint[dst] = step.distance == 0 ? 0 : taint[dst - step.distance];
    }
  }
  const uint64_t end = s.op < kWindow + kSpan ? s.op : kWindow + kSpan;
  for (uint64_t k = kWindow; k < end; ++k) {
    if (taint[k] != 0) {
      ++t.tainted;
      t.last_tainted = k - kWindow;
    }
  }
  t.produced = end - kWindow;
  return t;
}

void measure(const char* name, const std::vector<unsigned char>& data, int level) {
  const std::vector<unsigned char> stream =
      zlib_compress(data.data(), data.size(), level, kRawWindowBits);
  const std::vector<uint64_t> starts = true_block_starts(stream, data.size());
  auto ws = std::make_unique<InflateWorkspace>();

  const auto t0 = std::chrono::steady_clock::now();
  uint64_t candidates = 0, true_found = 0;
  size_t next_true = 1;  // starts[0] is the stream's own start
  for (uint64_t at = 1; at + 64 < stream.size() * 8; ++at) {
    while (next_true < starts.size() && starts[next_true] < at) ++next_true;
    if (!dynamic_header_at(stream, at, *ws)) continue;
    ++candidates;
    if (next_true < starts.size() && starts[next_true] == at) ++true_found;
  }
  const double search_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  uint64_t produced = 0, tainted = 0, last_tainted_max = 0, blocks = 0;
  for (size_t b = 1; b < starts.size(); ++b) {
    const Taint t = decode_without_window(stream, starts[b], *ws);
    produced += t.produced;
    tainted += t.tainted;
    if (t.last_tainted > last_tainted_max) last_tainted_max = t.last_tainted;
    ++blocks;
  }
  Spread to_boundary, queue32, queue8;
  for (uint64_t from = kInflateBpSegmentBytes * 8; from < stream.size() * 8;
       from += kInflateBpSegmentBytes * 8) {
    const auto next = std::lower_bound(starts.begin(), starts.end(), from);
    if (next == starts.end()) break;
    to_boundary.add(*next - from);
    queue32.add(search_scan_bits(stream, from, *next, 32));
    queue8.add(search_scan_bits(stream, from, *next, 8));
  }
  const double block_kib =
      static_cast<double>(stream.size()) / static_cast<double>(starts.size()) / 1024.0;
  std::printf(
      "%-8s L%d %9zu %8.2f %7zu %9.1f %11llu %10llu %9.1f %10.2f %12.1f %6.1f %9.1f / %4.1f %8.1f "
      "/ "
      "%4.1f\n",
      name, level, stream.size(),
      static_cast<double>(data.size()) / static_cast<double>(stream.size()), starts.size(),
      block_kib, static_cast<unsigned long long>(candidates),
      static_cast<unsigned long long>(candidates - true_found),
      search_s * 1e3 / (static_cast<double>(stream.size()) / 1048576.0),
      blocks ? 100.0 * static_cast<double>(tainted) / static_cast<double>(produced) : 0.0,
      static_cast<double>(last_tainted_max) / 1024.0, to_boundary.mean(), queue32.mean(),
      queue32.most, queue8.mean(), queue8.most);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const size_t mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 4;
  if (mib == 0) {
    std::fprintf(stderr, "usage: %s [chunk MiB > 0]\n", argv[0]);
    return 2;
  }
  std::printf("deflate block search: one %zu MiB chunk per row, zlib raw deflate\n", mib);
  std::printf("%-8s %3s %9s %8s %7s %9s %11s %10s %9s %10s %12s %6s %16s %15s\n", "data", "lvl",
              "stream B", "ratio", "blocks", "KiB/blk", "candidates", "false", "ms/MiB",
              "tainted %", "last KiB", "to blk", "read, queue 32", "read, queue 8");
  for (bool is_float : {false, true}) {
    const std::vector<unsigned char> data = make_field(mib << 20, is_float, 3);
    for (int level : {1, 6}) measure(is_float ? "float32" : "uint16", data, level);
  }
  std::printf(
      "candidates: bit offsets where a non-final dynamic header with valid codes starts (true "
      "boundaries included); false: of these, not a boundary; tainted %%: bytes of the first 64 "
      "KiB after each boundary that depend on the 32 KiB before it; last KiB: the furthest such "
      "byte; to blk: KiB from each 128 KiB segment's start (after the first) to the first "
      "boundary, mean; read, queue N: KiB the GPU's search reads there with a queue of N "
      "candidates, mean / most\n");
  return 0;
}
