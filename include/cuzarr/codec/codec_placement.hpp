// Where the codecs of arrays in device memory run: on the GPU (batched kernels) or on the CPU.
// A CodecPlacement holds a default and per-codec overrides, e.g. {"zstd": gpu, "blosc": cpu}; it
// is written as text like "auto", "gpu", "cpu" or "zstd=gpu,blosc=cpu,default=auto" (the grammar
// of the CUZARR_GPU_DECODE environment variable, `--gpu-decode` of the CLI).
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace cuzarr {

/// automatic: the GPU where it pays (decoders: where one exists and the chunk is within its
/// size limit; encoders: see docs/gpu_codecs.md); gpu: the GPU wherever the codec has a kernel
/// (else the CPU, said once in the log); cpu: always the CPU.
enum class Placement { automatic, cpu, gpu };

/// "auto", "cpu" or "gpu".
std::string_view placement_name(Placement placement);

struct CodecPlacement {
  /// The placement of codecs without an entry in `codecs` (written "default=...").
  Placement fallback = Placement::automatic;
  /// Per codec, by the codec's name without a "numcodecs." prefix ("zstd", "blosc", "lz4",
  /// "gzip", "zlib", "shuffle", "crc32c", ...): an entry serves the Zarr v3 codec and the
  /// numcodecs one of that name alike.
  std::map<std::string, Placement> codecs;

  /// One placement for every codec.
  static CodecPlacement all(Placement placement) { return CodecPlacement{placement, {}}; }
  /// Parses "auto" | "gpu" | "cpu" (every codec) or comma-separated entries "name=placement"
  /// (name "default" sets the fallback), spaces around names and values ignored; "" means auto.
  /// Throws InvalidArgumentError naming the entry for a malformed entry, an unknown placement,
  /// a codec name no registered codec has, or a codec given twice.
  static CodecPlacement parse(std::string_view text);

  /// The placement of the codec named `codec_name` (its name() or registered name; a
  /// "numcodecs." prefix is ignored).
  Placement of(std::string_view codec_name) const;
  /// The text form parse() reads back (entries in name order, "default" last when it is not
  /// auto; "auto" when there is nothing else).
  std::string to_string() const;
  /// Throws InvalidArgumentError naming the entry when an entry's name is empty or no registered
  /// codec has it.
  void validate() const;

  bool operator==(const CodecPlacement&) const = default;
};

/// Parses `text` like CodecPlacement::parse, but skips bad entries, logging one warning per bad
/// entry that names `source` (e.g. "CUZARR_GPU_DECODE") and the entry.
CodecPlacement parse_codec_placement_or_warn(std::string_view text, std::string_view source);

/// The placement the environment variable CUZARR_GPU_DECODE asks for (read once per process;
/// unset: all automatic). Bad entries are logged and skipped.
const CodecPlacement& codec_placement_from_environment();

}  // namespace cuzarr
