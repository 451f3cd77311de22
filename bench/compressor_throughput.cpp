// Encode and decode throughput (GB/s of uncompressed bytes) and compression ratio of the
// standalone Compressor, per algorithm, on realistic data: a smooth uint16 field plus noise (like
// imaging or quantised simulation data: compressible, neither zeros nor random bytes). Host data
// always; device data (staged through pinned memory while every algorithm runs on the host) when a
// GPU is usable, else the device rows are reported as skipped.
//
//   cuzarr_compressor_throughput [--size-mib 256] [--chunk-size 65536] [--repeat 2]
//                                [--algorithms lz4,zstd,...] [--threads N]
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "cuzarr/api/compressor.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/core/parallel.hpp"
#include "cuzarr/memory/cuda_device.hpp"

namespace {

using namespace cuzarr;

struct Settings {
  size_t size_mib = 256;
  size_t chunk_size = kDefaultCompressionChunkSize;
  int repeat = 2;
  size_t threads = 0;
  std::vector<CompressionAlgorithm> algorithms = available_compression_algorithms();
};

Settings parse(int argc, char** argv) {
  Settings settings;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw InvalidArgumentError(fmt::format("{} needs a value", arg));
      return argv[++i];
    };
    if (arg == "--size-mib") {
      settings.size_mib = std::stoul(value());
    } else if (arg == "--chunk-size") {
      settings.chunk_size = std::stoul(value());
    } else if (arg == "--repeat") {
      settings.repeat = std::max(1, std::stoi(value()));
    } else if (arg == "--threads") {
      settings.threads = std::stoul(value());
    } else if (arg == "--algorithms") {
      settings.algorithms.clear();
      std::string list = value();
      size_t start = 0;
      while (start <= list.size()) {
        const size_t comma = std::min(list.find(',', start), list.size());
        settings.algorithms.push_back(
            parse_compression_algorithm(std::string_view(list).substr(start, comma - start)));
        start = comma + 1;
      }
    } else {
      throw InvalidArgumentError(fmt::format(
          "unknown argument {} (expected --size-mib, --chunk-size, --repeat, --algorithms, "
          "--threads)",
          arg));
    }
  }
  return settings;
}

// A smooth 2-D uint16 field (sums of sines, like a detector image or a quantised simulation
// field) plus Gaussian noise of a few counts, filled in parallel.
Buffer realistic_data(size_t bytes) {
  const size_t count = bytes / sizeof(uint16_t);
  Buffer buffer = Buffer::allocate(count * sizeof(uint16_t));
  auto* values = reinterpret_cast<uint16_t*>(buffer.data());
  constexpr size_t kRow = 4096;
  constexpr size_t kBlock = size_t{1} << 20;
  parallel_for((count + kBlock - 1) / kBlock, [&](size_t block) {
    std::mt19937 random(static_cast<unsigned>(block) + 7);
    std::normal_distribution<float> noise(0.0f, 1.0f);
    const size_t end = std::min(count, (block + 1) * kBlock);
    for (size_t i = block * kBlock; i < end; ++i) {
      const auto x = static_cast<float>(i % kRow);
      const auto y = static_cast<float>(i / kRow);
      const float field =
          std::sin(x * 0.003f) * std::cos(y * 0.002f) + 0.5f * std::sin((x + y) * 0.0007f);
      values[i] = static_cast<uint16_t>(
          std::clamp(30000.0f + 2000.0f * field + noise(random), 0.0f, 65535.0f));
    }
  });
  return buffer;
}

template <typename Body>
double best_seconds(int repeat, Body&& body) {
  double best = 1e300;
  for (int r = 0; r < repeat; ++r) {
    const auto start = std::chrono::steady_clock::now();
    body();
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    best = std::min(best, elapsed.count());
  }
  return best;
}

void run_row(const Settings& settings, CompressionAlgorithm algorithm, const Buffer& input,
             std::string_view data_label) {
  CompressorOptions options;
  options.algorithm = algorithm;
  options.chunk_size = settings.chunk_size;
  const Compressor compressor(options);
  CompressResult encoded;
  const double encode_s =
      best_seconds(settings.repeat, [&] { encoded = compressor.compress(input); });
  DecompressResult decoded;
  const double decode_s =
      best_seconds(settings.repeat, [&] { decoded = compressor.decompress(encoded.output); });
  if (decoded.output.size() != input.size())
    throw CorruptDataError(
        fmt::format("{}: round trip changed the size", compression_algorithm_name(algorithm)));
  const double gb = static_cast<double>(input.size()) / 1e9;
  fmt::print("{:<8} {:>6} {:<8} {:>12.3f} {:>12.3f} {:>8.3f}  {}\n",
             compression_algorithm_name(algorithm), options.effective_level(), data_label,
             gb / encode_s, gb / decode_s,
             static_cast<double>(input.size()) / static_cast<double>(encoded.output.size()),
             encoded.stats.staged_through_host
                 ? fmt::format("executed on {}, staged through host",
                               executed_on_name(encoded.stats.executed_on))
                 : fmt::format("executed on {}", executed_on_name(encoded.stats.executed_on)));
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Settings settings = parse(argc, argv);
    if (settings.threads > 0) set_cpu_threads(settings.threads);
    const Buffer host = realistic_data(settings.size_mib << 20);
    fmt::print(
        "cuzarr Compressor throughput: {} MiB of uint16 field + noise, chunks of {} bytes, "
        "native bitstream, best of {}, {} CPU threads\n",
        settings.size_mib, settings.chunk_size, settings.repeat, cpu_threads());
    fmt::print("{:<8} {:>6} {:<8} {:>12} {:>12} {:>8}  {}\n", "algo", "level", "data",
               "encode GB/s", "decode GB/s", "ratio", "notes");
    for (auto algorithm : settings.algorithms) run_row(settings, algorithm, host, "host");
    const std::string reason = cuda_unavailable_reason();
    if (!reason.empty()) {
      fmt::print("device rows skipped: {}\n", reason);
      return 0;
    }
    const Buffer device = host.copy_to(MemoryKind::device);
    for (auto algorithm : settings.algorithms) run_row(settings, algorithm, device, "device");
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "cuzarr_compressor_throughput: {}\n", e.what());
    return 2;
  }
}
