// Decode GB/s of cuzarr's codec layer against the raw library call on the same chunks, for zstd,
// numcodecs lz4, blosc lz4 + shuffle, gzip and numcodecs zlib: shows how much the layer adds.
// *_layer: the batched decode (a new output per chunk); *_layer_into: decode_into an output that
// is reused (the pipeline's direct path); *_chain: the [bytes, codec] chain decoding into one
// destination array per chunk, as a read does; *_library: libzstd, liblz4, c-blosc or zlib called
// directly into one reused 1 MiB output, which stays in the core's L2 cache; *_library_distinct:
// the same calls into one output per chunk (64 MiB, reused across iterations), the like-for-like
// reference for the layer, whose outputs are distinct too. /1: one thread, /0: all cores.
// "faults": page faults per iteration (fresh memory touched). Data: a smooth uint16 field plus
// noise (compressible like real imaging/climate data, not zeros, not random bytes), 64 chunks of 1
// MiB.
#include <benchmark/benchmark.h>
#include <blosc.h>
#include <lz4.h>
#include <sys/resource.h>
#include <zlib.h>
#include <zstd.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "cuzarr/codec/codec_chain.hpp"
#include "cuzarr/codec/codec_registry.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/core/parallel.hpp"

namespace {

using cuzarr::Buffer;
using cuzarr::ChunkRepresentation;
using cuzarr::ChunkStatus;

constexpr int64_t kChunkElements = 512 * 1024;  // uint16 -> 1 MiB
constexpr size_t kChunks = 64;

ChunkRepresentation representation() {
  return {{kChunkElements},
          cuzarr::DataType(cuzarr::DataTypeKind::uint16),
          {std::byte{0}, std::byte{0}}};
}

std::vector<Buffer> realistic_chunks() {
  std::mt19937 rng(7);
  std::normal_distribution<double> noise(0.0, 30.0);
  std::vector<Buffer> chunks;
  for (size_t c = 0; c < kChunks; ++c) {
    Buffer b = Buffer::allocate(kChunkElements * 2);
    auto* v = reinterpret_cast<uint16_t*>(b.data());
    for (int64_t i = 0; i < kChunkElements; ++i) {
      double x = static_cast<double>(i % 512) / 40.0,
             y = static_cast<double>(i / 512 + c * 1024) / 55.0;
      v[i] = static_cast<uint16_t>(
          std::clamp(20000.0 + 8000.0 * std::sin(x) * std::cos(y) + noise(rng), 0.0, 65535.0));
    }
    chunks.push_back(b);
  }
  return chunks;
}

const std::vector<Buffer>& raw_chunks() {
  static const std::vector<Buffer> chunks = realistic_chunks();
  return chunks;
}

std::shared_ptr<cuzarr::BytesToBytesCodec> make_codec(const nlohmann::json& spec) {
  auto codec = cuzarr::CodecRegistry::instance().create(cuzarr::CodecSpec::from_json(spec),
                                                        representation());
  return std::dynamic_pointer_cast<cuzarr::BytesToBytesCodec>(codec);
}

std::vector<Buffer> encode_all(const cuzarr::BytesToBytesCodec& codec) {
  std::vector<Buffer> out(kChunks);
  std::vector<ChunkStatus> status(kChunks);
  codec.encode(raw_chunks(), out, representation(), status);
  cuzarr::throw_if_failed(status, [](size_t i) { return "benchmark chunk " + std::to_string(i); });
  return out;
}

// Minor page faults of this process so far (first touches of fresh memory).
int64_t minor_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// Reports GB/s of decoded bytes, the compression ratio and the page faults per iteration since
// `faults_before` (a decode into reused memory takes none).
void report(benchmark::State& state, const std::vector<Buffer>& encoded, int64_t faults_before) {
  state.counters["faults"] = benchmark::Counter(
      static_cast<double>(minor_faults() - faults_before) /
      static_cast<double>(std::max<benchmark::IterationCount>(1, state.iterations())));
  size_t compressed = 0;
  for (const auto& b : encoded) compressed += b.size();
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * kChunks * kChunkElements * 2);
  state.counters["ratio"] =
      static_cast<double>(kChunks * kChunkElements * 2) / static_cast<double>(compressed);
}

void layer_decode(benchmark::State& state, const nlohmann::json& spec) {
  auto codec = make_codec(spec);
  const auto encoded = encode_all(*codec);
  cuzarr::set_cpu_threads(static_cast<size_t>(state.range(0)));  // 0 = all cores
  {  // One untimed pass: the outputs then reuse freed memory, as they do in a long read.
    std::vector<Buffer> out(kChunks);
    std::vector<ChunkStatus> status(kChunks);
    codec->decode(encoded, out, representation(), status);
  }
  const int64_t faults = minor_faults();
  for (auto _ : state) {
    std::vector<Buffer> out(kChunks);
    std::vector<ChunkStatus> status(kChunks);
    codec->decode(encoded, out, representation(), status);
    benchmark::DoNotOptimize(out.data());
  }
  cuzarr::set_cpu_threads(0);
  report(state, encoded, faults);
}

// The layer's decode_into (what the pipeline uses for [bytes, codec] chains): each chunk decoded
// straight into a destination that is reused across iterations, like the library loop below.
void layer_decode_into(benchmark::State& state, const nlohmann::json& spec) {
  auto codec = make_codec(spec);
  const auto encoded = encode_all(*codec);
  std::vector<Buffer> out;
  for (size_t c = 0; c < kChunks; ++c) {
    out.push_back(Buffer::allocate(kChunkElements * 2));
    std::memset(out.back().data(), 0, out.back().size());  // touched, like the library's outputs
  }
  cuzarr::set_cpu_threads(static_cast<size_t>(state.range(0)));  // 0 = all cores
  const int64_t faults = minor_faults();
  for (auto _ : state) {
    cuzarr::parallel_for(kChunks, [&](size_t c) {
      if (!codec->decode_into(encoded[c].bytes(), out[c].bytes(), representation(), 1))
        throw cuzarr::UnsupportedError(codec->name() + " has no decode_into");
    });
    benchmark::DoNotOptimize(out.data());
  }
  cuzarr::set_cpu_threads(0);
  report(state, encoded, faults);
}

// The whole chain [bytes, codec] decoding into one destination array per chunk (reused), as a
// read does: the direct path when the codec has decode_into, else its decode() plus a copy.
void chain_decode(benchmark::State& state, const nlohmann::json& spec) {
  const nlohmann::json specs = {{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}},
                                spec};
  std::vector<cuzarr::CodecSpec> parsed;
  for (const auto& s : specs) parsed.push_back(cuzarr::CodecSpec::from_json(s));
  auto chain = cuzarr::CodecChain::create(parsed, representation());
  std::vector<cuzarr::NDBuffer> arrays, out;
  for (size_t c = 0; c < kChunks; ++c) {
    arrays.push_back(
        cuzarr::NDBuffer(raw_chunks()[c], representation().data_type, representation().shape));
    out.push_back(cuzarr::NDBuffer::allocate(representation().data_type, representation().shape));
    std::memset(out.back().data(), 0, kChunkElements * 2);  // touched, like the library's outputs
  }
  std::vector<Buffer> encoded(kChunks);
  std::vector<ChunkStatus> status(kChunks);
  chain->encode(arrays, encoded, status);
  cuzarr::throw_if_failed(status, [](size_t i) { return "benchmark chunk " + std::to_string(i); });
  cuzarr::set_cpu_threads(static_cast<size_t>(state.range(0)));  // 0 = all cores
  const int64_t faults = minor_faults();
  for (auto _ : state) {
    chain->decode(encoded, out, status);
    benchmark::DoNotOptimize(out.data());
  }
  cuzarr::throw_if_failed(status, [](size_t i) { return "benchmark chunk " + std::to_string(i); });
  cuzarr::set_cpu_threads(0);
  report(state, encoded, faults);
}

// The raw library calls on the same encoded chunks, one chunk after another on one thread, and
// the layer's /1 variant (one thread) is the like-for-like comparison; /0 uses every core.
template <class DecodeOne>
void library_decode(benchmark::State& state, const nlohmann::json& spec, DecodeOne decode_one) {
  auto codec = make_codec(spec);
  const auto encoded = encode_all(*codec);
  std::vector<uint8_t> out(kChunkElements * 2);
  const int64_t faults = minor_faults();
  for (auto _ : state) {
    for (const auto& chunk : encoded) decode_one(chunk, out);
    benchmark::DoNotOptimize(out.data());
  }
  report(state, encoded, faults);
}

// The same library calls, but each chunk into its own output (64 MiB in all, reused across
// iterations) like layer_decode_into: library_decode's single 1 MiB output stays in the core's
// L2 cache, which a real read (one destination per chunk) never enjoys.
template <class DecodeOne>
void library_decode_distinct(benchmark::State& state, const nlohmann::json& spec,
                             DecodeOne decode_one) {
  auto codec = make_codec(spec);
  const auto encoded = encode_all(*codec);
  std::vector<std::vector<uint8_t>> out(kChunks, std::vector<uint8_t>(kChunkElements * 2));
  const int64_t faults = minor_faults();
  for (auto _ : state) {
    for (size_t c = 0; c < kChunks; ++c) decode_one(encoded[c], out[c]);
    benchmark::DoNotOptimize(out.data());
  }
  report(state, encoded, faults);
}

void BM_zstd_layer(benchmark::State& s) {
  layer_decode(s, {{"name", "zstd"}, {"configuration", {{"level", 0}}}});
}
void BM_zstd_library(benchmark::State& s) {
  library_decode(s, {{"name", "zstd"}, {"configuration", {{"level", 0}}}},
                 [](const Buffer& in, std::vector<uint8_t>& out) {
                   ZSTD_decompress(out.data(), out.size(), in.data(), in.size());
                 });
}
void BM_zstd_layer_into(benchmark::State& s) {
  layer_decode_into(s, {{"name", "zstd"}, {"configuration", {{"level", 0}}}});
}
void BM_blosc_lz4_layer_into(benchmark::State& s) {
  layer_decode_into(s,
                    {{"name", "blosc"},
                     {"configuration",
                      {{"cname", "lz4"}, {"clevel", 5}, {"shuffle", "shuffle"}, {"typesize", 2}}}});
}
void BM_blosc_lz4_layer(benchmark::State& s) {
  layer_decode(s, {{"name", "blosc"},
                   {"configuration",
                    {{"cname", "lz4"}, {"clevel", 5}, {"shuffle", "shuffle"}, {"typesize", 2}}}});
}
void BM_blosc_lz4_library(benchmark::State& s) {
  library_decode(s,
                 {{"name", "blosc"},
                  {"configuration",
                   {{"cname", "lz4"}, {"clevel", 5}, {"shuffle", "shuffle"}, {"typesize", 2}}}},
                 [](const Buffer& in, std::vector<uint8_t>& out) {
                   blosc_decompress_ctx(in.data(), out.data(), out.size(), 1);
                 });
}
void BM_blosc_lz4_library_distinct(benchmark::State& s) {
  library_decode_distinct(
      s,
      {{"name", "blosc"},
       {"configuration",
        {{"cname", "lz4"}, {"clevel", 5}, {"shuffle", "shuffle"}, {"typesize", 2}}}},
      [](const Buffer& in, std::vector<uint8_t>& out) {
        blosc_decompress_ctx(in.data(), out.data(), out.size(), 1);
      });
}
void BM_gzip_layer(benchmark::State& s) {
  layer_decode(s, {{"name", "gzip"}, {"configuration", {{"level", 5}}}});
}
void BM_gzip_library(benchmark::State& s) {
  library_decode(s, {{"name", "gzip"}, {"configuration", {{"level", 5}}}},
                 [](const Buffer& in, std::vector<uint8_t>& out) {
                   z_stream z{};
                   inflateInit2(&z, 31);
                   z.next_in = const_cast<Bytef*>(reinterpret_cast<const Bytef*>(in.data()));
                   z.avail_in = static_cast<uInt>(in.size());
                   z.next_out = out.data();
                   z.avail_out = static_cast<uInt>(out.size());
                   inflate(&z, Z_FINISH);
                   inflateEnd(&z);
                 });
}

void BM_zlib_layer(benchmark::State& s) {
  layer_decode(s, {{"name", "numcodecs.zlib"}, {"configuration", {{"level", 5}}}});
}
void BM_zlib_library(benchmark::State& s) {
  library_decode(s, {{"name", "numcodecs.zlib"}, {"configuration", {{"level", 5}}}},
                 [](const Buffer& in, std::vector<uint8_t>& out) {
                   uLongf size = static_cast<uLongf>(out.size());
                   uncompress(out.data(), &size, reinterpret_cast<const Bytef*>(in.data()),
                              static_cast<uLong>(in.size()));
                 });
}
void BM_lz4_layer(benchmark::State& s) {
  layer_decode(s, {{"name", "numcodecs.lz4"}, {"configuration", {{"acceleration", 1}}}});
}
// numcodecs.lz4 frames one LZ4 block behind a 4-byte little-endian decoded size.
void BM_lz4_library(benchmark::State& s) {
  library_decode(s, {{"name", "numcodecs.lz4"}, {"configuration", {{"acceleration", 1}}}},
                 [](const Buffer& in, std::vector<uint8_t>& out) {
                   LZ4_decompress_safe(reinterpret_cast<const char*>(in.data()) + 4,
                                       reinterpret_cast<char*>(out.data()),
                                       static_cast<int>(in.size() - 4),
                                       static_cast<int>(out.size()));
                 });
}

void BM_lz4_layer_into(benchmark::State& s) {
  layer_decode_into(s, {{"name", "numcodecs.lz4"}, {"configuration", {{"acceleration", 1}}}});
}
void BM_lz4_chain(benchmark::State& s) {
  chain_decode(s, {{"name", "numcodecs.lz4"}, {"configuration", {{"acceleration", 1}}}});
}
void BM_lz4_library_distinct(benchmark::State& s) {
  library_decode_distinct(s, {{"name", "numcodecs.lz4"}, {"configuration", {{"acceleration", 1}}}},
                          [](const Buffer& in, std::vector<uint8_t>& out) {
                            LZ4_decompress_safe(reinterpret_cast<const char*>(in.data()) + 4,
                                                reinterpret_cast<char*>(out.data()),
                                                static_cast<int>(in.size() - 4),
                                                static_cast<int>(out.size()));
                          });
}

}  // namespace

BENCHMARK(BM_zstd_layer)->Arg(1)->Arg(0)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_zstd_layer_into)->Arg(1)->Arg(0)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_zstd_library)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_blosc_lz4_layer)->Arg(1)->Arg(0)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_blosc_lz4_layer_into)->Arg(1)->Arg(0)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_blosc_lz4_library)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_blosc_lz4_library_distinct)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_gzip_layer)->Arg(1)->Arg(0)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_gzip_library)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_zlib_layer)->Arg(1)->Arg(0)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_zlib_library)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_lz4_layer)->Arg(1)->Arg(0)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_lz4_layer_into)->Arg(1)->Arg(0)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_lz4_chain)->Arg(1)->Arg(0)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_lz4_library)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_lz4_library_distinct)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
