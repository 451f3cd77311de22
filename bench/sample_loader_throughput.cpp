// Throughput of SampleLoader: reads every sample of a Zarr array (N x 64 x 64 float32, zstd,
// chunks of 64 samples) in batches into device memory (host memory when there is no GPU or when
// this build cannot read into device memory, which it says), in order and shuffled, and prints
// samples/s and GB/s of decoded data.
//
//   cuzarr_sample_loader_throughput [--path DIR] [--samples N] [--batch B] [--epochs E]
//                                   [--kind host|device] [--no-prefetch]
//
// --path opens the array at DIR, or creates it there when DIR does not exist (default: a
// directory in the system's temporary directory, reused between runs). Lines starting with
// "RESULT" are meant for scripts: RESULT <order> <samples/s> <GB/s> <memory kind>.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <string_view>

#include "cuzarr/api/array.hpp"
#include "cuzarr/api/sample_loader.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/memory/cuda_device.hpp"
#include "cuzarr/store/file_store.hpp"

namespace {

struct Arguments {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / "cuzarr_sample_loader_bench.zarr";
  int64_t samples = 65536;
  size_t batch = 256;
  int epochs = 1;
  std::optional<cuzarr::MemoryKind> kind;
  bool prefetch = true;
};

[[noreturn]] void usage(const char* message) {
  std::fprintf(stderr,
               "%s\nusage: cuzarr_sample_loader_throughput [--path DIR] [--samples N] "
               "[--batch B] [--epochs E] [--kind host|device] [--no-prefetch]\n",
               message);
  std::exit(2);
}

Arguments parse(int argc, char** argv) {
  Arguments a;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage("missing value");
      return argv[++i];
    };
    if (arg == "--path") {
      a.path = value();
    } else if (arg == "--samples") {
      a.samples = std::stoll(value());
    } else if (arg == "--batch") {
      a.batch = std::stoull(value());
    } else if (arg == "--epochs") {
      a.epochs = std::stoi(value());
    } else if (arg == "--kind") {
      a.kind = cuzarr::parse_memory_kind(value());
    } else if (arg == "--no-prefetch") {
      a.prefetch = false;
    } else {
      usage(("unknown argument " + std::string(arg)).c_str());
    }
  }
  if (a.samples <= 0 || a.batch == 0 || a.epochs <= 0) usage("counts must be positive");
  return a;
}

// Opens the array at `path`, or creates N x 64 x 64 float32 samples there: a smooth field per
// sample plus a little noise (compresses like imaging data; neither zeros nor random bytes).
cuzarr::Array open_or_create(const Arguments& args) {
  using namespace cuzarr;
  const bool exists = std::filesystem::exists(args.path);
  auto store = std::make_shared<FileStore>(args.path);
  if (exists) {
    Array array = Array::open(store);
    std::printf("opened %s: shape [%lld, ...], %s\n", args.path.c_str(),
                static_cast<long long>(array.shape()[0]), array.data_type().name().c_str());
    return array;
  }
  ArrayCreateOptions o;
  o.shape = {args.samples, 64, 64};
  o.data_type = DataType(DataTypeKind::float32);
  o.chunk_shape = {64, 64, 64};
  o.codecs = std::vector<CodecSpec>{{"bytes", {{"endian", "little"}}},
                                    {"zstd", {{"level", 1}, {"checksum", false}}}};
  Array array = Array::create(store, "", o);
  std::printf("creating %s: [%lld, 64, 64] float32, zstd, chunks of 64 samples ...\n",
              args.path.c_str(), static_cast<long long>(args.samples));
  std::mt19937 noise(7);
  std::normal_distribution<float> normal(0.0f, 0.01f);
  const int64_t step = 1024;  // samples written per call
  for (int64_t first = 0; first < args.samples; first += step) {
    const int64_t count = std::min(step, args.samples - first);
    NDBuffer block = NDBuffer::allocate(o.data_type, {count, 64, 64});
    float* p = block.data_as<float>();
    for (int64_t s = 0; s < count; ++s) {
      const float phase = static_cast<float>(first + s) * 0.01f;
      for (int y = 0; y < 64; ++y)
        for (int x = 0; x < 64; ++x)
          *p++ = std::sin(0.1f * static_cast<float>(x) + phase) *
                     std::cos(0.07f * static_cast<float>(y) - phase) +
                 normal(noise);
    }
    array.write({Slice{first, first + count}}, block);
  }
  const auto info = array.storage_info();
  std::printf("stored %llu bytes in %lld chunks\n",
              static_cast<unsigned long long>(info.stored_bytes),
              static_cast<long long>(info.chunks_stored));
  return array;
}

// One epoch (or several) over the loader; returns seconds.
double run_epochs(cuzarr::SampleLoader& loader, int epochs, size_t& samples_seen) {
  const auto start = std::chrono::steady_clock::now();
  for (int e = 0; e < epochs; ++e) {
    loader.reset(static_cast<uint64_t>(e));
    while (const cuzarr::Bufferizer* batch = loader.next()) samples_seen += batch->size();
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace cuzarr;
  const Arguments args = parse(argc, argv);
  try {
    Array array = open_or_create(args);
    MemoryKind kind =
        args.kind.value_or(cuda_device_count() > 0 ? MemoryKind::device : MemoryKind::host);
    if (!args.kind && kind == MemoryKind::host)
      std::printf("no CUDA device: batches go to host memory\n");
    const double sample_bytes =
        static_cast<double>(element_count(array.shape()) / array.shape()[0]) *
        static_cast<double>(array.data_type().size());
    for (bool shuffle : {false, true}) {
      SampleLoaderOptions o;
      o.batch_size = args.batch;
      o.kind = kind;
      o.shuffle = shuffle;
      o.seed = 1;
      o.prefetch = args.prefetch;
      size_t seen = 0;
      double seconds = 0;
      try {
        SampleLoader loader(array, o);
        seconds = run_epochs(loader, args.epochs, seen);
      } catch (const UnsupportedError& e) {
        if (kind != MemoryKind::device) throw;
        std::printf(
            "reading into device memory is not supported by this build (%s): batches "
            "go to host memory\n",
            e.what());
        kind = o.kind = MemoryKind::host;
        SampleLoader loader(array, o);
        seen = 0;
        seconds = run_epochs(loader, args.epochs, seen);
      }
      const double samples_per_s = static_cast<double>(seen) / seconds;
      const char* order = shuffle ? "shuffled" : "sequential";
      std::printf(
          "%-10s %zu samples in %.3f s: %.0f samples/s, %.3f GB/s into %s memory "
          "(batch %zu%s)\n",
          order, seen, seconds, samples_per_s, samples_per_s * sample_bytes / 1e9,
          std::string(memory_kind_name(kind)).c_str(), args.batch,
          args.prefetch ? ", prefetch" : "");
      std::printf("RESULT %s %.1f %.4f %s\n", order, samples_per_s,
                  samples_per_s * sample_bytes / 1e9, std::string(memory_kind_name(kind)).c_str());
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
