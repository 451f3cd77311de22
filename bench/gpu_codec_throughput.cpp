// Throughput of cuzarr's batched GPU codec kernels on a batch of at least 1 GiB (decoded) of
// realistic data: a smooth 2-D field plus noise, as uint16 and as float32, cut into chunks of
// 64 KiB, 1 MiB and 4 MiB (zstd and deflate also 32 MiB). For every codec: compression ratio,
// decode and encode GB/s (decoded bytes per second, best of several runs, timed with CUDA events),
// and a check that the decoded bytes equal the input. Compressed inputs come from cuzarr's own GPU
// encoders, so neither c-blosc nor Google Benchmark is needed; zstd (levels 1 and 3) and deflate
// (gzip, levels 1 and 6) are decode only, compressed on the CPU by libzstd and zlib.
//   cuzarr_gpu_codec_throughput [total MiB per batch (default 1024)] [repetitions (default 5)]
//                               [elements | lz4 | lz4-split | blosc | filters | crc32c | zstd
//                                | zstd-chains | deflate (default all rows but zstd-chains)]
//                               [chunk sizes in KiB, e.g. 1024,4096 (default all)]
//                               [zstd / gzip levels, e.g. 3 (default: zstd 1 and 3, gzip 1
//                                and 6)]
//                               [data of the element and deflate rows: uint16, float32,
//                                q-uint16 (element rows only), e.g. float32 (default all)]
// "zstd-chains": zstd rows of data whose matches mostly read earlier blocks (docs/gpu_zstd.md,
// "Frames whose matches read earlier blocks"), each schedule of the matches pass. From 1 MiB the
// numcodecs.lz4 rows add "team of N": the team kernel forced to N - 1 executors a chunk, and
// "team of N+S": the same with the parser's stager, one more warp a chunk. "lz4-split": only the
// numcodecs.lz4 rows of the launcher without scratch and of the split.
#include <cuda_runtime_api.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "codec/cuda/blosc_kernels.hpp"
#include "codec/cuda/crc32c_kernels.hpp"
#include "codec/cuda/deflate_kernels.hpp"
#include "codec/cuda/delta_kernels.hpp"
#include "codec/cuda/lz4_kernels.hpp"
#include "codec/cuda/lz4_split_decode.hpp"
#include "codec/cuda/shuffle_kernels.hpp"
#include "codec/cuda/zstd_block_parallel_host.hpp"
#include "codec/cuda/zstd_kernels.hpp"
#include "gpu_bench_batch.hpp"

namespace {

using cuzarr::Stream;
using namespace cuzarr::gpu;
using namespace cuzarr::bench;

struct Row {
  std::string codec, dtype;
  size_t chunk;
  double ratio, decode_gbs, encode_gbs;
  bool ok;
};

/// The rows a run is limited to by its fourth and fifth arguments (comma-separated lists of chunk
/// sizes in KiB and of levels); an empty list allows all.
struct Selection {
  std::vector<long> chunks_kib, levels;
  /// Data of the element and deflate rows ("uint16", "float32", "q-uint16").
  std::vector<std::string> dtypes;

  static std::vector<long> parse(const char* text) {
    std::vector<long> values;
    for (const char* p = text; p != nullptr && *p != '\0';) {
      char* end = nullptr;
      values.push_back(std::strtol(p, &end, 10));
      p = *end == ',' ? end + 1 : nullptr;
    }
    return values;
  }
  static bool allows(const std::vector<long>& list, long value) {
    return list.empty() || std::find(list.begin(), list.end(), value) != list.end();
  }
  /// The chunk sizes of a row group: those asked for (any size), else the group's defaults.
  std::vector<size_t> chunks(std::initializer_list<size_t> defaults) const {
    if (chunks_kib.empty()) return defaults;
    std::vector<size_t> sizes;
    for (long kib : chunks_kib) sizes.push_back(static_cast<size_t>(kib) << 10);
    return sizes;
  }
  bool level(int value) const { return allows(levels, value); }
  bool dtype(const std::string& name) const {
    return dtypes.empty() || std::find(dtypes.begin(), dtypes.end(), name) != dtypes.end();
  }

  static std::vector<std::string> parse_names(const char* text) {
    std::vector<std::string> names;
    for (const char* p = text; p != nullptr && *p != '\0';) {
      const char* comma = std::strchr(p, ',');
      names.emplace_back(p, comma != nullptr ? comma : p + std::strlen(p));
      p = comma != nullptr ? comma + 1 : nullptr;
    }
    return names;
  }
};

void print(const Row& r) {
  std::printf("%-26s %-8s %6zu KiB %7.2f %12.1f %12.1f   %s\n", r.codec.c_str(), r.dtype.c_str(),
              r.chunk / 1024, r.ratio, r.decode_gbs, r.encode_gbs, r.ok ? "ok" : "MISMATCH");
  std::fflush(stdout);
}

// gzip decode rows: levels 1 and 6, chunks of 64 KiB .. 32 MiB.
bool deflate_rows(size_t total_mib, int repetitions, const Selection& selection,
                  const Stream& stream) {
  constexpr size_t kPoolBytes = 64u << 20, kDistinctBytes = 64u << 20;
  bool all_ok = true;
  for (bool is_float : {false, true}) {
    const std::string dtype = is_float ? "float32" : "uint16";
    if (!selection.dtype(dtype)) continue;
    const size_t typesize = is_float ? 4 : 2;
    const std::vector<unsigned char> pool = make_field(kPoolBytes + (32u << 20), is_float, 2);
    for (size_t chunk :
         selection.chunks({size_t{64} << 10, size_t{1} << 20, size_t{4} << 20, size_t{32} << 20})) {
      const size_t count = std::max<size_t>(1, (total_mib << 20) / chunk);
      const size_t distinct = std::min(count, std::max<size_t>(1, kDistinctBytes / chunk));
      const double gb = static_cast<double>(count * chunk) / 1e9;
      std::vector<size_t> offsets(distinct);
      for (size_t i = 0; i < distinct; ++i)
        offsets[i] = (i * chunk * 7 / 3) % kPoolBytes / typesize * typesize;
      Batch input(count, chunk, chunk), decoded(count, chunk, chunk);
      for (size_t i = 0; i < count; ++i) {
        CHECK(cudaMemcpy(input.data.bytes() + i * chunk, pool.data() + offsets[i % distinct], chunk,
                         cudaMemcpyHostToDevice));
      }
      for (int level : {1, 6}) {
        if (!selection.level(level)) continue;
        std::vector<std::vector<unsigned char>> packed(distinct);
        size_t stride = 0;
        double packed_bytes = 0;
        for (size_t i = 0; i < distinct; ++i) {
          packed[i] = zlib_compress(pool.data() + offsets[i], chunk, level, kGzipWindowBits);
          stride = std::max(stride, packed[i].size());
          packed_bytes += static_cast<double>(packed[i].size());
        }
        Batch encoded(count, chunk, stride);
        std::vector<uint64_t> sizes(count);
        for (size_t i = 0; i < count; ++i) {
          const auto& p = packed[i % distinct];
          CHECK(cudaMemcpy(encoded.data.bytes() + i * stride, p.data(), p.size(),
                           cudaMemcpyHostToDevice));
          sizes[i] = p.size();
        }
        upload(encoded.sizes, sizes);
        // From 256 KiB, block-parallel and a warp per chunk (the launcher picks by
        // inflate_block_parallel_from); smaller chunks a warp each.
        for (const bool block_parallel : {true, false}) {
          if (block_parallel && chunk < (size_t{256} << 10)) continue;
          const uint64_t from = block_parallel ? 0 : UINT64_MAX;
          Device temp(inflate_temp_bytes(count, chunk, from));
          CHECK(cudaMemset(decoded.data.p, 0, count * chunk));
          const double dec = best_seconds(repetitions, [&] {
            inflate_batch(encoded.to(decoded), DeflateWrapper::gzip, true, chunk, temp.p, stream,
                          from);
          });
          const bool ok = decoded.all_ok() && same_bytes(input, decoded);
          all_ok = all_ok && ok;
          print({"gzip L" + std::to_string(level) +
                     (block_parallel ? " (inflate, block-parallel)" : " (inflate, warp per chunk)"),
                 dtype, chunk, static_cast<double>(distinct * chunk) / packed_bytes, gb / dec, 0.0,
                 ok});
        }
        // The same chunks inflated by zlib on every CPU core, host memory to host memory: what
        // automatic placement weighs the GPU against (InflateDeviceDecoder).
        if (chunk >= (size_t{1} << 20)) {
          const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
          std::vector<unsigned char> host_out(count * chunk);
          std::vector<char> good(threads, 1);
          const auto inflate_all = [&] {
            std::vector<std::thread> workers;
            for (unsigned t = 0; t < threads; ++t) {
              workers.emplace_back([&, t] {
                for (size_t i = t; i < count; i += threads) {
                  const auto& p = packed[i % distinct];
                  z_stream z{};
                  inflateInit2(&z, kGzipWindowBits);
                  z.next_in = const_cast<unsigned char*>(p.data());
                  z.avail_in = static_cast<uInt>(p.size());
                  z.next_out = host_out.data() + i * chunk;
                  z.avail_out = static_cast<uInt>(chunk);
                  good[t] = good[t] && inflate(&z, Z_FINISH) == Z_STREAM_END && z.avail_out == 0;
                  inflateEnd(&z);
                }
              });
            }
            for (auto& w : workers) w.join();
          };
          const double cpu = best_seconds(repetitions, inflate_all);
          bool ok = std::all_of(good.begin(), good.end(), [](char g) { return g != 0; });
          for (size_t i = 0; ok && i < distinct; ++i)
            ok = std::memcmp(host_out.data() + i * chunk, pool.data() + offsets[i], chunk) == 0;
          all_ok = all_ok && ok;
          print({"gzip L" + std::to_string(level) + " (zlib, " + std::to_string(threads) +
                     " CPU threads)",
                 dtype, chunk, static_cast<double>(distinct * chunk) / packed_bytes, gb / cpu, 0.0,
                 ok});
        }
      }
    }
  }
  return all_ok;
}

}  // namespace

int main(int argc, char** argv) {
  const size_t total_mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1024;
  const int repetitions = argc > 2 ? std::atoi(argv[2]) : 5;
  // Third argument: which rows, "elements" (all of lz4, blosc, filters and crc32c), one of those
  // four groups, "zstd" or "deflate"; default all.
  const std::string only = argc > 3 ? argv[3] : "";
  // Fourth to sixth: chunk sizes in KiB (any; default each group's own), zstd / gzip levels,
  // data of the element and deflate rows (comma lists).
  const Selection selection{Selection::parse(argc > 4 ? argv[4] : nullptr),
                            Selection::parse(argc > 5 ? argv[5] : nullptr),
                            Selection::parse_names(argc > 6 ? argv[6] : nullptr)};
  const std::vector<std::string> element_groups = {"lz4", "lz4-split", "blosc", "filters",
                                                   "crc32c"};
  const bool element_group =
      std::find(element_groups.begin(), element_groups.end(), only) != element_groups.end();
  if (!only.empty() && only != "elements" && only != "zstd" && only != "zstd-chains" &&
      only != "deflate" && !element_group) {
    std::fprintf(stderr,
                 "third argument: elements, lz4, lz4-split, blosc, filters, crc32c, zstd, "
                 "zstd-chains or deflate, not \"%s\"\n",
                 only.c_str());
    return 2;
  }
  for (long kib : selection.chunks_kib) {
    if (kib <= 0 || kib > (long{1} << 20)) {
      std::fprintf(stderr, "fourth argument: chunk sizes are 1 to 1048576 KiB, not %ld\n", kib);
      return 2;
    }
  }
  for (const std::string& name : selection.dtypes) {
    if (name != "uint16" && name != "float32" && name != "q-uint16") {
      std::fprintf(stderr, "sixth argument: uint16, float32 or q-uint16, not \"%s\"\n",
                   name.c_str());
      return 2;
    }
  }
  const auto wanted = [&](const char* rows) {
    return only.empty() || only == rows || (element_group && std::string(rows) == "elements");
  };
  const auto wanted_group = [&](const char* group) {
    return only.empty() || only == "elements" || only == group;
  };
  // The numcodecs.lz4 rows of the launcher and the split (all of them unless "lz4-split").
  const bool lz4_split_only = only == "lz4-split";
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "no CUDA device\n");
    return 1;
  }
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, batch: %zu MiB decoded, best of %d runs\n", prop.name, total_mib,
              repetitions);
  std::printf("%-26s %-8s %10s %7s %12s %12s   %s\n", "codec", "dtype", "chunk", "ratio",
              "decode GB/s", "encode GB/s", "check");
  const Stream stream;
  bool all_ok = true;
  constexpr size_t kPoolBytes = 64u << 20;
  // Data: the uint16 and float32 fields of make_field, and (LZ4 rows only) the quantized uint16
  // field of make_quantized_field ("q-uint16"), which liblz4 compresses about 2.2x.
  enum class Data { uint16, float32, quantized };
  for (Data data : {Data::uint16, Data::float32, Data::quantized}) {
    if (!wanted("elements")) break;
    const bool is_float = data == Data::float32, quantized = data == Data::quantized;
    if (quantized && !wanted_group("lz4") && !lz4_split_only) break;
    const std::string dtype = is_float ? "float32" : quantized ? "q-uint16" : "uint16";
    if (!selection.dtype(dtype)) continue;
    const uint32_t typesize = is_float ? 4 : 2;
    const std::vector<unsigned char> pool =
        quantized ? make_quantized_field(kPoolBytes, 1) : make_field(kPoolBytes, is_float, 1);
    for (size_t chunk : selection.chunks({size_t{64} << 10, size_t{1} << 20, size_t{4} << 20})) {
      if (chunk >= kPoolBytes) {  // sizes of 0 were refused above
        std::fprintf(stderr, "element rows: a chunk of %zu KiB does not fit the 64 MiB pool\n",
                     chunk >> 10);
        continue;
      }
      const size_t count = (total_mib << 20) / chunk;
      const double gb = static_cast<double>(count * chunk) / 1e9;
      // Decoded input: chunk i is a slice of the pool (different places, so chunks differ).
      Batch input(count, chunk, chunk);
      for (size_t i = 0; i < count; ++i) {
        const size_t offset = (i * chunk * 7 / 3) % (kPoolBytes - chunk) / typesize * typesize;
        CHECK(cudaMemcpy(input.data.bytes() + i * chunk, pool.data() + offset, chunk,
                         cudaMemcpyHostToDevice));
      }
      Batch decoded(count, chunk, chunk);
      const auto report = [&](const std::string& codec, double encoded_bytes, double decode_s,
                              double encode_s, bool ok) {
        all_ok = all_ok && ok;
        print({codec, dtype, chunk, encoded_bytes > 0 ? gb * 1e9 / encoded_bytes : 1.0,
               decode_s > 0 ? gb / decode_s : 0.0, encode_s > 0 ? gb / encode_s : 0.0, ok});
      };
      const auto total = [](const std::vector<uint64_t>& v) {
        double s = 0;
        for (auto x : v) s += static_cast<double>(x);
        return s;
      };
      // numcodecs.lz4
      if (wanted_group("lz4") || lz4_split_only) {
        Batch encoded(count, chunk, numcodecs_lz4_max_encoded_size(chunk));
        Device temp(lz4_encode_temp_bytes(count));
        const double enc = best_seconds(
            repetitions, [&] { numcodecs_lz4_encode_batch(input.to(encoded), temp.p, stream); });
        bool ok = encoded.all_ok();
        encoded.take_produced_sizes();
        const double bytes = total(encoded.produced_sizes());
        const double dec = best_seconds(
            repetitions, [&] { numcodecs_lz4_decode_batch(encoded.to(decoded), stream); });
        ok = ok && decoded.all_ok() && same_bytes(input, decoded);
        report("numcodecs.lz4", bytes, dec, enc, ok);
        // The same blocks with each team size forced (a parser and 1 to 3 executors a chunk),
        // the parser alone and with its stager (one more warp a chunk).
        for (const auto parser : {Lz4TeamParser::alone, Lz4TeamParser::with_stager}) {
          for (unsigned executors = 1;
               !lz4_split_only && chunk >= (size_t{1} << 20) && executors <= 3; ++executors) {
            const double team = best_seconds(repetitions, [&] {
              numcodecs_lz4_decode_batch_with_team(encoded.to(decoded), executors, parser, stream);
            });
            const bool team_ok = decoded.all_ok() && same_bytes(input, decoded);
            const bool staged = parser == Lz4TeamParser::with_stager;
            report(
                "numcodecs.lz4 (team of " + std::to_string(1 + executors) + (staged ? "+S)" : ")"),
                bytes, team, 0, team_ok);
          }
        }
        // The same blocks split into parts of about 1 MiB, a team each (lz4_split_decode.hpp),
        // with how many chunks the split took (the others went to the team decoder).
        if (detail::lz4_split_parts(chunk) != 0) {
          Device split_temp(lz4_decode_split_temp_bytes(count, chunk));
          const double split = best_seconds(repetitions, [&] {
            numcodecs_lz4_decode_batch_split(encoded.to(decoded), chunk, split_temp.p, stream);
          });
          const bool split_ok = decoded.all_ok() && same_bytes(input, decoded);
          report("numcodecs.lz4 (split)", bytes, split, 0, split_ok);
          const uint32_t* handled = detail::lz4_split_decode_batch(encoded.to(decoded), true, chunk,
                                                                   split_temp.p, stream);
          std::vector<uint32_t> took(count);
          CHECK(cudaMemcpy(took.data(), handled, count * sizeof(uint32_t), cudaMemcpyDeviceToHost));
          size_t taken = 0;
          for (uint32_t t : took) taken += t;
          std::printf(
              "  split: %zu of %zu chunks in %u parts, %.2f GiB of scratch; the launcher "
              "with scratch splits this batch: %s\n",
              taken, count, detail::lz4_split_parts(chunk),
              static_cast<double>(lz4_decode_split_temp_bytes(count, chunk)) / (1 << 30),
              detail::lz4_split_pays(count, chunk) ? "yes" : "no");
        }
        // The same blocks decoded block-parallel (lz4_block_parallel.hpp): blocks from
        // kLz4BpMinCapacity (4 MiB) on the first row, from 64 KiB on the second (below 4 MiB).
        for (uint64_t from : {kLz4BpMinCapacity, uint64_t{64} << 10}) {
          if (lz4_split_only || (from != kLz4BpMinCapacity && chunk >= kLz4BpMinCapacity)) continue;
          Device bp_temp(lz4_decode_temp_bytes(count, chunk, from));
          const double bp = best_seconds(repetitions, [&] {
            numcodecs_lz4_decode_batch(encoded.to(decoded), chunk, bp_temp.p, stream, from);
          });
          const bool bp_ok = decoded.all_ok() && same_bytes(input, decoded);
          report(from == kLz4BpMinCapacity ? "numcodecs.lz4 (block-par)"
                                           : "numcodecs.lz4 (block-par 64K)",
                 bytes, bp, 0, bp_ok);
        }
      }
      // numcodecs.lz4 with the segment-parallel encoder (64 KiB segments stitched into one block)
      if (wanted_group("lz4")) {
        Batch encoded(count, chunk, numcodecs_lz4_max_encoded_size(chunk));
        Device temp(lz4_encode_segments_temp_bytes(count, chunk));
        const double enc = best_seconds(repetitions, [&] {
          numcodecs_lz4_encode_segments_batch(input.to(encoded), chunk, temp.p, stream);
        });
        bool ok = encoded.all_ok();
        encoded.take_produced_sizes();
        const double bytes = total(encoded.produced_sizes());
        const double dec = best_seconds(
            repetitions, [&] { numcodecs_lz4_decode_batch(encoded.to(decoded), stream); });
        ok = ok && decoded.all_ok() && same_bytes(input, decoded);
        report("numcodecs.lz4 (segments)", bytes, dec, enc, ok);
      }
      // blosc lz4 with byte and bit shuffle
      for (BloscShuffle shuffle : {BloscShuffle::byte, BloscShuffle::bit}) {
        if (quantized || !wanted_group("blosc")) break;
        Batch encoded(count, chunk, blosc_max_encoded_size(chunk));
        Device encode_temp(blosc_encode_temp_bytes(count, chunk));
        const BloscEncodeParams params{5, typesize, shuffle, 0};
        const double enc = best_seconds(repetitions, [&] {
          blosc_encode_batch(input.to(encoded), params, encode_temp.p, chunk, stream);
        });
        bool ok = encoded.all_ok();
        encoded.take_produced_sizes();
        const double bytes = total(encoded.produced_sizes());
        Device decode_temp(blosc_decode_temp_bytes(count, chunk));
        const double dec = best_seconds(repetitions, [&] {
          blosc_decode_batch(encoded.to(decoded), decode_temp.p, chunk, stream);
        });
        ok = ok && decoded.all_ok() && same_bytes(input, decoded);
        report(shuffle == BloscShuffle::byte ? "blosc lz4 shuffle" : "blosc lz4 bitshuffle", bytes,
               dec, enc, ok);
      }
      // Filters: encode = forward, decode = inverse.
      const auto filter = [&](const std::string& name,
                              const std::function<void(const DeviceChunkBatch&)>& forward,
                              const std::function<void(const DeviceChunkBatch&)>& inverse) {
        Batch encoded(count, chunk, chunk);
        const double enc = best_seconds(repetitions, [&] { forward(input.to(encoded)); });
        bool ok = encoded.all_ok();
        const double dec = best_seconds(repetitions, [&] { inverse(encoded.to(decoded)); });
        ok = ok && decoded.all_ok() && same_bytes(input, decoded);
        report(name, 0, dec, enc, ok);
      };
      if (!quantized && wanted_group("filters")) {
        filter(
            "shuffle", [&](const DeviceChunkBatch& b) { shuffle_batch(b, typesize, stream); },
            [&](const DeviceChunkBatch& b) { unshuffle_batch(b, typesize, stream); });
        filter(
            "bitshuffle", [&](const DeviceChunkBatch& b) { bitshuffle_batch(b, typesize, stream); },
            [&](const DeviceChunkBatch& b) { bitunshuffle_batch(b, typesize, stream); });
        const DeltaType delta_type = is_float ? DeltaType::float32 : DeltaType::uint16;
        {
          Device delta_temp(delta_decode_temp_bytes(count, chunk));
          filter(
              "delta",
              [&](const DeviceChunkBatch& b) { delta_encode_batch(b, delta_type, stream); },
              [&](const DeviceChunkBatch& b) {
                delta_decode_batch(b, delta_type, chunk, delta_temp.p, stream);
              });
        }
        // The same decode in ranges of other sizes (delta_decode_parts picks one a chunk for
        // batches of kDeltaFillChunks chunks or more, else 32 KiB).
        for (size_t range_kib : {size_t{8}, size_t{16}, size_t{32}, chunk >> 10}) {
          if (range_kib > (chunk >> 10) || (range_kib == 32 && chunk == (size_t{32} << 10)))
            continue;
          const auto parts = static_cast<uint32_t>((chunk >> 10) / range_kib);
          Device temp(delta_decode_temp_bytes_in_parts(count, parts));
          filter(
              parts == 1 ? "delta (one range a chunk)"
                         : "delta (ranges of " + std::to_string(range_kib) + " KiB)",
              [&](const DeviceChunkBatch& b) { delta_encode_batch(b, delta_type, stream); },
              [&](const DeviceChunkBatch& b) {
                delta_decode_batch_in_parts(b, delta_type, parts, temp.p, stream);
              });
        }
        // Decode without scratch: integers one thread block per chunk; floats the serial sum
        // (with scratch, floats decode speculatively: delta_kernels.hpp).
        {
          filter(
              is_float ? "delta (serial sum)" : "delta (block per chunk)",
              [&](const DeviceChunkBatch& b) { delta_encode_batch(b, delta_type, stream); },
              [&](const DeviceChunkBatch& b) { delta_decode_batch(b, delta_type, stream); });
        }
      }
      // crc32c codec: encode appends 4 bytes, decode verifies and strips them.
      if (!quantized && wanted_group("crc32c")) {
        Batch encoded(count, chunk, chunk + 4);
        Device temp(crc32c_codec_temp_bytes(count));
        const double enc = best_seconds(
            repetitions, [&] { crc32c_encode_batch(input.to(encoded), temp.p, stream); });
        bool ok = encoded.all_ok();
        encoded.take_produced_sizes();
        const double dec = best_seconds(
            repetitions, [&] { crc32c_decode_batch(encoded.to(decoded), temp.p, stream); });
        ok = ok && decoded.all_ok() && same_bytes(input, decoded);
        report("crc32c (codec)", static_cast<double>(count * (chunk + 4)), dec, enc, ok);
        Device crcs(count * 4);
        const DeviceChunkBatch b = input.to(decoded);
        const double compute = best_seconds(repetitions, [&] {
          crc32c_batch(b.inputs, b.input_sizes, count, static_cast<uint32_t*>(crcs.p), stream);
        });
        report("crc32c (compute only)", 0, compute, 0, true);
      }
    }
  }
  // zstd decode: chunks compressed by libzstd on the CPU (all cores), decoded on the GPU. "zstd":
  // the uint16 and float32 fields; "zstd-chains": data whose matches mostly read earlier blocks
  // (a delta-encoded float32 field, a uint32 label volume, the quantized uint16 field) and the
  // uint16 field. Chunks above one block also decode with every frame's matches forced in order
  // and forced a warp per block, after a line with chunk 0's share of external match bytes.
  struct ZstdData {
    std::string dtype;
    uint32_t typesize;
    std::vector<unsigned char> pool;
  };
  std::vector<ZstdData> zstd_data;
  if (wanted("zstd")) {
    zstd_data.push_back({"uint16", 2, make_field(kPoolBytes, false, 1)});
    zstd_data.push_back({"float32", 4, make_field(kPoolBytes, true, 1)});
  } else if (only == "zstd-chains") {
    zstd_data.push_back({"delta-f32", 4, make_delta_field(kPoolBytes, 1)});
    zstd_data.push_back({"labels32", 4, make_label_volume(kPoolBytes)});
    zstd_data.push_back({"q-uint16", 2, make_quantized_field(kPoolBytes, 1)});
    zstd_data.push_back({"uint16", 2, make_field(kPoolBytes, false, 1)});
  }
  const std::vector<long> zstd_levels =
      selection.levels.empty() ? std::vector<long>{1, 3} : selection.levels;
  for (const ZstdData& data : zstd_data) {
    const std::string& dtype = data.dtype;
    const uint32_t typesize = data.typesize;
    const std::vector<unsigned char>& pool = data.pool;
    for (size_t chunk :
         selection.chunks({size_t{64} << 10, size_t{1} << 20, size_t{4} << 20, size_t{32} << 20})) {
      const size_t count = std::max<size_t>((total_mib << 20) / chunk, 1);
      const double gb = static_cast<double>(count * chunk) / 1e9;
      std::vector<size_t> offsets(count);
      for (size_t i = 0; i < count; ++i)
        offsets[i] = (i * chunk * 7 / 3) % (kPoolBytes - chunk) / typesize * typesize;
      Batch input(count, chunk, chunk);
      for (size_t i = 0; i < count; ++i) {
        CHECK(cudaMemcpy(input.data.bytes() + i * chunk, pool.data() + offsets[i], chunk,
                         cudaMemcpyHostToDevice));
      }
      Batch decoded(count, chunk, chunk);
      for (const long level_value : zstd_levels) {
        const int level = static_cast<int>(level_value);
        const size_t stride = ZSTD_compressBound(chunk);
        std::vector<unsigned char> host(count * stride);
        std::vector<uint64_t> sizes(count);
        const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
        std::vector<std::thread> workers;
        for (unsigned t = 0; t < threads; ++t) {
          workers.emplace_back([&, t] {
            ZSTD_CCtx* cctx = ZSTD_createCCtx();
            ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
            for (size_t i = t; i < count; i += threads) {
              const size_t n = ZSTD_compress2(cctx, host.data() + i * stride, stride,
                                              pool.data() + offsets[i], chunk);
              sizes[i] = ZSTD_isError(n) ? 0 : n;
            }
            ZSTD_freeCCtx(cctx);
          });
        }
        for (auto& w : workers) w.join();
        Batch encoded(count, chunk, stride);
        CHECK(cudaMemcpy(encoded.data.p, host.data(), host.size(), cudaMemcpyHostToDevice));
        upload(encoded.sizes, sizes);
        double bytes = 0;
        for (auto x : sizes) bytes += static_cast<double>(x);
        const bool schedules = chunk > kZstdMaxBlockSize;
        if (schedules) {
          std::vector<unsigned char> out(chunk);
          const ZstdHostSlot storage(chunk);
          const ZstdSlot& slot = storage.slot;
          zstd_bp_plan(host.data(), sizes[0], chunk, slot);
          uint64_t external = 0;
          if (slot.plan->block_parallel != 0 &&
              zstd_bp_run_passes_host(host.data(), out.data(), chunk, slot).status ==
                  DeviceChunkStatus::ok) {
            for (uint32_t b = 0; b < slot.plan->block_count; ++b)
              external += slot.blocks[b].external_bytes;
          }
          std::printf(
              "  %s level %d, %zu KiB: %.1f %% of chunk 0's bytes are matches of earlier "
              "blocks (in order from %.1f %%)\n",
              dtype.c_str(), level, chunk >> 10,
              100.0 * static_cast<double>(external) / static_cast<double>(chunk),
              kZstdInOrderMatchesPermille / 10.0);
        }
        // The launcher's choice (max_output = the chunk size: chunks above 128 KiB, and every
        // chunk of batches of at least kZstdBlockParallelBatch, decode block-parallel); 64 KiB
        // chunks also one warp per chunk, to compare; larger chunks also with every frame's
        // matches in order (permille 0), a warp per block (no frame in order, stretches of 1
        // byte), and in stretches of fixed lengths shorter than the chunk.
        struct Variant {
          std::string name;
          uint64_t from;
          uint32_t in_order_permille;
          uint64_t stretch;
        };
        std::vector<Variant> variants{
            {" (CPU enc)", kZstdBlockParallelAuto, kZstdInOrderMatchesPermille, kZstdStretchAuto},
            {" (CPU enc, warp per chunk)", UINT64_MAX, kZstdInOrderMatchesPermille,
             kZstdStretchAuto},
            {" (matches in order)", kZstdBlockParallelAuto, 0, kZstdStretchAuto},
            {" (matches by block)", kZstdBlockParallelAuto, 1001, 1}};
        for (const uint64_t kib : {256, 512, 1024, 2048}) {
          if ((kib << 10) < chunk) {
            variants.push_back({" (stretches of " + std::to_string(kib) + " KiB)",
                                kZstdBlockParallelAuto, 1001, kib << 10});
          }
        }
        for (const Variant& v : variants) {
          const bool warp_per_chunk = v.from == UINT64_MAX;
          if (warp_per_chunk && chunk > (size_t{128} << 10)) continue;
          if (!warp_per_chunk && v.in_order_permille != kZstdInOrderMatchesPermille && !schedules)
            continue;
          Device temp(zstd_decode_temp_bytes(count, chunk, v.from));
          CHECK(cudaMemset(decoded.data.p, 0, count * chunk));
          const double dec = best_seconds(repetitions, [&] {
            zstd_decode_batch(encoded.to(decoded), true, chunk, temp.p, stream, v.from,
                              v.in_order_permille, v.stretch);
          });
          const bool ok = decoded.all_ok() && same_bytes(input, decoded);
          all_ok = all_ok && ok;
          print({"zstd level " + std::to_string(level) + v.name, dtype, chunk, gb * 1e9 / bytes,
                 gb / dec, 0.0, ok});
        }
      }
    }
  }
  if (wanted("deflate")) all_ok = deflate_rows(total_mib, repetitions, selection, stream) && all_ok;
  std::printf(all_ok ? "all decoded bytes equal the input\n" : "SOME CHECKS FAILED\n");
  return all_ok ? 0 : 1;
}
