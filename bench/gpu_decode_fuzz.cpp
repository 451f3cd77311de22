// Differential fuzzing of cuzarr's batched GPU decoders (zstd; gzip, zlib and raw deflate; raw
// LZ4 blocks and numcodecs.lz4) against the reference libraries (libzstd, zlib, liblz4). Until
// the time is up, each round makes, for every codec, a batch of random valid chunks (random
// sizes from 1 byte to 4 MiB, data kinds and library settings: decode_fuzz_cases.hpp), some of
// them with an output capacity below their decoded size, plus mutated copies (bit flips,
// truncation, insertions, deletions, spliced headers), and decodes the batch with the GPU batch
// launcher. Every output lies in one device allocation followed by 64 guard bytes, checked after
// the launch. Verdicts:
//   - valid chunks must decode to the original bytes; with a capacity below the decoded size
//     the status must be output_too_small;
//   - mutated chunks: when the library rejects one the decoder must fail too ("gpu accepts"
//     counts the others); when both succeed the bytes must be equal; a decoder failing where the
//     library succeeds is counted apart ("gpu stricter", e.g. an empty zstd input, which libzstd
//     reads as no frame and 0 bytes).
// Mismatches, guard damage and "gpu accepts" cases are printed with the round and the case, and
// make the exit status 1. Counts per codec are printed at the end.
//   cuzarr_gpu_decode_fuzz [seconds (default 60)] [seed (default: random)] [--cpu]
//                          [--round N] [--dump DIR]
// --cpu runs the same format functions serially on the CPU (the host/device headers the kernels
// are built from: zstd_frame_format.hpp, zstd_block_parallel_host.hpp, zlib_gzip_wrappers.hpp,
// lz4_block_format.hpp, lz4_block_parallel_host.hpp) instead of the kernels; it is the only mode
// of builds without CUDA.
// --round N replays only round N of the seed; --dump DIR writes each failing input there.
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "codec/cuda/device_chunk_batch.hpp"
#include "codec/cuda/lz4_block_format.hpp"
#include "codec/cuda/lz4_block_parallel_host.hpp"
#include "codec/cuda/zlib_gzip_wrappers.hpp"
#include "codec/cuda/zstd_block_parallel_host.hpp"
#include "codec/cuda/zstd_frame_format.hpp"
#include "decode_fuzz_cases.hpp"

#if defined(CUZARR_HAVE_CUDA)
#include <cuda_runtime_api.h>

#include "codec/cuda/deflate_kernels.hpp"
#include "codec/cuda/lz4_kernels.hpp"
#include "codec/cuda/zstd_kernels.hpp"
#include "cuzarr/memory/stream.hpp"
#endif

namespace {

using namespace cuzarr::fuzz;
using cuzarr::gpu::DeviceChunkStatus;

constexpr size_t kGuardBytes = 64;
constexpr unsigned char kGuard = 0xA5;

/// What a decoder under test did with one case.
struct Outcome {
  DeviceChunkStatus status = DeviceChunkStatus::ok;
  uint64_t size = 0;
  Bytes bytes;  // the first min(size, capacity) output bytes
  bool guard_intact = true;
  std::string path;  // which decoder path ran
};

cuzarr::gpu::DeflateWrapper wrapper_of(Codec codec) {
  using cuzarr::gpu::DeflateWrapper;
  return codec == Codec::gzip   ? DeflateWrapper::gzip
         : codec == Codec::zlib ? DeflateWrapper::zlib
                                : DeflateWrapper::raw;
}

// The CPU backend: the kernels' format functions, serially, on exact-size heap copies.
std::vector<Outcome> decode_on_cpu(Codec codec, const std::vector<Case>& cases, Rng& rng) {
  static const cuzarr::gpu::Crc32Tables crc = cuzarr::gpu::make_crc32_tables();
  static auto zstd_workspace = std::make_unique<cuzarr::gpu::ZstdWorkspace>();
  static auto inflate_workspace = std::make_unique<cuzarr::gpu::InflateWorkspace>();
  std::vector<Outcome> outcomes;
  for (const Case& c : cases) {
    auto in = std::make_unique<unsigned char[]>(std::max<size_t>(c.input.size(), 1));
    if (!c.input.empty()) std::memcpy(in.get(), c.input.data(), c.input.size());
    Bytes out(c.capacity + kGuardBytes, kGuard);
    Outcome o;
    const uint64_t n = c.input.size();
    cuzarr::gpu::DecodeResult r;
    switch (codec) {
      case Codec::zstd: {
        const uint64_t way = below(rng, 3);
        if (way == 0) {
          r = cuzarr::gpu::zstd_decode_serial(in.get(), n, out.data(), c.capacity, *zstd_workspace,
                                              true);
          o.path = "serial";
        } else {
          bool block_parallel = false;
          r = cuzarr::gpu::zstd_decode_block_parallel_host(
              in.get(), n, out.data(), c.capacity, true, &block_parallel,
              way == 1 ? cuzarr::gpu::kZstdBlockParallelMinCapacity : 0);
          o.path = block_parallel ? "block-parallel" : "block-parallel host, serial fallback";
        }
        break;
      }
      case Codec::gzip:
      case Codec::zlib:
      case Codec::deflate: {
        const cuzarr::gpu::InflateResult ir =
            cuzarr::gpu::inflate_serial(in.get(), n, out.data(), c.capacity, wrapper_of(codec),
                                        true, *inflate_workspace, crc.table);
        r = {ir.status, ir.size};
        o.path = "inflate_serial";
        break;
      }
      case Codec::lz4:
        if (below(rng, 2) == 0) {
          r = cuzarr::gpu::lz4_decode_block_serial(in.get(), n, out.data(), c.capacity);
          o.path = "lz4_decode_block_serial";
        } else {  // every block that qualifies goes block-parallel, whatever its size
          cuzarr::gpu::Lz4BpReport report;
          r = cuzarr::gpu::lz4_decode_block_parallel_host(in.get(), n, out.data(), c.capacity, 1,
                                                          &report);
          o.path = report.parallel ? "lz4 block-parallel" : "lz4 block-parallel host, serial";
        }
        break;
      case Codec::numcodecs_lz4:
        r = cuzarr::gpu::numcodecs_lz4_decode_serial(in.get(), n, out.data(), c.capacity);
        o.path = "numcodecs_lz4_decode_serial";
        break;
    }
    o.status = r.status;
    o.size = r.size;
    o.bytes.assign(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(
                                                  std::min<uint64_t>(r.size, c.capacity)));
    for (size_t g = 0; g < kGuardBytes; ++g) o.guard_intact &= out[c.capacity + g] == kGuard;
    outcomes.push_back(std::move(o));
  }
  return outcomes;
}

#if defined(CUZARR_HAVE_CUDA)
void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(status));
    std::exit(2);
  }
}
#define CHECK(call) check((call), #call)

struct DeviceBuffer {
  void* p = nullptr;
  explicit DeviceBuffer(size_t bytes) { CHECK(cudaMalloc(&p, std::max<size_t>(bytes, 1))); }
  ~DeviceBuffer() { cudaFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  unsigned char* bytes() const { return static_cast<unsigned char*>(p); }
};

template <class T>
void upload(const DeviceBuffer& d, const std::vector<T>& v) {
  CHECK(cudaMemcpy(d.p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
}

// The GPU backend: one launch of the codec's batch launcher over all cases. Inputs lie back to
// back in one allocation; each output is followed by kGuardBytes guard bytes.
std::vector<Outcome> decode_on_gpu(Codec codec, const std::vector<Case>& cases, Rng& rng) {
  using namespace cuzarr::gpu;
  const size_t count = cases.size();
  std::vector<uint64_t> in_offsets(count), out_offsets(count), in_sizes(count), capacities(count);
  uint64_t in_total = 0, out_total = 0, max_capacity = 0;
  for (size_t i = 0; i < count; ++i) {
    in_offsets[i] = in_total;
    in_sizes[i] = cases[i].input.size();
    in_total += in_sizes[i];
    out_offsets[i] = out_total;
    capacities[i] = cases[i].capacity;
    out_total += (capacities[i] + kGuardBytes + 15) / 16 * 16;
    max_capacity = std::max(max_capacity, capacities[i]);
  }
  DeviceBuffer in(in_total), out(out_total);
  Bytes staged(in_total);
  for (size_t i = 0; i < count; ++i) {
    if (in_sizes[i]) std::memcpy(staged.data() + in_offsets[i], cases[i].input.data(), in_sizes[i]);
  }
  CHECK(cudaMemcpy(in.p, staged.data(), in_total, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(out.p, kGuard, out_total));
  std::vector<const unsigned char*> in_ptrs(count);
  std::vector<unsigned char*> out_ptrs(count);
  for (size_t i = 0; i < count; ++i) {
    in_ptrs[i] = in.bytes() + in_offsets[i];
    out_ptrs[i] = out.bytes() + out_offsets[i];
  }
  DeviceBuffer d_in_ptrs(count * sizeof(void*)), d_out_ptrs(count * sizeof(void*)),
      d_in_sizes(count * 8), d_capacities(count * 8), d_sizes(count * 8),
      d_statuses(count * sizeof(DeviceChunkStatus));
  upload(d_in_ptrs, in_ptrs);
  upload(d_out_ptrs, out_ptrs);
  upload(d_in_sizes, in_sizes);
  upload(d_capacities, capacities);
  CHECK(cudaMemset(d_sizes.p, 0xff, count * 8));
  CHECK(cudaMemset(d_statuses.p, 0x7f, count * sizeof(DeviceChunkStatus)));
  DeviceChunkBatch batch;
  batch.inputs = static_cast<const std::byte* const*>(d_in_ptrs.p);
  batch.input_sizes = static_cast<const uint64_t*>(d_in_sizes.p);
  batch.outputs = static_cast<std::byte* const*>(d_out_ptrs.p);
  batch.output_capacities = static_cast<const uint64_t*>(d_capacities.p);
  batch.output_sizes = static_cast<uint64_t*>(d_sizes.p);
  batch.statuses = static_cast<DeviceChunkStatus*>(d_statuses.p);
  batch.count = count;
  const cuzarr::Stream stream;
  std::string path;
  switch (codec) {
    case Codec::zstd: {
      // The three launcher paths: warp per chunk only; block-parallel above 128 KiB; everything
      // block-parallel.
      const uint64_t way = below(rng, 3);
      if (way == 0) {
        DeviceBuffer temp(zstd_decode_temp_bytes(count));
        zstd_decode_batch(batch, true, temp.p, stream);
        CHECK(cudaDeviceSynchronize());
        path = "warp per chunk";
      } else {
        const uint64_t from = way == 1 ? kZstdBlockParallelMinCapacity : 0;
        DeviceBuffer temp(zstd_decode_temp_bytes(count, max_capacity, from));
        zstd_decode_batch(batch, true, max_capacity, temp.p, stream, from);
        CHECK(cudaDeviceSynchronize());
        path = way == 1 ? "block-parallel above 128 KiB" : "block-parallel from 0";
      }
      break;
    }
    case Codec::gzip:
    case Codec::zlib:
    case Codec::deflate: {
      // The three launcher paths: warp per chunk only; the default (block-parallel from
      // inflate_block_parallel_from's threshold); everything block-parallel.
      const uint64_t way = below(rng, 3);
      const uint64_t from = way == 0 ? UINT64_MAX : way == 1 ? kInflateBpAuto : 0;
      DeviceBuffer temp(inflate_temp_bytes(count, max_capacity, from));
      inflate_batch(batch, wrapper_of(codec), true, max_capacity, temp.p, stream, from);
      CHECK(cudaDeviceSynchronize());  // before temp goes
      path = way == 0   ? "inflate, warp per chunk"
             : way == 1 ? "inflate, the default threshold"
                        : "inflate, block-parallel from 0";
      break;
    }
    case Codec::lz4:
    case Codec::numcodecs_lz4: {
      // The two launcher paths: a warp (or two) per block; every block block-parallel.
      const bool numcodecs = codec == Codec::numcodecs_lz4;
      if (below(rng, 2) == 0) {
        if (numcodecs) {
          numcodecs_lz4_decode_batch(batch, stream);
        } else {
          lz4_decode_batch(batch, stream);
        }
        path = numcodecs ? "numcodecs_lz4_decode_batch" : "lz4_decode_batch";
      } else {
        DeviceBuffer temp(lz4_decode_temp_bytes(count, max_capacity, 1));
        if (numcodecs) {
          numcodecs_lz4_decode_batch(batch, max_capacity, temp.p, stream, 1);
        } else {
          lz4_decode_batch(batch, max_capacity, temp.p, stream, 1);
        }
        CHECK(cudaDeviceSynchronize());  // before temp goes
        path = numcodecs ? "numcodecs_lz4_decode_batch, block-parallel from 1"
                         : "lz4_decode_batch, block-parallel from 1";
      }
      break;
    }
  }
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaGetLastError());
  std::vector<DeviceChunkStatus> statuses(count);
  std::vector<uint64_t> sizes(count);
  Bytes host(out_total);
  CHECK(cudaMemcpy(statuses.data(), d_statuses.p, count * sizeof(DeviceChunkStatus),
                   cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(sizes.data(), d_sizes.p, count * 8, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(host.data(), out.p, out_total, cudaMemcpyDeviceToHost));
  std::vector<Outcome> outcomes(count);
  for (size_t i = 0; i < count; ++i) {
    Outcome& o = outcomes[i];
    o.status = statuses[i];
    o.size = sizes[i];
    o.path = path;
    const unsigned char* at = host.data() + out_offsets[i];
    o.bytes.assign(at, at + std::min<uint64_t>(sizes[i], capacities[i]));
    for (size_t g = 0; g < kGuardBytes; ++g) o.guard_intact &= at[capacities[i] + g] == kGuard;
  }
  return outcomes;
}
#endif

struct Counts {
  uint64_t cases = 0, valid = 0, too_small = 0, mutated = 0, input_bytes = 0, decoded_bytes = 0;
  uint64_t exact = 0;          // both succeeded with the same bytes (valid ones included)
  uint64_t agreed_fail = 0;    // both failed
  uint64_t gpu_stricter = 0;   // library succeeded, decoder failed (mutated input)
  uint64_t gpu_accepts = 0;    // library failed, decoder succeeded
  uint64_t lz4_end_rules = 0;  // the same, on an LZ4 block breaking the end-of-block rules
  uint64_t mismatches = 0;     // different bytes or sizes, a valid chunk not decoded exactly,
                               // a wrong too-small status, damaged guard bytes
};

struct Run {
  uint64_t seed = 0;
  bool cpu = false;
  std::string dump;
  int reported = 0;
};

void report(Run& run, uint64_t round, Codec codec, size_t index, const Case& c, const Verdict& lib,
            const Outcome& o, const char* what) {
  if (run.reported < 40) {
    std::printf("%s: seed %" PRIu64 " round %" PRIu64
                " %s case %zu (%s; %s) input %zu bytes, "
                "capacity %" PRIu64 ": library %s%s, decoder (%s) %s size %" PRIu64 "%s\n",
                what, run.seed, round, codec_name(codec), index,
                c.valid       ? "valid"
                : c.too_small ? "valid, capacity too small"
                              : "mutated",
                c.how.c_str(), c.input.size(), c.capacity, lib ? "ok " : "fails",
                lib ? std::to_string(lib->size()).c_str() : "", o.path.c_str(),
                std::string(cuzarr::gpu::device_chunk_status_message(o.status)).c_str(), o.size,
                o.guard_intact ? "" : ", GUARD BYTES OVERWRITTEN");
    std::fflush(stdout);
  }
  ++run.reported;
  if (!run.dump.empty() && run.reported <= 100) {
    const std::string name = run.dump + "/fuzz-" + std::to_string(run.seed) + "-" +
                             std::to_string(round) + "-" + std::to_string(index) + "-" +
                             (codec == Codec::numcodecs_lz4 ? "numcodecs_lz4"
                              : codec == Codec::lz4         ? "lz4"
                              : codec == Codec::deflate     ? "deflate"
                                                            : codec_name(codec)) +
                             ".bin";
    std::ofstream(name, std::ios::binary)
        .write(reinterpret_cast<const char*>(c.input.data()),
               static_cast<std::streamsize>(c.input.size()));
  }
}

// One round for one codec: cases, their library verdicts, the decoder's outcomes, the counts.
void fuzz_round(Run& run, uint64_t round, Codec codec, Counts& counts) {
  Rng rng(run.seed * 0x9E3779B97F4A7C15ull + round * 8 + static_cast<uint64_t>(codec) + 1);
  // Originals: up to 40 chunks and 48 MiB decoded (a quarter of that on the CPU).
  const uint64_t budget = (run.cpu ? 12u : 48u) << 20;
  const size_t originals = 4 + below(rng, 37);
  std::vector<Case> cases;
  std::vector<Bytes> decoded;  // per case: the original data (valid and too-small cases)
  std::vector<Bytes> encoded_originals;
  std::vector<Bytes> datas;
  std::vector<std::string> hows;
  uint64_t total = 0;
  for (size_t k = 0; k < originals && total < budget; ++k) {
    std::string kind;
    Bytes data = make_data(rng, random_size(rng), kind);
    std::string how = kind + " " + std::to_string(data.size()) + " B:";
    Bytes enc = encode(rng, codec, data, how);
    total += data.size();
    datas.push_back(std::move(data));
    encoded_originals.push_back(std::move(enc));
    hows.push_back(std::move(how));
  }
  std::vector<const Bytes*> expected;
  for (size_t k = 0; k < datas.size(); ++k) {
    Case valid{encoded_originals[k], datas[k].size(), true, false, hows[k]};
    cases.push_back(valid);
    expected.push_back(&datas[k]);
    if (chance(rng, 6) && !datas[k].empty()) {
      Case small{encoded_originals[k], below(rng, datas[k].size()), false, true, hows[k]};
      cases.push_back(small);
      expected.push_back(&datas[k]);
    }
    const unsigned mutants = static_cast<unsigned>(below(rng, 4));
    for (unsigned m = 0; m < mutants; ++m) {
      Case bad;
      bad.how = hows[k] + " |";
      bad.input = mutate(rng, encoded_originals[k],
                         encoded_originals[below(rng, encoded_originals.size())], bad.how);
      bad.capacity = datas[k].size() + (chance(rng, 3) ? below(rng, 4096) : 0);
      if (chance(rng, 8)) bad.capacity = below(rng, bad.capacity + 1);
      cases.push_back(std::move(bad));
      expected.push_back(nullptr);
    }
  }
#if defined(CUZARR_HAVE_CUDA)
  const std::vector<Outcome> outcomes =
      run.cpu ? decode_on_cpu(codec, cases, rng) : decode_on_gpu(codec, cases, rng);
#else
  const std::vector<Outcome> outcomes = decode_on_cpu(codec, cases, rng);
#endif
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    const Outcome& o = outcomes[i];
    const Verdict lib = reference(codec, c.input, c.capacity);
    ++counts.cases;
    counts.input_bytes += c.input.size();
    counts.valid += c.valid;
    counts.too_small += c.too_small;
    counts.mutated += !c.valid && !c.too_small;
    const bool decoder_ok = o.status == DeviceChunkStatus::ok;
    if (decoder_ok) counts.decoded_bytes += o.size;
    if (!o.guard_intact) {
      ++counts.mismatches;
      report(run, round, codec, i, c, lib, o, "GUARD");
      continue;
    }
    if (c.valid && (!lib || *lib != *expected[i])) {
      // The generator or the library is wrong; not the decoder's fault, but never expected.
      ++counts.mismatches;
      report(run, round, codec, i, c, lib, o, "LIBRARY DISAGREES WITH ITS OWN OUTPUT");
      continue;
    }
    if (c.too_small) {
      if (o.status == DeviceChunkStatus::output_too_small && !lib) {
        ++counts.agreed_fail;
      } else {
        ++counts.mismatches;
        report(run, round, codec, i, c, lib, o, "MISMATCH (expected output_too_small)");
      }
      continue;
    }
    if (lib && decoder_ok) {
      if (o.size == lib->size() && o.bytes == *lib) {
        ++counts.exact;
      } else {
        ++counts.mismatches;
        report(run, round, codec, i, c, lib, o, "MISMATCH (different bytes)");
      }
    } else if (!lib && !decoder_ok) {
      ++counts.agreed_fail;
    } else if (lib) {  // the decoder fails where the library succeeds
      if (c.valid) {
        ++counts.mismatches;
        report(run, round, codec, i, c, lib, o, "MISMATCH (valid chunk rejected)");
      } else {
        ++counts.gpu_stricter;
        if (counts.gpu_stricter <= 3) report(run, round, codec, i, c, lib, o, "note: stricter");
      }
    } else if ((codec == Codec::lz4 || codec == Codec::numcodecs_lz4) &&
               lz4_breaks_end_rules(codec, c.input, c.capacity)) {
      // The decoders do not enforce LZ4's end-of-block conditions (the sequences still decode
      // unambiguously); liblz4 does.
      ++counts.lz4_end_rules;
      if (counts.lz4_end_rules <= 3) report(run, round, codec, i, c, lib, o, "note: lz4 end rules");
    } else {
      ++counts.gpu_accepts;
      report(run, round, codec, i, c, lib, o, "ACCEPTS WHAT THE LIBRARY REJECTS");
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  Run run;
  double seconds = 60;
  int64_t only_round = -1;
  std::vector<std::string> positional;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--cpu") {
      run.cpu = true;
    } else if (arg == "--round" && a + 1 < argc) {
      only_round = std::strtoll(argv[++a], nullptr, 10);
    } else if (arg == "--dump" && a + 1 < argc) {
      run.dump = argv[++a];
    } else if (!arg.empty() && arg[0] != '-') {
      positional.push_back(arg);
    } else {
      std::fprintf(stderr, "usage: %s [seconds] [seed] [--cpu] [--round N] [--dump DIR]\n",
                   argv[0]);
      return 2;
    }
  }
  if (!positional.empty()) seconds = std::strtod(positional[0].c_str(), nullptr);
  run.seed = positional.size() > 1 ? std::strtoull(positional[1].c_str(), nullptr, 10)
                                   : std::random_device{}();
#if defined(CUZARR_HAVE_CUDA)
  if (!run.cpu) {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
      std::fprintf(stderr, "no CUDA device (use --cpu to fuzz the format functions on the CPU)\n");
      return 2;
    }
    cudaDeviceProp prop{};
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device: %s\n", prop.name);
  }
#else
  run.cpu = true;
#endif
  std::printf("decoders: %s; seed %" PRIu64 "; %.0f s (replay: %s %.0f %" PRIu64 "%s)\n",
              run.cpu ? "CPU (the kernels' format functions, serially)" : "GPU batch launchers",
              run.seed, seconds, argv[0], seconds, run.seed, run.cpu ? " --cpu" : "");
  std::fflush(stdout);
  std::map<Codec, Counts> counts;
  const auto start = std::chrono::steady_clock::now();
  uint64_t rounds = 0;
  for (uint64_t round = only_round >= 0 ? static_cast<uint64_t>(only_round) : 0;; ++round) {
    for (Codec codec : kCodecs) fuzz_round(run, round, codec, counts[codec]);
    ++rounds;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (only_round >= 0 || elapsed >= seconds) break;
  }
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("\n%" PRIu64 " rounds in %.0f s, seed %" PRIu64 "\n", rounds, elapsed, run.seed);
  std::printf("%-16s %8s %7s %7s %8s %10s %10s %8s %9s %8s %8s %8s %10s\n", "codec", "cases",
              "valid", "small", "mutated", "MiB in", "MiB out", "ok-exact", "both-fail", "stricter",
              "lz4-end", "accepts", "mismatches");
  uint64_t bad = 0;
  for (Codec codec : kCodecs) {
    const Counts& c = counts[codec];
    std::printf("%-16s %8" PRIu64 " %7" PRIu64 " %7" PRIu64 " %8" PRIu64 " %10.1f %10.1f %8" PRIu64
                " %9" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %10" PRIu64 "\n",
                codec_name(codec), c.cases, c.valid, c.too_small, c.mutated,
                static_cast<double>(c.input_bytes) / (1 << 20),
                static_cast<double>(c.decoded_bytes) / (1 << 20), c.exact, c.agreed_fail,
                c.gpu_stricter, c.lz4_end_rules, c.gpu_accepts, c.mismatches);
    bad += c.mismatches + c.gpu_accepts;
  }
  std::printf("%s (seed %" PRIu64 ")\n",
              bad ? "FAILURES: mismatches or accepted invalid input" : "no mismatches", run.seed);
  return bad ? 1 : 0;
}
