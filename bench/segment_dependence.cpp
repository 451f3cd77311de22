// How much of an LZ4 block or a zstd frame could be decoded in independent pieces? The numbers
// behind the pieces of the block-parallel LZ4 decoder (docs/gpu_codecs.md) and the matches pass of
// the block-parallel zstd decoder (docs/gpu_zstd.md), on liblz4's and libzstd's output of the
// benchmarks' data. The output is cut into segments of S bytes at sequence starts. Inside
// a segment, each byte is a literal, or a match byte whose source is resolved through the
// segment's earlier bytes: it ends at a literal of the segment ("local") or at a byte before the
// segment's start ("external"). A decoder that ran every segment at once would leave the external
// bytes to a second pass, segment after segment (or in rounds that follow each external byte to
// the segment its source resolves in). Printed per segment size: the share of external bytes, the
// segments that have any, and how many segments back a byte's value comes from at most and on
// average (the chain a round-based second pass would follow). Then, for segments of 32 and 128
// KiB taken as zstd blocks run a warp each: the matches that read earlier blocks (and those
// whose source there is a match byte), the chase steps of the bytes they read, and a model of
// the matches pass counted in steps of 32 sequences (docs/gpu_zstd.md, "Matches in order"); last,
// how the sequences spread over 128 KiB segments, and what cutting those into pieces of a bounded
// number of sequences would leave to chase; what pieces of 256 KiB to 1 MiB decoded at once would
// leave to replay in order (the matches that read before their piece, or read what such a match
// wrote); and the warp executors' groups of 32 sequences (their
// waves and the lanes' copy rounds they take, how many groups back their matches read, how many
// match bytes a window of the recent output holds the sources of, and a model of a team of
// executors taking them in turn). For LZ4, last: what the window parser of the warp decoders
// (lz4_warp_decode.cuh) does with the block, window by window, and what the span parser of the
// team's parser (lz4_span_parse.cuh) does with it, span by span, for several limits on the lanes'
// overruns. Data: the quantized uint16 field, the uint16 field, "delta": the float32 field
// delta-encoded as numcodecs.delta does (runs of small, repeated byte patterns), or "labels": a
// uint32 label volume (ids constant over blobs); or "file:PATH": the first `chunk` bytes of a file
// (a chunk of the read benchmark's array, say).
// "lz4" compresses with liblz4, "lz4-cuzarr" with cuzarr's GPU encoder (run on the CPU), whose
// blocks cuzarr_gpu_codec_throughput decodes.
// usage: cuzarr_segment_dependence [lz4 | lz4-cuzarr | zstd LEVEL] [chunk KiB]
//        [quantized|field|delta|labels|file:PATH]   (CPU only)
#include <lz4.h>
#include <zstd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "bench_data.hpp"
#include "codec/cuda/lz4_block_format.hpp"
#include "codec/cuda/lz4_span_tokens.hpp"
#include "codec/cuda/zstd_frame_format.hpp"

namespace {

using cuzarr::gpu::CopyStep;
using cuzarr::gpu::DeviceChunkStatus;

/// Where each output byte of an LZ4 block comes from: -1 for a literal, else the output position
/// it copies.
std::vector<int64_t> lz4_byte_sources(const std::vector<char>& block, size_t out_size,
                                      std::vector<uint64_t>& sequence_starts) {
  std::vector<int64_t> source(out_size, -1);
  const auto* in = reinterpret_cast<const unsigned char*>(block.data());
  uint64_t ip = 0, op = 0;
  while (ip < block.size()) {
    CopyStep step;
    sequence_starts.push_back(op);
    if (cuzarr::gpu::lz4_parse_sequence(in, block.size(), ip, op, out_size, step) !=
        DeviceChunkStatus::ok) {
      std::fprintf(stderr, "liblz4's block does not parse\n");
      std::exit(2);
    }
    op += step.literal_length;
    if (step.last) break;
    for (uint64_t t = 0; t < step.match_length; ++t)
      source[op + t] = static_cast<int64_t>(op + t - step.match_distance);
    op += step.match_length;
  }
  return source;
}

/// The same for a zstd frame (our serial decoder's copy steps).
std::vector<int64_t> zstd_byte_sources(const std::vector<char>& frame, size_t out_size,
                                       std::vector<uint64_t>& sequence_starts) {
  std::vector<int64_t> source(out_size, -1);
  std::vector<unsigned char> out(out_size);
  auto workspace = std::make_unique<cuzarr::gpu::ZstdWorkspace>();
  cuzarr::gpu::ZstdFrameDecoder decoder;
  decoder.init(reinterpret_cast<const unsigned char*>(frame.data()), frame.size(), out.data(),
               out_size, workspace.get(), false);
  for (;;) {
    cuzarr::gpu::ZstdStep step;
    bool done = false;
    if (decoder.next(step, done) != DeviceChunkStatus::ok) {
      std::fprintf(stderr, "libzstd's frame does not decode\n");
      std::exit(2);
    }
    if (done) break;
    for (unsigned k = 0; k < step.huffman_streams; ++k) {
      if (cuzarr::gpu::zstd_decode_literal_stream(workspace->literals, k) !=
          DeviceChunkStatus::ok) {
        std::exit(2);
      }
    }
    if (step.huffman_streams > 0) continue;
    sequence_starts.push_back(step.op);
    const uint64_t at = step.op + step.literal_length;
    for (uint64_t t = 0; t < step.match_length; ++t)
      source[at + t] = static_cast<int64_t>(cuzarr::gpu::match_source(at, step.match_distance, t));
    cuzarr::gpu::zstd_execute_step_serial(step, out.data());
  }
  return source;
}

/// The segment that starts at sequence s ends before the first sequence that starts
/// segment_bytes or more past it (the output is cut at sequence starts).
size_t segment_end(const std::vector<uint64_t>& sequence_starts, size_t s, size_t segment_bytes) {
  size_t e = s;
  while (e < sequence_starts.size() && sequence_starts[e] < sequence_starts[s] + segment_bytes) ++e;
  return e;
}

void report(const std::vector<int64_t>& source, const std::vector<uint64_t>& sequence_starts,
            size_t segment_bytes) {
  const size_t n = source.size();
  // external[p]: the position before p's segment that p's value comes from, or -1 (local).
  // hops[p]: how many segments back the value is finally a literal (0: local).
  std::vector<int64_t> external(n, -1);
  std::vector<uint32_t> segment_of(n), hops(n, 0);
  size_t external_bytes = 0, segments = 0, with_external = 0;
  uint64_t hop_sum = 0;
  uint32_t hop_max = 0;
  size_t s = 0;
  while (s < sequence_starts.size()) {
    const uint64_t start = sequence_starts[s];
    const size_t e = segment_end(sequence_starts, s, segment_bytes);
    const uint64_t end = e < sequence_starts.size() ? sequence_starts[e] : n;
    size_t here = 0;
    for (uint64_t p = start; p < end; ++p) {
      segment_of[p] = static_cast<uint32_t>(segments);
      const int64_t from = source[p];
      if (from < 0) continue;
      if (static_cast<uint64_t>(from) >= start) {
        external[p] = external[from];
        hops[p] = hops[from];
      } else {
        external[p] = from;
        hops[p] = 1 + hops[from];
      }
      if (external[p] >= 0) {
        ++here;
        hop_sum += hops[p];
        hop_max = std::max(hop_max, hops[p]);
      }
    }
    external_bytes += here;
    with_external += here > 0 ? 1 : 0;
    ++segments;
    s = e;
  }
  std::printf(
      "%8zu %9zu %14zu %11.1f %% %9u %9.1f\n", segment_bytes, segments, with_external,
      100.0 * static_cast<double>(external_bytes) / static_cast<double>(n), hop_max,
      external_bytes ? static_cast<double>(hop_sum) / static_cast<double>(external_bytes) : 0.0);
}

/// How long the matches pass would take if each segment of S bytes were a block run by its own
/// warp, 32 sequences (a group) per step, when a group whose match reads a match byte of an
/// earlier block waits (a) until the group of that block that writes the byte is done (blocks
/// publish their progress), (b) until that whole block is done, or (c) chases the byte up to 16
/// steps back (free in this model) and waits as in (a) for the byte it reaches after 16.
/// Printed: the longest chain of steps under each rule, against one block's steps (no waiting
/// at all) and the frame's steps (one warp, in order); before them, the share of matches that
/// read earlier blocks and the chase steps of the bytes they read.
void report_schedule(const std::vector<int64_t>& source,
                     const std::vector<uint64_t>& sequence_starts, size_t segment_bytes) {
  constexpr size_t kGroup = 32;
  const size_t n = source.size();
  // by_*[p]: the step after which match byte p is final (0: a literal, final from the start),
  // under rules (a), (b) and (c).
  std::vector<uint64_t> by_progress(n, 0), by_block(n, 0), by_chase(n, 0);
  // Match steps from each byte to a literal (chase_match_run's steps).
  std::vector<uint32_t> chain(n, 0);
  for (uint64_t p = 0; p < n; ++p) {
    if (source[p] >= 0) chain[p] = 1 + chain[static_cast<size_t>(source[p])];
  }
  constexpr uint32_t kSteps = 16;
  std::vector<uint64_t> block_end_step;  // rule (b): when each block is done
  std::vector<uint64_t> block_first;     // each block's first output position
  uint64_t longest_progress = 0, longest_block = 0, longest_chase = 0, widest = 0, groups = 0;
  size_t s = 0;
  while (s < sequence_starts.size()) {
    const uint64_t start = sequence_starts[s];
    const size_t e = segment_end(sequence_starts, s, segment_bytes);
    uint64_t progress_step = 0, block_step = 0, chase_step = 0, steps = 0;
    for (size_t g = s; g < e; g += kGroup) {
      const uint64_t gs = sequence_starts[g];
      const uint64_t ge = g + kGroup < e               ? sequence_starts[g + kGroup]
                          : e < sequence_starts.size() ? sequence_starts[e]
                                                       : n;
      uint64_t ready_progress = progress_step, ready_block = block_step, ready_chase = chase_step;
      for (uint64_t p = gs; p < ge; ++p) {
        const int64_t from = source[p];
        if (from < 0 || static_cast<uint64_t>(from) >= start) continue;
        ready_progress = std::max(ready_progress, by_progress[from]);
        const size_t k = static_cast<size_t>(
            std::upper_bound(block_first.begin(), block_first.end(), static_cast<uint64_t>(from)) -
            block_first.begin() - 1);
        if (source[from] >= 0) ready_block = std::max(ready_block, block_end_step[k]);
        if (chain[from] >= kSteps) {  // chased kSteps back, then wait for that byte
          uint64_t q = static_cast<uint64_t>(from);
          for (uint32_t i = 0; i < kSteps; ++i) q = static_cast<uint64_t>(source[q]);
          ready_chase = std::max(ready_chase, by_chase[q]);
        }
      }
      chase_step = ready_chase + 1;
      progress_step = ready_progress + 1;
      block_step = ready_block + 1;
      for (uint64_t p = gs; p < ge; ++p) {
        if (source[p] < 0) continue;
        by_progress[p] = progress_step;
        by_block[p] = block_step;
        by_chase[p] = chase_step;
      }
      ++steps;
    }
    block_first.push_back(start);
    block_end_step.push_back(block_step);
    longest_progress = std::max(longest_progress, progress_step);
    longest_block = std::max(longest_block, block_step);
    longest_chase = std::max(longest_chase, chase_step);
    widest = std::max(widest, steps);
    groups += steps;
    s = e;
  }
  uint64_t external = 0, over16 = 0, step_sum = 0;
  uint32_t step_max = 0;
  for (size_t k = 0; k < block_first.size(); ++k) {
    const uint64_t end = k + 1 < block_first.size() ? block_first[k + 1] : n;
    for (uint64_t p = block_first[k]; p < end; ++p) {
      const int64_t from = source[p];
      if (from < 0 || static_cast<uint64_t>(from) >= block_first[k]) continue;
      ++external;
      const uint32_t c = chain[static_cast<size_t>(from)];
      step_sum += c + 1;
      step_max = std::max(step_max, c + 1);
      over16 += c + 1 > 16 ? 1 : 0;
    }
  }
  // Matches whose source starts before their block, and those of them whose source is a match
  // byte there (a chase of two steps or more): as shares of all matches.
  uint64_t matches = 0, external_matches = 0, chained = 0;
  for (size_t k = 0; k < block_first.size(); ++k) {
    const uint64_t end = k + 1 < block_first.size() ? block_first[k + 1] : n;
    for (uint64_t p = block_first[k]; p < end; ++p) {
      if (source[p] < 0 ||
          (p > block_first[k] && source[p - 1] >= 0 && source[p - 1] + 1 == source[p])) {
        continue;  // a literal, or not a match's first byte (approximately)
      }
      ++matches;
      if (static_cast<uint64_t>(source[p]) >= block_first[k]) continue;
      ++external_matches;
      chained += source[static_cast<size_t>(source[p])] >= 0 ? 1 : 0;
    }
  }
  std::printf("  of all matches: %.1f %% read earlier blocks, %.1f %% a match byte there\n",
              matches ? 100.0 * double(external_matches) / double(matches) : 0.0,
              matches ? 100.0 * double(chained) / double(matches) : 0.0);
  std::printf("  chase steps of directly external bytes: max %u avg %.1f, over 16: %.1f %%\n",
              step_max, external ? double(step_sum) / double(external) : 0.0,
              external ? 100.0 * double(over16) / double(external) : 0.0);
  std::printf("%8zu %12llu %12llu %14llu %14llu %14llu\n", segment_bytes,
              static_cast<unsigned long long>(widest), static_cast<unsigned long long>(groups),
              static_cast<unsigned long long>(longest_progress),
              static_cast<unsigned long long>(longest_block),
              static_cast<unsigned long long>(longest_chase));
}

/// How unevenly the sequences fall on segments of S bytes (zstd blocks, for S = 128 KiB): the
/// passes that run a block's sequences one after another (the sequences pass's FSE chain, the
/// matches pass's groups) take as long as their longest block.
void report_sequences_per_segment(const std::vector<uint64_t>& sequence_starts, size_t n,
                                  size_t segment_bytes) {
  std::vector<size_t> counts((n + segment_bytes - 1) / segment_bytes, 0);
  for (uint64_t start : sequence_starts) ++counts[start / segment_bytes];
  std::sort(counts.begin(), counts.end());
  const size_t many = static_cast<size_t>(
      counts.end() - std::lower_bound(counts.begin(), counts.end(), size_t{2048}));
  std::printf(
      "\nsequences per %zu KiB segment: median %zu, 90th percentile %zu, max %zu; %zu of %zu "
      "segments hold 2048 or more\n",
      segment_bytes >> 10, counts[counts.size() / 2], counts[counts.size() * 9 / 10], counts.back(),
      many, counts.size());
}

/// The blocks of S bytes cut further into pieces of at most P sequences (a warp each, a block's
/// pieces at once): the most groups of 32 sequences one warp runs, and the match bytes whose
/// source lies before their piece but inside their block (chased through the block's own
/// earlier pieces, on top of those read from earlier blocks).
void report_pieces(const std::vector<int64_t>& source, const std::vector<uint64_t>& sequence_starts,
                   size_t segment_bytes, size_t piece_sequences) {
  const size_t n = source.size();
  uint64_t widest = 0, inside = 0, before_block = 0;
  size_t s = 0;
  while (s < sequence_starts.size()) {
    const uint64_t block_start = sequence_starts[s];
    const size_t e = segment_end(sequence_starts, s, segment_bytes);
    for (size_t p = s; p < e; p += piece_sequences) {
      const size_t q = std::min(e, p + piece_sequences);
      widest = std::max<uint64_t>(widest, (q - p + 31) / 32);
      const uint64_t start = sequence_starts[p];
      const uint64_t end = q < sequence_starts.size() ? sequence_starts[q] : n;
      for (uint64_t b = start; b < end; ++b) {
        if (source[b] < 0 || static_cast<uint64_t>(source[b]) >= start) continue;
        if (static_cast<uint64_t>(source[b]) >= block_start) {
          ++inside;
        } else {
          ++before_block;
        }
      }
    }
    s = e;
  }
  std::printf(
      "pieces of %zu sequences in %zu KiB blocks: at most %llu groups a warp; match bytes read "
      "before their piece: %.1f %% of the output in their block, %.1f %% in earlier blocks\n",
      piece_sequences, segment_bytes >> 10, static_cast<unsigned long long>(widest),
      100.0 * static_cast<double>(inside) / static_cast<double>(n),
      100.0 * static_cast<double>(before_block) / static_cast<double>(n));
}

/// A block cut into pieces of P bytes of output (at sequence starts), each decoded at once by its
/// own team, with no per-byte marks: a match is *tainted* when it reads before its piece, or reads
/// a line (L bytes, aligned in the output) that a tainted match of the piece wrote. Tainted
/// matches are skipped and replayed in order once the pieces before are final; the rest is right
/// at once, since its sources are. Printed: the tainted sequences and their match bytes (shares
/// of the block) and the most tainted sequences a piece holds: what a split of one block among
/// teams would leave to a second pass that runs the pieces one after the other.
void report_replay(const std::vector<int64_t>& source, const std::vector<uint64_t>& sequence_starts,
                   size_t piece_bytes, size_t line_bytes) {
  const size_t n = source.size();
  uint64_t tainted = 0, tainted_bytes = 0, most = 0, pieces = 0;
  size_t s = 0;
  while (s < sequence_starts.size()) {
    const uint64_t start = sequence_starts[s];
    const size_t e = segment_end(sequence_starts, s, piece_bytes);
    const uint64_t end = e < sequence_starts.size() ? sequence_starts[e] : n;
    std::vector<bool> line((end - start + line_bytes - 1) / line_bytes, false);
    uint64_t here = 0;
    for (size_t q = s; q < e; ++q) {
      const uint64_t q_end = q + 1 < sequence_starts.size() ? sequence_starts[q + 1] : n;
      uint64_t at = sequence_starts[q];
      while (at < q_end && source[at] < 0) ++at;  // the literals
      if (at == q_end || start == 0) continue;    // no match, or the first piece
      const auto from = static_cast<uint64_t>(source[at]);
      const uint64_t length = q_end - at;
      bool bad = from < start;
      // A match reads its own output (distance < length) only after its first `distance` bytes.
      const uint64_t read_end = std::min(from + length, at);
      for (uint64_t b = std::max(from, start); !bad && b < read_end; b += line_bytes) {
        bad = line[(b - start) / line_bytes];
      }
      if (!bad && read_end > start && read_end > std::max(from, start)) {
        bad = line[(read_end - 1 - start) / line_bytes];
      }
      if (!bad) continue;
      ++here;
      tainted_bytes += length;
      for (uint64_t b = at; b < q_end; b += line_bytes) line[(b - start) / line_bytes] = true;
      line[(q_end - 1 - start) / line_bytes] = true;
    }
    tainted += here;
    most = std::max(most, here);
    ++pieces;
    s = e;
  }
  std::printf(
      "pieces of %5zu KiB, lines of %2zu bytes: %llu pieces, tainted sequences %.1f %% of the "
      "block's (%llu), their match bytes %.1f %% of the output; at most %llu in a piece\n",
      piece_bytes >> 10, line_bytes, static_cast<unsigned long long>(pieces),
      100.0 * static_cast<double>(tainted) / static_cast<double>(sequence_starts.size()),
      static_cast<unsigned long long>(tainted),
      100.0 * static_cast<double>(tainted_bytes) / static_cast<double>(n),
      static_cast<unsigned long long>(most));
}

}  // namespace

/// A sequence's match as the warp executors see it (length 0: the sequence has none).
struct GroupMatch {
  uint64_t at, length, source_end;  // the bytes it reads end at source_end (exclusive)
  uint64_t source;
};

/// A model of the LZ4 team kernel (lz4_warp_team_decode.cuh; docs/gpu_codecs.md, "A team of warps
/// per block") with a parser that is never late: executor e of E takes groups e, e + E, ... of 32
/// sequences; a group runs its literals, then its waves (wave_of[k]: the wave of sequence k's
/// match, -1 for none), each one unit of time. A wave starts once the executor's previous phase
/// has ended and every byte its matches read in another executor's group is final (the end of the
/// phase that writes it) plus a hand-over of H units. Printed: units per group for E = 1 to 4, 8
/// and 16 and H = 0, 1, 2 and 4, and the speed-up over one executor: how far more executors could
/// go if the executors, not the parser, set the pace (with many executors, the block's chain of
/// dependent phases sets it). (Holding group g back until every group up to g - 7
/// has finished, as the parser's ring of 224 steps does, changed none of the numbers on the
/// quantized and uint16 fields.) Then the same with each group dealt to the executor on which it
/// would end first (an oracle that knows every phase's end): how much dealing groups by their
/// dependencies instead of in turn could save on hand-overs.
void report_team_model(const std::vector<uint64_t>& sequence_starts, uint64_t out_size,
                       const std::vector<GroupMatch>& matches, const std::vector<int>& wave_of) {
  constexpr size_t kGroup = 32;
  const size_t n = sequence_starts.size(), groups = (n + kGroup - 1) / kGroup;
  const auto sequence_of = [&](uint64_t position) {
    return static_cast<size_t>(
        std::upper_bound(sequence_starts.begin(), sequence_starts.end(), position) -
        sequence_starts.begin() - 1);
  };
  const auto sequence_end = [&](size_t k) { return k + 1 < n ? sequence_starts[k + 1] : out_size; };
  for (const bool earliest : {false, true}) {
    std::printf(
        "\nteam model (a parser never late; phases of one unit; groups dealt %s), units "
        "per group:\n",
        earliest ? "where they end first" : "in turn");
    std::printf("%4s %12s %12s %12s %12s\n", "E", "H = 0", "H = 1", "H = 2", "H = 4");
    std::vector<double> base(4, 0);
    for (size_t executors : {1, 2, 3, 4, 8, 16}) {
      std::printf("%4zu", executors);
      for (size_t h = 0; h < 4; ++h) {
        const double hand_over = h == 0 ? 0.0 : static_cast<double>(1u << (h - 1));
        std::vector<double> free(executors, 0), literals_end(groups, 0);
        std::vector<std::vector<double>> wave_end(groups);
        std::vector<size_t> owner(groups, 0);
        // Group g run on executor e: its end, and with `record` its phases' ends.
        const auto run = [&](size_t g, size_t e, bool record) {
          double t = free[e] + 1;  // the literals
          if (record) literals_end[g] = t;
          const size_t first = g * kGroup, last = std::min(n, first + kGroup);
          int waves = 0;
          for (size_t k = first; k < last; ++k) waves = std::max(waves, wave_of[k] + 1);
          if (record) wave_end[g].assign(static_cast<size_t>(waves), 0);
          for (int w = 0; w < waves; ++w) {
            double start = t;
            for (size_t k = first; k < last; ++k) {
              if (wave_of[k] != w) continue;
              // The source, a part of a sequence at a time (its literals, or its match): when the
              // phase that writes the part ends, seen from this executor.
              for (uint64_t b = matches[k].source; b < matches[k].source_end;) {
                const size_t j = sequence_of(b), y = j / kGroup;
                const bool literal = matches[j].length == 0 || b < matches[j].at;
                if (y != g) {  // the group's own waves order the rest
                  const double end =
                      literal ? literals_end[y] : wave_end[y][static_cast<size_t>(wave_of[j])];
                  start = std::max(start, end + (owner[y] != e ? hand_over : 0));
                }
                b = literal && matches[j].length > 0 ? matches[j].at : sequence_end(j);
              }
            }
            t = start + 1;
            if (record) wave_end[g][static_cast<size_t>(w)] = t;
          }
          return t;
        };
        double makespan = 0;
        for (size_t g = 0; g < groups; ++g) {
          size_t e = earliest ? 0 : g % executors;
          if (earliest) {
            double best = run(g, 0, false);
            for (size_t other = 1; other < executors; ++other) {
              const double end = run(g, other, false);
              if (end < best) best = end, e = other;
            }
          }
          owner[g] = e;
          free[e] = run(g, e, true);
          makespan = std::max(makespan, free[e]);
        }
        const double per_group = makespan / static_cast<double>(groups);
        if (executors == 1) base[h] = per_group;
        std::printf(" %6.2f %4.2fx", per_group, base[h] / per_group);
      }
      std::printf("\n");
    }
  }
}

/// The block's chain of dependent matches: a match's depth is one more than the deepest match
/// that wrote a byte it reads (0: it reads only literals), so the deepest is the fewest rounds of
/// copies that could decode the block with every match of a round at once. Then the same within
/// windows of W sequences (bytes before the window count as final, as they would be for warps
/// that decode a window at a time, every match of a round together): the rounds a window needs.
void report_chain_depth(const std::vector<int64_t>& source,
                        const std::vector<uint64_t>& sequence_starts) {
  const size_t n = source.size(), sequences = sequence_starts.size();
  std::printf("\nchains of dependent matches:");
  for (const size_t window : {size_t{0}, size_t{256}, size_t{1024}, size_t{4096}}) {
    std::vector<uint32_t> depth(n, 0);  // of the match that wrote each byte (0: a literal)
    uint64_t total = 0, windows = 0, deepest = 0;
    const size_t step = window == 0 ? sequences : window;
    for (size_t w = 0; w < sequences; w += step) {
      const uint64_t window_start = sequence_starts[w];
      uint32_t local = 0;
      for (size_t q = w; q < std::min(sequences, w + step); ++q) {
        const uint64_t q_end = q + 1 < sequences ? sequence_starts[q + 1] : n;
        uint64_t at = sequence_starts[q];
        while (at < q_end && source[at] < 0) depth[at++] = 0;  // the literals
        if (at == q_end) continue;
        const auto from = static_cast<uint64_t>(source[at]);
        // A match reads its own output (distance < length) only after its first `distance` bytes.
        const uint64_t read_end = std::min(from + (q_end - at), at);
        uint32_t d = 0;
        for (uint64_t b = std::max(from, window_start); b < read_end; ++b) {
          d = std::max(d, depth[b]);
        }
        for (uint64_t b = at; b < q_end; ++b) depth[b] = d + 1;
        local = std::max(local, d + 1);
      }
      total += local;
      deepest = std::max<uint64_t>(deepest, local);
      ++windows;
    }
    if (window == 0) {
      std::printf(" the block %llu matches deep;", static_cast<unsigned long long>(deepest));
    } else {
      std::printf(" windows of %zu sequences %.1f deep (at most %llu);", window,
                  static_cast<double>(total) / static_cast<double>(std::max<uint64_t>(windows, 1)),
                  static_cast<unsigned long long>(deepest));
    }
  }
  std::printf("\n");
}

/// The groups of 32 sequences that the warp executors take (warp_execute_group; docs/gpu_codecs.md,
/// "Where the pair's time went"): the waves of matches a group runs, and, for each match, how
/// many groups back the last byte it reads lies (0: its own group). An executor that took every
/// E-th group of a chunk, beside E - 1 others, would wait for them on the matches that read 1 to
/// E - 1 groups back. Also the lanes' rounds of 8 bytes the group's copies take (warp_copy_items:
/// as many a copy as its longest item up to 64 bytes needs), with the waves' exact test and with
/// its first test alone; and the share of match bytes whose whole source lies in the group's own
/// output or the W bytes of output before it: what a window of the recent output kept in shared
/// memory would serve.
void report_groups(const std::vector<int64_t>& source,
                   const std::vector<uint64_t>& sequence_starts) {
  constexpr size_t kGroup = 32;
  const size_t n = sequence_starts.size(), out_size = source.size();
  std::vector<GroupMatch> matches(n);  // length 0: the sequence has no match
  for (size_t k = 0; k < n; ++k) {
    const uint64_t end = k + 1 < n ? sequence_starts[k + 1] : out_size;
    uint64_t m = sequence_starts[k];
    while (m < end && source[m] < 0) ++m;
    if (m == end) continue;
    const auto from = static_cast<uint64_t>(source[m]);
    matches[k] = {m, end - m, std::min(m, from + (end - m)), from};
  }
  const size_t groups = (n + kGroup - 1) / kGroup;
  const auto group_of = [&](uint64_t position) {  // the group whose output holds the byte
    const size_t k = static_cast<size_t>(
        std::upper_bound(sequence_starts.begin(), sequence_starts.end(), position) -
        sequence_starts.begin() - 1);
    return k / kGroup;
  };
  constexpr size_t kLags = 4;  // 0, 1, 2, 3 or more groups back
  std::vector<size_t> lag_matches(kLags), waves_hist(5), waits(kLags);
  size_t all_matches = 0, all_waves = 0;
  const uint64_t windows[] = {1024, 2048, 4096, 8192, 16384, 65536};
  std::vector<uint64_t> held_bytes(std::size(windows));
  uint64_t match_bytes = 0;
  std::vector<int> wave_of(n, -1);  // the wave that copies sequence k's match (-1: none)
  // The lanes' rounds of warp_copy_items (warp_copy_steps.cuh) a group takes, and its items of
  // more than kLaneItemBytes, which the warp copies one after the other.
  constexpr uint64_t kLaneItemBytes = 64, kLaneRoundBytes = 8;
  uint64_t literal_rounds = 0, match_rounds = 0, at_once_match_rounds = 0, long_items = 0;
  size_t all_at_once_waves = 0;
  for (size_t g = 0; g < groups; ++g) {
    const size_t first = g * kGroup, last = std::min(n, first + kGroup);
    size_t nearest = SIZE_MAX;  // the fewest groups back any match of g reads, past 0
    std::vector<bool> pending(last - first);
    for (size_t k = first; k < last; ++k) {
      if (matches[k].length == 0) continue;
      ++all_matches;
      const size_t lag = g - group_of(matches[k].source_end - 1);
      ++lag_matches[std::min(lag, kLags - 1)];
      if (lag > 0) nearest = std::min(nearest, lag);
      pending[k - first] = true;
      match_bytes += matches[k].length;
      for (size_t w = 0; w < std::size(windows); ++w) {
        if (matches[k].source + windows[w] >= sequence_starts[first]) {
          held_bytes[w] += matches[k].length;
        }
      }
    }
    // The literals' copy: the lanes' own rounds (items up to 64 bytes, 8 bytes a round, as many
    // rounds as the longest item takes) and the longer items one after the other.
    uint64_t longest_literal = 0;
    for (size_t k = first; k < last; ++k) {
      const uint64_t end = k + 1 < n ? sequence_starts[k + 1] : out_size;
      const uint64_t literal = (matches[k].length > 0 ? matches[k].at : end) - sequence_starts[k];
      if (literal > kLaneItemBytes) {
        ++long_items;
      } else {
        longest_literal = std::max(longest_literal, literal);
      }
    }
    literal_rounds += (longest_literal + kLaneRoundBytes - 1) / kLaneRoundBytes;
    // The waves of warp_match_waves: a match runs once no pending earlier one writes its source
    // (exact: every pending earlier match tested, as its binary search does; else only the test
    // it makes first, a source that ends before the lowest pending match starts, one shuffle).
    const std::vector<bool> unrun = pending;
    size_t waves = 0, at_once_waves = 0;
    for (const bool at_once_only : {false, true}) {
      pending = unrun;
      size_t count = 0;
      while (std::find(pending.begin(), pending.end(), true) != pending.end()) {
        if (!at_once_only) {
          for (size_t i = 0; i < pending.size(); ++i) {
            if (pending[i]) wave_of[first + i] = static_cast<int>(count);
          }
        }
        std::vector<bool> ready(pending.size());
        const size_t lowest =
            static_cast<size_t>(std::find(pending.begin(), pending.end(), true) - pending.begin());
        for (size_t i = 0; i < pending.size(); ++i) {
          if (!pending[i]) continue;
          const GroupMatch& a = matches[first + i];
          ready[i] = true;
          if (at_once_only) {
            ready[i] = i == lowest || a.source_end <= matches[first + lowest].at;
            continue;
          }
          for (size_t j = 0; j < i && ready[i]; ++j) {
            const GroupMatch& b = matches[first + j];
            if (pending[j] && b.at < a.source_end && b.at + b.length > a.source) ready[i] = false;
          }
        }
        uint64_t longest = 0;
        for (size_t i = 0; i < pending.size(); ++i) {
          if (!ready[i]) continue;
          const uint64_t length = matches[first + i].length;
          if (length > kLaneItemBytes) {
            long_items += at_once_only ? 0 : 1;
          } else {
            longest = std::max(longest, length);
          }
        }
        (at_once_only ? at_once_match_rounds : match_rounds) +=
            (longest + kLaneRoundBytes - 1) / kLaneRoundBytes;
        for (size_t i = 0; i < pending.size(); ++i) pending[i] = pending[i] && !ready[i];
        ++count;
      }
      (at_once_only ? at_once_waves : waves) = count;
    }
    all_at_once_waves += at_once_waves;
    all_waves += waves;
    ++waves_hist[std::min<size_t>(waves, 4)];
    for (size_t e = 2; e <= kLags; ++e) {
      if (nearest < e) ++waits[e - 1];
    }
  }
  const auto pct = [](size_t a, size_t b) { return b == 0 ? 0.0 : 100.0 * a / b; };
  std::printf(
      "\ngroups of %zu sequences (the warp executors' groups): %zu, %.2f waves each (1: "
      "%.1f %%, 2: %.1f %%, 3: %.1f %%, 4 or more: %.1f %%)\n",
      kGroup, groups, static_cast<double>(all_waves) / static_cast<double>(groups),
      pct(waves_hist[1], groups), pct(waves_hist[2], groups), pct(waves_hist[3], groups),
      pct(waves_hist[4], groups));
  const auto per_group = [&](uint64_t count) {
    return static_cast<double>(count) / static_cast<double>(std::max<size_t>(groups, 1));
  };
  std::printf(
      "lanes' rounds of 8 bytes a group: literals %.2f, matches %.2f; items over 64 bytes %.2f; "
      "with the first test only (sources before the lowest pending match): %.2f waves, %.2f "
      "rounds of matches\n",
      per_group(literal_rounds), per_group(match_rounds), per_group(long_items),
      per_group(all_at_once_waves), per_group(at_once_match_rounds));
  std::printf(
      "matches reading their own group %.1f %%, 1 group back %.1f %%, 2 back %.1f %%, 3 "
      "or more back %.1f %%\n",
      pct(lag_matches[0], all_matches), pct(lag_matches[1], all_matches),
      pct(lag_matches[2], all_matches), pct(lag_matches[3], all_matches));
  std::printf(
      "groups with a match reading 1 to E - 1 groups back (E executors taking turns): E = 2 "
      "%.1f %%, E = 3 %.1f %%, E = 4 %.1f %%\n",
      pct(waits[1], groups), pct(waits[2], groups), pct(waits[3], groups));
  std::printf(
      "match bytes whose source lies in the group or the W bytes of output before it "
      "(%.0f output bytes a group):",
      static_cast<double>(out_size) / static_cast<double>(groups));
  for (size_t w = 0; w < std::size(windows); ++w) {
    std::printf(" W = %llu KiB %.1f %%", static_cast<unsigned long long>(windows[w] >> 10),
                100.0 * static_cast<double>(held_bytes[w]) /
                    static_cast<double>(std::max<uint64_t>(match_bytes, 1)));
  }
  std::printf("\n");
  report_team_model(sequence_starts, out_size, matches, wave_of);
}

/// The window parser of lz4_warp_decode.cuh run over an LZ4 block on the host: each window takes
/// the chain of simple tokens that start in the 32 positions from ip (literal and match lengths
/// with at most one extra length byte below 255, offset not 0 and within the output so far, room
/// in the output), or, when the token at ip is not simple, one sequence by the scalar parser.
/// Printed: windows, sequences and input bytes a window, windows a group of 32 sequences, the
/// share of sequences the scalar parser takes, and of window sequences that read a length byte
/// (one more dependent load in the window).
void report_parser_windows(const std::vector<char>& block, uint64_t out_size) {
  constexpr uint32_t kLanes = 32;
  const auto* in = reinterpret_cast<const unsigned char*>(block.data());
  const uint64_t in_size = block.size();
  uint64_t ip = 0, op = 0, windows = 0, window_sequences = 0, scalar = 0, length_bytes = 0;
  uint64_t window_input = 0;
  while (ip < in_size) {
    // The chain from ip through simple tokens that start inside the window.
    uint64_t p = ip, produced = 0, taken = 0;
    while (p < ip + kLanes && p < in_size) {
      uint64_t q = p + 1, literals = in[p] >> 4, match = in[p] & 15u;
      bool extra = false;
      if (literals == 15) {
        if (q >= in_size || in[q] == 255) break;
        literals += in[q++];
        extra = true;
      }
      if (q + literals + 2 > in_size) break;
      const uint64_t distance = in[q + literals] | uint64_t{in[q + literals + 1]} << 8;
      q += literals + 2;
      if (match == 15) {
        if (q >= in_size || in[q] == 255) break;
        match += in[q++];
        extra = true;
      }
      const uint64_t length = literals + match + cuzarr::gpu::kLz4MinMatch;
      if (distance == 0 || distance > op + produced + literals ||
          op + produced + length > out_size) {
        break;
      }
      produced += length;
      ++taken;
      length_bytes += extra ? 1 : 0;
      p = q;
    }
    ++windows;
    if (taken > 0) {
      window_sequences += taken;
      window_input += p - ip;
      ip = p;
      op += produced;
      continue;
    }
    CopyStep step;
    if (cuzarr::gpu::lz4_parse_sequence(in, in_size, ip, op, out_size, step) !=
        DeviceChunkStatus::ok) {
      std::fprintf(stderr, "the block does not parse\n");
      return;
    }
    ++scalar;
    op += step.literal_length + step.match_length;
    if (step.last) break;
  }
  const uint64_t sequences = window_sequences + scalar;
  const auto per = [](uint64_t a, uint64_t b) {
    return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b);
  };
  std::printf(
      "\nwindow parser: %llu windows for %llu sequences; %.2f sequences and %.1f input bytes a "
      "window parse; %.2f windows a group of 32 sequences; scalar parser %.2f %% of the "
      "sequences; a length byte read in %.1f %% of the window sequences\n",
      static_cast<unsigned long long>(windows), static_cast<unsigned long long>(sequences),
      per(window_sequences, windows - scalar), per(window_input, windows - scalar),
      32.0 * per(windows, sequences), 100.0 * per(scalar, sequences),
      100.0 * per(length_bytes, window_sequences));
}

/// The span parser of the LZ4 team (lz4_span_parse.cuh) modelled span by span: each lane's own
/// chain and overrun, the path of the true chain over the lanes, how a span ends, and the warp's
/// steps in lockstep (the longest lane's token parses in each phase), which set its time. The
/// checks are left out (a valid block passes them); spans that take few tokens are counted, not
/// handed to the window parser.
void report_span_parser(const std::vector<char>& block, uint32_t overrun_cap) {
  namespace d = cuzarr::gpu::detail;
  constexpr uint32_t kLanes = 32;
  const auto* in = reinterpret_cast<const unsigned char*>(block.data());
  const auto in_size = static_cast<uint32_t>(block.size());
  uint64_t spans = 0, tokens = 0, progress = 0, few = 0, scalar = 0, path_lanes = 0;
  uint64_t own_max = 0, overrun_max = 0, walk_max = 0, own_sum = 0, overrun_sum = 0;
  uint64_t ends_exit = 0, ends_capped = 0, ends_stopped = 0;
  uint32_t ip = 0;
  while (ip < in_size) {
    const unsigned char* input = in + ip;
    // The staged bytes: the kernel's kLz4SpanStageBytes (1536) for an 8-byte-aligned block.
    const uint32_t limit = std::min<uint32_t>(in_size - ip, d::kLz4SpanBytes + 512);
    uint64_t own[kLanes] = {};
    uint32_t end_at[kLanes], meets[kLanes], overrun_tokens[kLanes], own_steps[kLanes];
    bool going[kLanes];
    for (uint32_t j = 0; j < kLanes; ++j) {  // own chains
      uint32_t x = j * d::kLz4SpanSegmentBytes, steps = 0;
      going[j] = true;
      while (x < (j + 1) * d::kLz4SpanSegmentBytes) {
        ++steps;
        const d::Lz4SpanToken t = d::lz4_span_token(input, x, limit);
        if (t.next == d::kLz4SpanStop) {
          going[j] = false;
          break;
        }
        own[j] |= 1ull << (x - j * d::kLz4SpanSegmentBytes);
        x = t.next;
      }
      own_steps[j] = steps;
      end_at[j] = x;
    }
    uint32_t max_own = 0, max_overrun = 0;
    for (uint32_t j = 0; j < kLanes; ++j) {  // overruns
      uint32_t x = end_at[j], n = 0;
      meets[j] = kLanes;
      while (going[j] && x < d::kLz4SpanBytes) {
        const uint32_t segment = x / d::kLz4SpanSegmentBytes;
        if ((own[segment] >> (x % d::kLz4SpanSegmentBytes)) & 1u) {
          meets[j] = segment;
          break;
        }
        if (n == overrun_cap) break;
        const d::Lz4SpanToken t = d::lz4_span_token(input, x, limit);
        if (t.next == d::kLz4SpanStop) break;
        ++n;
        x = t.next;
      }
      end_at[j] = x;
      overrun_tokens[j] = n;
      max_own = std::max(max_own, own_steps[j]);
      max_overrun = std::max(max_overrun, n);
      own_sum += own_steps[j];
      overrun_sum += n;
    }
    // The true chain's path over the lanes, its tokens per segment, and how it ends.
    uint32_t lane = 0, entry = 0, taken = 0, most = 0, lanes_on_path = 0;
    uint32_t per_segment[kLanes] = {};
    for (;;) {
      ++lanes_on_path;
      const uint32_t low = lane * d::kLz4SpanSegmentBytes;
      per_segment[lane] += static_cast<uint32_t>(__builtin_popcountll(own[lane] >> (entry - low)));
      if (going[lane]) {  // its overrun's tokens, in later segments
        uint32_t y = entry;
        while (y < low + d::kLz4SpanSegmentBytes) y = d::lz4_span_token(input, y, limit).next;
        for (uint32_t n = 0; n < overrun_tokens[lane]; ++n) {
          ++per_segment[y / d::kLz4SpanSegmentBytes];
          y = d::lz4_span_token(input, y, limit).next;
        }
      }
      if (meets[lane] == kLanes) break;
      entry = end_at[lane];
      lane = meets[lane];
    }
    for (uint32_t j = 0; j < kLanes; ++j) {
      taken += per_segment[j];
      most = std::max(most, per_segment[j]);
    }
    if (taken == 0) {  // the scalar parser's token (every offset taken as valid)
      uint64_t at = ip;
      CopyStep step;
      if (cuzarr::gpu::lz4_parse_sequence(in, in_size, at, UINT64_MAX / 2, UINT64_MAX, step) !=
          DeviceChunkStatus::ok) {
        std::fprintf(stderr, "the block does not parse\n");
        return;
      }
      ++scalar;
      if (step.last) break;
      ip = static_cast<uint32_t>(at);
      continue;
    }
    if (going[lane] && end_at[lane] >= d::kLz4SpanBytes) {
      ++ends_exit;
    } else if (going[lane] && overrun_tokens[lane] == overrun_cap) {
      ++ends_capped;
    } else {
      ++ends_stopped;
    }
    ++spans;
    tokens += taken;
    few += taken < 64 ? 1 : 0;
    path_lanes += lanes_on_path;
    own_max += max_own;
    overrun_max += max_overrun;
    walk_max += most;
    progress += end_at[lane];
    ip += end_at[lane];
  }
  const auto per = [](uint64_t a, uint64_t b) {
    return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b);
  };
  const double lockstep =
      per(own_max + overrun_max + walk_max, spans) + per(tokens, spans * kLanes);
  std::printf(
      "\nspan parser (%u-byte segments, %u-byte spans, overruns of at most %u tokens): %.1f token "
      "parses in lockstep a KiB of input\n%llu spans, %llu scalar sequences; a span: "
      "%.1f tokens, %.0f input bytes, %.1f lanes on the true chain's path; %.1f %% of the spans "
      "take fewer than 64 tokens; spans end leaving the span %.1f %%, where an overrun gave up "
      "%.1f %%, before a token no lane takes %.1f %%\n",
      d::kLz4SpanSegmentBytes, d::kLz4SpanBytes, overrun_cap,
      1024 * lockstep / per(progress, spans), static_cast<unsigned long long>(spans),
      static_cast<unsigned long long>(scalar), per(tokens, spans), per(progress, spans),
      per(path_lanes, spans), 100 * per(few, spans), 100 * per(ends_exit, spans),
      100 * per(ends_capped, spans), 100 * per(ends_stopped, spans));
  std::printf(
      "a span's token parses in lockstep (the longest lane): own chain %.1f (a lane on average "
      "%.1f), overrun %.1f (%.1f), the true tokens of a segment %.1f (walked for their sizes and "
      "places; again for the checks, in the first 64 KiB of output only); queued a token a lane: "
      "%.1f rounds\n",
      per(own_max, spans), per(own_sum, spans * kLanes), per(overrun_max, spans),
      per(overrun_sum, spans * kLanes), per(walk_max, spans), per(tokens, spans * kLanes));
}

int main(int argc, char** argv) {
  int arg = 1;
  const std::string codec = argc > arg ? argv[arg++] : "lz4";
  int level = 0;
  if (codec == "zstd") level = argc > arg ? std::atoi(argv[arg++]) : 3;
  const size_t chunk = (argc > arg ? std::strtoull(argv[arg++], nullptr, 10) : 4096) * 1024;
  const std::string kind = argc > arg ? argv[arg++] : "quantized";
  if ((codec != "lz4" && codec != "lz4-cuzarr" && codec != "zstd") || chunk == 0 ||
      chunk > (size_t{1} << 30) ||
      (kind != "quantized" && kind != "field" && kind != "delta" && kind != "labels" &&
       kind.rfind("file:", 0) != 0)) {
    std::fprintf(stderr,
                 "usage: %s [lz4 | lz4-cuzarr | zstd LEVEL] [chunk KiB, 1..1048576] "
                 "[quantized|field|delta|labels|file:PATH]\n",
                 argv[0]);
    return 2;
  }
  std::vector<unsigned char> data;
  if (kind.rfind("file:", 0) == 0) {
    const std::string path = kind.substr(5);
    std::ifstream file(path, std::ios::binary);
    data.resize(chunk);
    if (!file.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(chunk))) {
      std::fprintf(stderr, "cannot read %zu bytes from %s\n", chunk, path.c_str());
      return 2;
    }
  } else if (kind == "quantized") {
    data = cuzarr::bench::make_quantized_field(chunk, 2);
  } else if (kind == "field") {
    data = cuzarr::bench::make_field(chunk, false, 1);
  } else if (kind == "labels") {
    data = cuzarr::bench::make_label_volume(chunk);
  } else {
    data = cuzarr::bench::make_delta_field(chunk, 1);
  }
  std::vector<char> compressed;
  std::vector<uint64_t> sequence_starts;
  std::vector<int64_t> source;
  if (codec == "lz4") {
    compressed.resize(static_cast<size_t>(LZ4_compressBound(static_cast<int>(chunk))));
    const int size =
        LZ4_compress_default(reinterpret_cast<const char*>(data.data()), compressed.data(),
                             static_cast<int>(chunk), static_cast<int>(compressed.size()));
    if (size <= 0) return 2;
    compressed.resize(static_cast<size_t>(size));
    source = lz4_byte_sources(compressed, chunk, sequence_starts);
  } else if (codec == "lz4-cuzarr") {  // the GPU encoder's blocks (cuzarr_gpu_codec_throughput's)
    compressed.resize(cuzarr::gpu::lz4_encode_bound(chunk));
    std::vector<uint32_t> table(cuzarr::gpu::kLz4HashEntries);
    const uint64_t size = cuzarr::gpu::lz4_encode_block(
        data.data(), chunk, reinterpret_cast<unsigned char*>(compressed.data()), compressed.size(),
        table.data());
    if (size == 0) return 2;
    compressed.resize(size);
    source = lz4_byte_sources(compressed, chunk, sequence_starts);
  } else {
    compressed.resize(ZSTD_compressBound(chunk));
    const size_t size =
        ZSTD_compress(compressed.data(), compressed.size(), data.data(), chunk, level);
    if (ZSTD_isError(size)) return 2;
    compressed.resize(size);
    source = zstd_byte_sources(compressed, chunk, sequence_starts);
  }
  const std::string name = codec == "zstd" ? "zstd level " + std::to_string(level) : codec;
  std::printf("%s, %s, %zu KiB, ratio %.2f, %zu sequences (%.1f bytes each)\n", name.c_str(),
              kind.c_str(), chunk >> 10,
              static_cast<double>(chunk) / static_cast<double>(compressed.size()),
              sequence_starts.size(),
              static_cast<double>(chunk) / static_cast<double>(sequence_starts.size()));
  std::printf("%8s %9s %14s %13s %9s %9s\n", "segment", "segments", "with external", "external",
              "hops max", "hops avg");
  for (size_t segment : {2048, 8192, 16384, 32768, 65536, 131072})
    report(source, sequence_starts, segment);
  std::printf("\nsteps of 32 sequences, a warp per segment (block)\n%8s %12s %12s %14s %14s %14s\n",
              "segment", "one block", "whole frame", "wait progress", "wait block",
              "chase, progress");
  for (size_t segment : {32768, 131072}) report_schedule(source, sequence_starts, segment);
  report_sequences_per_segment(sequence_starts, source.size(), 131072);
  for (size_t piece : {512, 1024}) report_pieces(source, sequence_starts, 131072, piece);
  for (size_t piece : {size_t{256} << 10, size_t{512} << 10, size_t{1} << 20}) {
    for (size_t line : {1, 64}) report_replay(source, sequence_starts, piece, line);
  }
  report_groups(source, sequence_starts);
  report_chain_depth(source, sequence_starts);
  if (codec != "zstd") {
    report_parser_windows(compressed, chunk);
    for (uint32_t cap : {8u, 16u, 24u, cuzarr::gpu::detail::kLz4SpanOverrunTokens}) {
      report_span_parser(compressed, cap);
    }
  }
  return 0;
}
