// Decode throughput of cuzarr's batched GPU decoders against nvCOMP's batched C API, on the same
// device batches: at least 1 GiB (decoded) of a smooth uint16 field plus noise, cut into chunks
// of 64 KiB, 1 MiB and 4 MiB (zstd, deflate and gzip also 32 MiB), compressed on the CPU by the
// reference libraries so that both decoders read the same standard streams: liblz4 raw blocks,
// libzstd levels 1 and 3, zlib raw deflate and gzip levels 1 and 6. Each decoder writes into
// zeroed output, its statuses and sizes are checked and its bytes compared with the original;
// times are the best of N runs, measured with CUDA events. nvCOMP's gzip decoder is measured with
// both of its algorithms (naive and lookahead).
//   cuzarr_nvcomp_comparison [total MiB per batch (default 1024)] [repetitions (default 5)]
//                            [lz4 | zstd | deflate | gzip (default all)]
#include <cuda_runtime_api.h>
#include <lz4.h>
#include <nvcomp.h>
#include <nvcomp/deflate.h>
#include <nvcomp/gzip.h>
#include <nvcomp/lz4.h>
#include <nvcomp/zstd.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "codec/cuda/deflate_kernels.hpp"
#include "codec/cuda/lz4_kernels.hpp"
#include "codec/cuda/zstd_kernels.hpp"
#include "gpu_bench_batch.hpp"

namespace {

using cuzarr::Stream;
using namespace cuzarr::gpu;
using namespace cuzarr::bench;

enum class Codec { lz4, zstd, deflate, gzip };
// nvCOMP's gzip decoder has two CUDA algorithms; the other codecs have one.
enum class NvcompVariant { plain, gzip_lookahead };

const char* codec_name(Codec c) {
  switch (c) {
    case Codec::lz4:
      return "lz4";
    case Codec::zstd:
      return "zstd";
    case Codec::deflate:
      return "deflate";
    case Codec::gzip:
      return "gzip";
  }
  return "?";
}

// `in` compressed by the CPU library of `codec` at `level`.
std::vector<unsigned char> compress(Codec codec, int level, const unsigned char* in, size_t n) {
  std::vector<unsigned char> out;
  switch (codec) {
    case Codec::lz4: {
      out.resize(static_cast<size_t>(LZ4_compressBound(static_cast<int>(n))));
      const int size = LZ4_compress_default(reinterpret_cast<const char*>(in),
                                            reinterpret_cast<char*>(out.data()),
                                            static_cast<int>(n), static_cast<int>(out.size()));
      if (size <= 0) std::exit(2);
      out.resize(static_cast<size_t>(size));
      return out;
    }
    case Codec::zstd: {
      out.resize(ZSTD_compressBound(n));
      const size_t size = ZSTD_compress(out.data(), out.size(), in, n, level);
      if (ZSTD_isError(size)) std::exit(2);
      out.resize(size);
      return out;
    }
    case Codec::deflate:
      return zlib_compress(in, n, level, -15);
    case Codec::gzip:
      return zlib_compress(in, n, level, kGzipWindowBits);
  }
  return out;
}

// cuzarr's batched decoder of `codec` from `encoded` into `decoded`; `temp` holds
// cuzarr_temp_bytes(codec, count, chunk).
size_t cuzarr_temp_bytes(Codec codec, size_t count, size_t chunk) {
  switch (codec) {
    case Codec::lz4:
      return 0;
    case Codec::zstd:
      return zstd_decode_temp_bytes(count, chunk);
    case Codec::deflate:
    case Codec::gzip:
      return inflate_temp_bytes(count, chunk);
  }
  return 0;
}
void cuzarr_decode(Codec codec, const Batch& encoded, const Batch& decoded, void* temp,
                   const Stream& stream) {
  const DeviceChunkBatch b = encoded.to(decoded);
  switch (codec) {
    case Codec::lz4:
      lz4_decode_batch(b, stream);
      break;
    // Content checksums are verified where frames have one (libzstd writes none by default).
    case Codec::zstd:
      zstd_decode_batch(b, true, decoded.chunk, temp, stream);
      break;
    case Codec::deflate:
      inflate_batch(b, DeflateWrapper::raw, true, decoded.chunk, temp, stream);
      break;
    case Codec::gzip:
      inflate_batch(b, DeflateWrapper::gzip, true, decoded.chunk, temp, stream);
      break;
  }
}

void nvcomp_check(nvcompStatus_t status, const char* what) {
  if (status != nvcompSuccess) {
    std::fprintf(stderr, "%s: nvCOMP status %d\n", what, static_cast<int>(status));
    std::exit(2);
  }
}

nvcompBatchedGzipDecompressOpts_t gzip_options(NvcompVariant variant) {
  nvcompBatchedGzipDecompressOpts_t opts = nvcompBatchedGzipDecompressDefaultOpts;
  if (variant == NvcompVariant::gzip_lookahead) {
    opts.algorithm = NVCOMP_GZIP_DECOMPRESS_ALGORITHM_LOOKAHEAD;
  }
  return opts;
}

// nvCOMP's temporary bytes for `count` chunks of `chunk` decoded bytes.
size_t nvcomp_temp_bytes(Codec codec, NvcompVariant variant, size_t count, size_t chunk,
                         cudaStream_t stream) {
  size_t bytes = 0;
  const size_t total = count * chunk;
  switch (codec) {
    case Codec::lz4:
      nvcomp_check(nvcompBatchedLZ4DecompressGetTempSize(
                       count, chunk, nvcompBatchedLZ4DecompressDefaultOpts, &bytes, total, stream),
                   "nvcompBatchedLZ4DecompressGetTempSize");
      break;
    case Codec::zstd:
      nvcomp_check(nvcompBatchedZstdDecompressGetTempSize(
                       count, chunk, nvcompBatchedZstdDecompressDefaultOpts, &bytes, total, stream),
                   "nvcompBatchedZstdDecompressGetTempSize");
      break;
    case Codec::deflate:
      nvcomp_check(
          nvcompBatchedDeflateDecompressGetTempSize(
              count, chunk, nvcompBatchedDeflateDecompressDefaultOpts, &bytes, total, stream),
          "nvcompBatchedDeflateDecompressGetTempSize");
      break;
    case Codec::gzip:
      nvcomp_check(nvcompBatchedGzipDecompressGetTempSize(count, chunk, gzip_options(variant),
                                                          &bytes, total, stream),
                   "nvcompBatchedGzipDecompressGetTempSize");
      break;
  }
  return bytes;
}

// nvCOMP's batched decoder of `codec` on the same arrays (uint64_t and size_t are one type here).
void nvcomp_decode(Codec codec, NvcompVariant variant, const Batch& encoded, const Batch& decoded,
                   void* temp, size_t temp_bytes, nvcompStatus_t* statuses, cudaStream_t stream) {
  const auto in = static_cast<const void* const*>(encoded.pointers.p);
  const auto in_sizes = static_cast<const size_t*>(encoded.sizes.p);
  const auto capacities = static_cast<const size_t*>(decoded.capacities.p);
  const auto out_sizes = static_cast<size_t*>(decoded.produced.p);
  const auto out = static_cast<void* const*>(decoded.pointers.p);
  const size_t n = encoded.count;
  nvcompStatus_t launched = nvcompSuccess;
  switch (codec) {
    case Codec::lz4:
      launched = nvcompBatchedLZ4DecompressAsync(
          in, in_sizes, capacities, out_sizes, n, temp, temp_bytes, out,
          nvcompBatchedLZ4DecompressDefaultOpts, statuses, stream);
      break;
    case Codec::zstd:
      launched = nvcompBatchedZstdDecompressAsync(
          in, in_sizes, capacities, out_sizes, n, temp, temp_bytes, out,
          nvcompBatchedZstdDecompressDefaultOpts, statuses, stream);
      break;
    case Codec::deflate:
      launched = nvcompBatchedDeflateDecompressAsync(
          in, in_sizes, capacities, out_sizes, n, temp, temp_bytes, out,
          nvcompBatchedDeflateDecompressDefaultOpts, statuses, stream);
      break;
    case Codec::gzip:
      launched =
          nvcompBatchedGzipDecompressAsync(in, in_sizes, capacities, out_sizes, n, temp, temp_bytes,
                                           out, gzip_options(variant), statuses, stream);
      break;
  }
  nvcomp_check(launched, "nvCOMP batched decompression");
}

// Every produced size is `chunk`.
bool sizes_are(const Batch& decoded, size_t chunk) {
  const std::vector<uint64_t> v = decoded.produced_sizes();
  return std::all_of(v.begin(), v.end(), [&](uint64_t s) { return s == chunk; });
}

// The first failing nvCOMP status, or nvcompSuccess.
nvcompStatus_t first_failure(const Device& statuses, size_t count) {
  std::vector<nvcompStatus_t> v(count);
  CHECK(cudaMemcpy(v.data(), statuses.p, count * sizeof(nvcompStatus_t), cudaMemcpyDeviceToHost));
  for (nvcompStatus_t s : v) {
    if (s != nvcompSuccess) return s;
  }
  return nvcompSuccess;
}

struct Options {
  size_t total_mib;
  int repetitions;
  Stream stream;
};

// One row per nvCOMP variant for `codec` at `level` and `chunk`: both decoders on the same
// compressed batch. Returns whether every check passed.
bool compare(const Options& o, const std::vector<unsigned char>& pool, const char* data,
             size_t pool_span, Codec codec, int level, size_t chunk) {
  const size_t count = std::max<size_t>(1, (o.total_mib << 20) / chunk);
  // Distinct chunks (slices of the pool at different places), compressed on all CPU cores; the
  // batch repeats them.
  const size_t distinct = std::min(count, std::max<size_t>(1, (size_t{64} << 20) / chunk));
  std::vector<size_t> offsets(distinct);
  for (size_t i = 0; i < distinct; ++i) offsets[i] = (i * chunk * 7 / 3) % pool_span / 2 * 2;
  std::vector<std::vector<unsigned char>> packed(distinct);
  {
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> workers;
    for (unsigned t = 0; t < threads; ++t) {
      workers.emplace_back([&, t] {
        for (size_t i = t; i < distinct; i += threads)
          packed[i] = compress(codec, level, pool.data() + offsets[i], chunk);
      });
    }
    for (auto& w : workers) w.join();
  }
  size_t stride = 0;
  double packed_bytes = 0;
  for (const auto& p : packed) {
    stride = std::max(stride, p.size());
    packed_bytes += static_cast<double>(p.size());
  }
  stride = (stride + 15) / 16 * 16;  // nvCOMP wants inputs aligned to 8 bytes (zstd, gzip)
  Batch input(count, chunk, chunk), decoded(count, chunk, chunk), encoded(count, chunk, stride);
  std::vector<uint64_t> sizes(count);
  for (size_t i = 0; i < count; ++i) {
    const size_t d = i % distinct;
    CHECK(cudaMemcpy(input.data.bytes() + i * chunk, pool.data() + offsets[d], chunk,
                     cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(encoded.data.bytes() + i * stride, packed[d].data(), packed[d].size(),
                     cudaMemcpyHostToDevice));
    sizes[i] = packed[d].size();
  }
  upload(encoded.sizes, sizes);
  const double gb = static_cast<double>(count * chunk) / 1e9;
  const double ratio = static_cast<double>(distinct * chunk) / packed_bytes;
  const auto clear_output = [&] { CHECK(cudaMemset(decoded.data.p, 0, count * chunk)); };

  Device temp(cuzarr_temp_bytes(codec, count, chunk));
  clear_output();
  const double ours = best_seconds(
      o.repetitions, [&] { cuzarr_decode(codec, encoded, decoded, temp.p, o.stream); });
  const bool ours_ok = decoded.all_ok() && sizes_are(decoded, chunk) && same_bytes(input, decoded);

  std::vector<NvcompVariant> variants{NvcompVariant::plain};
  if (codec == Codec::gzip) variants.push_back(NvcompVariant::gzip_lookahead);
  bool all_ok = ours_ok;
  for (NvcompVariant variant : variants) {
    const cudaStream_t native = o.stream.native();
    const size_t temp_bytes = nvcomp_temp_bytes(codec, variant, count, chunk, native);
    Device nv_temp(temp_bytes);
    Device statuses(count * sizeof(nvcompStatus_t));
    clear_output();
    const double theirs = best_seconds(o.repetitions, [&] {
      nvcomp_decode(codec, variant, encoded, decoded, nv_temp.p, temp_bytes,
                    static_cast<nvcompStatus_t*>(statuses.p), native);
    });
    const nvcompStatus_t failure = first_failure(statuses, count);
    const bool theirs_ok =
        failure == nvcompSuccess && sizes_are(decoded, chunk) && same_bytes(input, decoded);
    all_ok = all_ok && theirs_ok;
    std::string name = codec_name(codec);
    if (codec != Codec::lz4) name += " L" + std::to_string(level);  // liblz4: default acceleration
    name += std::string(" ") + data;
    if (variant == NvcompVariant::gzip_lookahead) name += " (nvCOMP lookahead)";
    std::string check = "ok";
    if (!ours_ok) check = "cuzarr MISMATCH";
    if (!theirs_ok) {
      check = (ours_ok ? "" : check + ", ") + "nvCOMP " +
              (failure != nvcompSuccess ? "status " + std::to_string(static_cast<int>(failure))
                                        : std::string("MISMATCH"));
    }
    std::printf("%-28s %8zu KiB %7.2f %12.1f %12.1f %14.2f   %s\n", name.c_str(), chunk / 1024,
                ratio, gb / ours, gb / theirs, theirs / ours, check.c_str());
    std::fflush(stdout);
  }
  return all_ok;
}

}  // namespace

int main(int argc, char** argv) {
  Options o{argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1024,
            argc > 2 ? std::atoi(argv[2]) : 5, Stream()};
  const std::string only = argc > 3 ? argv[3] : "";
  if (!only.empty() && only != "lz4" && only != "zstd" && only != "deflate" && only != "gzip") {
    std::fprintf(stderr, "third argument: lz4, zstd, deflate or gzip, not \"%s\"\n", only.c_str());
    return 2;
  }
  if (o.total_mib == 0 || o.repetitions < 1) {
    std::fprintf(stderr, "usage: %s [total MiB > 0] [repetitions >= 1] [codec]\n", argv[0]);
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "no CUDA device\n");
    return 1;
  }
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  nvcompProperties_t nv{};
  nvcomp_check(nvcompGetProperties(&nv), "nvcompGetProperties");
  std::printf("device: %s, nvCOMP %u.%u.%u, batch: %zu MiB decoded, best of %d\n", prop.name,
              NVCOMP_MAJOR_FROM_SEMVER(nv.version), NVCOMP_MINOR_FROM_SEMVER(nv.version),
              NVCOMP_PATCH_FROM_SEMVER(nv.version), o.total_mib, o.repetitions);
  std::printf("%-28s %12s %7s %12s %12s %14s   %s\n", "codec (CPU level) data", "chunk", "ratio",
              "cuzarr GB/s", "nvCOMP GB/s", "cuzarr/nvCOMP", "check");

  constexpr size_t kPoolSpan = size_t{64} << 20;
  // "field": smooth uint16 plus noise (LZ4 ratio about 1.0); "quantized": LZ4 ratio about 2.2.
  const std::vector<unsigned char> pool = make_field(kPoolSpan + (size_t{32} << 20), false, 2);
  const std::vector<unsigned char> quantized =
      make_quantized_field(kPoolSpan + (size_t{32} << 20), 2);
  const std::vector<size_t> lz4_chunks{size_t{64} << 10, size_t{1} << 20, size_t{2} << 20,
                                       size_t{4} << 20};
  const std::vector<size_t> all_chunks{size_t{64} << 10, size_t{1} << 20, size_t{4} << 20,
                                       size_t{32} << 20};
  struct Plan {
    Codec codec;
    std::vector<int> levels;
    const std::vector<size_t>* chunks;
  };
  const std::vector<Plan> plans{{Codec::lz4, {1}, &lz4_chunks},
                                {Codec::zstd, {1, 3}, &all_chunks},
                                {Codec::deflate, {1, 6}, &all_chunks},
                                {Codec::gzip, {1, 6}, &all_chunks}};
  bool all_ok = true;
  for (const Plan& plan : plans) {
    if (!only.empty() && only != codec_name(plan.codec)) continue;
    for (int level : plan.levels) {
      for (size_t chunk : *plan.chunks) {
        all_ok = compare(o, pool, "field", kPoolSpan, plan.codec, level, chunk) && all_ok;
        if (plan.codec == Codec::lz4)
          all_ok =
              compare(o, quantized, "quantized", kPoolSpan, plan.codec, level, chunk) && all_ok;
      }
    }
  }
  std::printf(all_ok ? "all decoded bytes equal the input\n" : "SOME CHECKS FAILED\n");
  return all_ok ? 0 : 1;
}
