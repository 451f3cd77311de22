// `cuzarr bench`: times reads and writes of an array through the library, as a user of the API
// would do them, and reports seconds, decoded GB/s and the process's peak resident memory.
//   bench read PATH       reads a selection (or every chunk, one selection per chunk)
//   bench write SRC DST   reads SRC (untimed), then times writing it into a new array DST
//   bench roundtrip SRC DST  times reading SRC and writing it into a new array DST
// SRC is never written; DST must not exist unless --overwrite is given.
#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "command.hpp"
#include "cuzarr/cuzarr.hpp"
#include "node_location.hpp"

namespace cuzarr::cli {
namespace {

uint64_t peak_rss_bytes() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<uint64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

double seconds_of(const std::function<void()>& work) {
  const auto start = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

MemoryKind parse_device(const std::string& device) {
  if (device == "cpu") return MemoryKind::host;
  if (device == "cuda") return MemoryKind::device;
  throw InvalidArgumentError(fmt::format("--device: expected cpu or cuda, got \"{}\"", device));
}

/// The inner chunk shape of a sharded array (sharding spec: configuration.chunk_shape), if any.
std::optional<Shape> inner_chunk_shape(const ArrayMetadata& metadata) {
  for (const auto& codec : metadata.codecs) {
    if (codec.name == "sharding_indexed" && codec.configuration.contains("chunk_shape"))
      return codec.configuration["chunk_shape"].get<Shape>();
  }
  return std::nullopt;
}

/// One selection per chunk of the array's grid (or per inner chunk of its shards), in C order.
std::vector<Selection> chunk_selections(const ArrayMetadata& metadata, bool inner_chunks) {
  std::optional<Shape> inner;
  if (inner_chunks) {
    inner = inner_chunk_shape(metadata);
    if (!inner)
      throw InvalidArgumentError("--inner-chunks: the array is not sharded (no sharding_indexed)");
  }
  const size_t ndim = metadata.ndim();
  Shape grid(ndim);
  for (size_t d = 0; d < ndim; ++d)
    grid[d] = inner ? ceil_div(metadata.shape[d], (*inner)[d]) : metadata.chunk_grid_shape()[d];
  std::vector<Selection> selections;
  if (element_count(grid) == 0) return selections;
  Index coords(ndim, 0);
  while (true) {
    Selection selection;
    const Index origin = inner ? Index{} : metadata.chunk_origin(coords);
    const Shape shape = inner ? *inner : metadata.chunk_shape_at(coords);
    for (size_t d = 0; d < ndim; ++d) {
      const int64_t start = inner ? coords[d] * (*inner)[d] : origin[d];
      selection.push_back(Slice{start, std::min(start + shape[d], metadata.shape[d]), 1});
    }
    selections.push_back(std::move(selection));
    size_t d = ndim;
    while (d > 0 && ++coords[d - 1] == grid[d - 1]) coords[--d] = 0;
    if (d == 0) break;
  }
  return selections;
}

/// Runs work(i) for i in [0, n) on `concurrency` threads, each taking the next index.
void run_concurrently(size_t n, size_t concurrency, const std::function<void(size_t)>& work) {
  std::atomic<size_t> next{0};
  std::vector<std::exception_ptr> errors(concurrency);
  auto worker = [&](size_t w) {
    try {
      for (size_t i = next++; i < n; i = next++) work(i);
    } catch (...) {
      errors[w] = std::current_exception();
      next = n;  // the others stop after their current item
    }
  };
  std::vector<std::thread> threads;
  for (size_t w = 1; w < concurrency; ++w) threads.emplace_back(worker, w);
  worker(0);
  for (auto& t : threads) t.join();
  for (const auto& error : errors)
    if (error) std::rethrow_exception(error);
}

struct Timings {
  std::string operation;
  std::vector<double> seconds;
  uint64_t bytes = 0;
  std::vector<StageTime> best_stages;  // with --stages: the stage times of the best run
};

// Runs `run` once, timed; with stage times on, keeps the stages of the fastest run so far.
void time_run(Timings& t, const std::function<void()>& run) {
  reset_stage_times();
  const double seconds = seconds_of(run);
  const bool best =
      t.seconds.empty() || seconds < *std::min_element(t.seconds.begin(), t.seconds.end());
  t.seconds.push_back(seconds);
  if (best && stage_times_enabled()) t.best_stages = stage_times();
}

int report(const Timings& t, const nlohmann::json& settings, bool json) {
  const double best = *std::min_element(t.seconds.begin(), t.seconds.end());
  const double mean = std::accumulate(t.seconds.begin(), t.seconds.end(), 0.0) /
                      static_cast<double>(t.seconds.size());
  const double gbps = best > 0 ? static_cast<double>(t.bytes) / best / 1e9 : 0.0;
  const uint64_t rss = peak_rss_bytes();
  if (json) {
    nlohmann::json out = settings;
    out["operation"] = t.operation;
    out["seconds"] = t.seconds;
    out["best_seconds"] = best;
    out["mean_seconds"] = mean;
    out["decoded_bytes"] = t.bytes;
    out["gb_per_s"] = gbps;
    out["peak_rss_bytes"] = rss;
    if (stage_times_enabled()) {
      nlohmann::json stages = nlohmann::json::array();
      for (const auto& s : t.best_stages)
        stages.push_back({{"stage", s.stage}, {"seconds", s.seconds}, {"sections", s.sections}});
      out["stages"] = stages;
    }
    fmt::print("{}\n", out.dump());
  } else {
    fmt::print(
        "{}: {:.1f} MB decoded, best {:.4f} s, mean {:.4f} s over {} run{}: {:.3f} GB/s; "
        "peak RSS {:.1f} MB\n",
        t.operation, static_cast<double>(t.bytes) / 1e6, best, mean, t.seconds.size(),
        t.seconds.size() == 1 ? "" : "s", gbps, static_cast<double>(rss) / 1e6);
    if (stage_times_enabled()) {
      // Sections on several threads at once add their own times: a stage can exceed the run.
      fmt::print("stages of the best run ({:.4f} s), summed over threads:\n", best);
      for (const auto& s : t.best_stages)
        fmt::print("  {:<36} {:9.4f} s {:6.1f} %  {} section{}\n", s.stage, s.seconds,
                   best > 0 ? 100.0 * s.seconds / best : 0.0, s.sections,
                   s.sections == 1 ? "" : "s");
    }
  }
  return 0;
}

Array open_array(const std::string& path, bool direct_io = false) {
  NodeLocation node = open_node(path);
  if (node.type != NodeType::array)
    throw InvalidArgumentError(fmt::format("{} is a group; bench needs an array", path));
  if (direct_io) {
    auto* files = dynamic_cast<FileStore*>(node.store.get());
    if (!files) throw InvalidArgumentError("--direct-io needs a directory store");
    files->set_direct_io(true);
  }
  return Array::open(node.store);
}

/// A new array at `path` with the metadata of `source` (refuses to replace the source itself).
Array create_copy_target(const Array& source, const std::string& source_path,
                         const std::string& path, bool overwrite) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && std::filesystem::equivalent(source_path, path, ec))
    throw InvalidArgumentError(
        fmt::format("the destination {} is the source array; bench never writes its input", path));
  auto store = open_store(path, /*create=*/true);
  return Array::create(store, "", source.metadata(), overwrite);
}

uint64_t nbytes_of(const NDBuffer& buffer) {
  return static_cast<uint64_t>(buffer.size()) * buffer.dtype().size();
}

class BenchCommand final : public Command {
 public:
  explicit BenchCommand(CLI::App& app)
      : Command(app.add_subcommand("bench",
                                   "Time reads and writes of an array: seconds, GB/s "
                                   "(decoded bytes per second) and peak RSS")) {
    subcommand_->require_subcommand(1);
    read_ = subcommand_->add_subcommand("read", "Time reading a selection, or every chunk");
    read_->add_option("path", source_, "Directory of the Zarr array")->required();
    read_->add_option("--select", select_,
                      "numpy-style selection, e.g. \"0:100, :\" (default all)");
    read_->add_option("--device", device_, "Read into cpu (host) or cuda (device) memory")
        ->check(CLI::IsMember({"cpu", "cuda"}));
    read_->add_option("--gpu-decode", gpu_decode_,
                      "With --device cuda: where codecs decode, auto|gpu|cpu or per codec, e.g. "
                      "\"zstd=gpu,blosc=cpu,default=auto\" (default: CUZARR_GPU_DECODE, else "
                      "auto)");
    read_
        ->add_option("--gpu-batches", gpu_batches_,
                     "With --device cuda: batches whose GPU work may run at the same time "
                     "(default 3)")
        ->check(CLI::Range(size_t{1}, size_t{16}));
    read_->add_flag("--chunk-by-chunk", chunk_by_chunk_,
                    "Read one chunk (or shard) per call instead of one call for the selection");
    read_->add_flag("--direct-io", direct_io_,
                    "Read the files with O_DIRECT, bypassing the page cache (where the file "
                    "system allows it)");
    read_->add_flag("--inner-chunks", inner_chunks_,
                    "With --chunk-by-chunk: one call per inner chunk of a sharded array");
    read_->add_flag("--stages", stages_,
                    "Also print where the best run's time went: seconds per pipeline stage "
                    "(fetch, decode on the CPU, stage for the GPU, wait for the GPU, the GPU's "
                    "own time, ...)");
    read_
        ->add_option("--concurrency", concurrency_,
                     "With --chunk-by-chunk: calls in flight at once (threads issuing them)")
        ->check(CLI::Range(size_t{1}, size_t{1} << 20));

    write_ = subcommand_->add_subcommand(
        "write", "Read SRC into memory, then time writing it to a new array DST (SRC's metadata)");
    roundtrip_ = subcommand_->add_subcommand(
        "roundtrip", "Time reading SRC and writing it to a new array DST (SRC's metadata)");
    for (CLI::App* sub : {write_, roundtrip_}) {
      sub->add_option("src", source_, "Directory of the Zarr array to read")->required();
      sub->add_option("dst", destination_, "Directory of the array to create")->required();
      sub->add_flag("--overwrite", overwrite_, "Replace an existing node at DST");
    }
    for (CLI::App* sub : {read_, write_, roundtrip_}) {
      sub->add_option("--threads", threads_, "CPU threads cuzarr may use (0 = all cores)");
      sub->add_option("--repeat", repeat_, "Timed runs; the best is reported")
          ->check(CLI::Range(size_t{1}, size_t{1} << 20));
      sub->add_flag("--json", json_, "One JSON object instead of a line of text");
      sub->add_option("--batch-mb", batch_mb_,
                      "Decoded MiB one batch of chunks may hold (default 256; at least one chunk)")
          ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 30));
    }
  }

  int run() override {
    set_cpu_threads(threads_);
    enable_stage_times(stages_);
    nlohmann::json settings = {{"threads", cpu_threads()}, {"source", source_}};
    if (batch_mb_) settings["batch_mb"] = *batch_mb_;
    if (read_->parsed()) return run_read(settings);
    if (write_->parsed()) return run_write(settings, /*include_read=*/false);
    return run_write(settings, /*include_read=*/true);
  }

 private:
  void apply_batch_size(Array& array) const {
    if (batch_mb_) array.set_batch_bytes(*batch_mb_ << 20);
  }

  int run_read(nlohmann::json settings) {
    Array array = open_array(source_, direct_io_);
    apply_batch_size(array);
    const MemoryKind kind = parse_device(device_);
    if (gpu_batches_) {
      array.set_concurrent_device_batches(*gpu_batches_);
      settings["gpu_batches"] = *gpu_batches_;
    }
    if (gpu_decode_) {
      CodecPlacement placement;
      try {
        placement = CodecPlacement::parse(*gpu_decode_);
      } catch (const InvalidArgumentError& e) {
        throw InvalidArgumentError(fmt::format("--gpu-decode: {}", e.what()));
      }
      array.set_codec_placement(placement);
      settings["gpu_decode"] = placement.to_string();
    }
    if (!chunk_by_chunk_ && (inner_chunks_ || concurrency_ != 1))
      throw InvalidArgumentError("--inner-chunks and --concurrency need --chunk-by-chunk");
    if (chunk_by_chunk_ && !select_.empty())
      throw InvalidArgumentError("--select cannot be combined with --chunk-by-chunk");
    settings["device"] = device_;
    settings["direct_io"] = direct_io_;
    Timings timings;
    if (!chunk_by_chunk_) {
      const Selection selection = select_.empty() ? Selection{} : parse_selection(select_);
      timings.operation = "read";
      settings["select"] = select_;
      for (size_t r = 0; r < repeat_; ++r) {
        // A fresh result each run, the previous one freed first (peak RSS: one result at a time).
        time_run(timings, [&] { timings.bytes = nbytes_of(array.read(selection, kind)); });
      }
    } else {
      const auto selections = chunk_selections(array.metadata(), inner_chunks_);
      timings.operation = inner_chunks_ ? "read inner chunks" : "read chunks";
      settings["concurrency"] = concurrency_;
      settings["calls"] = selections.size();
      for (size_t r = 0; r < repeat_; ++r) {
        std::atomic<uint64_t> bytes{0};
        time_run(timings, [&] {
          run_concurrently(selections.size(), concurrency_,
                           [&](size_t i) { bytes += nbytes_of(array.read(selections[i], kind)); });
        });
        timings.bytes = bytes;
      }
    }
    return report(timings, settings, json_);
  }

  int run_write(nlohmann::json settings, bool include_read) {
    Array source = open_array(source_);
    apply_batch_size(source);
    settings["destination"] = destination_;
    Timings timings;
    timings.operation = include_read ? "roundtrip" : "write";
    NDBuffer data;
    if (!include_read) data = source.read();
    for (size_t r = 0; r < repeat_; ++r) {
      // Every run writes into a freshly created, empty array (untimed).
      Array target = create_copy_target(source, source_, destination_, overwrite_ || r > 0);
      apply_batch_size(target);
      time_run(timings, [&] {
        if (include_read) data = source.read();
        target.write({}, data);
      });
      timings.bytes = nbytes_of(data);
      if (include_read) data = NDBuffer();  // each run reads afresh
    }
    return report(timings, settings, json_);
  }

  CLI::App* read_ = nullptr;
  CLI::App* write_ = nullptr;
  CLI::App* roundtrip_ = nullptr;
  std::string source_, destination_, select_, device_ = "cpu";
  std::optional<std::string> gpu_decode_;
  bool chunk_by_chunk_ = false, inner_chunks_ = false, overwrite_ = false, json_ = false,
       direct_io_ = false, stages_ = false;
  size_t concurrency_ = 1, threads_ = 0, repeat_ = 1;
  std::optional<uint64_t> batch_mb_;
  std::optional<size_t> gpu_batches_;
};

}  // namespace

std::unique_ptr<Command> add_bench_command(CLI::App& app) {
  return std::make_unique<BenchCommand>(app);
}

}  // namespace cuzarr::cli
