// Store: the key -> bytes interface every Zarr store implements (Zarr v3 spec, "Stores").
// Keys are '/'-separated, relative, and never contain "." or ".." segments.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cuzarr/memory/buffer.hpp"
#include "cuzarr/store/byte_range.hpp"

namespace cuzarr {

/// One request of a batched get.
struct KeyRange {
  std::string key;
  ByteRange range;
};

/// The direct children of a prefix: keys of values and names of sub-prefixes (without '/').
struct DirectoryListing {
  std::vector<std::string> keys;
  std::vector<std::string> prefixes;
};

/// What Store::read_into found.
enum class ReadIntoResult { read, absent, size_differs };

class Store {
 public:
  virtual ~Store() = default;

  /// The bytes of `key` (or part of them), in memory of `kind`; nullopt when the key is absent.
  /// Throws InvalidArgumentError for a malformed key, IoError when the read fails.
  virtual std::optional<Buffer> get(std::string_view key, ByteRange range = {},
                                    MemoryKind kind = MemoryKind::host) const = 0;
  /// Many gets at once (implementations read in parallel and may coalesce ranges of one key).
  /// Result i answers requests[i].
  virtual std::vector<std::optional<Buffer>> get_many(std::span<const KeyRange> requests,
                                                      MemoryKind kind = MemoryKind::host) const;
  /// What get_many_each hands over: request i's result, in the thread that read it.
  using ReadyValue = std::function<void(size_t, std::optional<Buffer>)>;
  /// get_many that hands each result to `ready` as soon as it is read (from several threads at
  /// once where the store reads in parallel), so that the caller may start on it while the other
  /// reads run: a read into device memory queues each chunk's copy to the GPU. The default hands
  /// get_many's results over in order; exceptions of `ready` propagate.
  virtual void get_many_each(std::span<const KeyRange> requests, MemoryKind kind,
                             const ReadyValue& ready) const;
  /// Reads the whole value of `key` into the host memory `targets`, one after the other, when its
  /// size is exactly their total size (a value that needs no decoding, read straight into the
  /// rows of its place in a larger array): returns `read`. Returns `absent` or `size_differs`,
  /// having written nothing, otherwise. The default reads with get() and copies; the file store
  /// reads into the targets themselves. Throws what get() throws.
  virtual ReadIntoResult read_into(std::string_view key,
                                   std::span<const std::span<std::byte>> targets) const;
  /// Reads up to out.size() bytes of the value of `key` from byte `offset` into host memory
  /// `out` and returns how many (fewer only at the end of the value; 0 past it): for reading a
  /// value piece by piece into a small buffer. The default reads with get(); the file store
  /// reads into `out` itself. Throws NotFoundError naming the key when it is absent, and what
  /// get() throws.
  virtual size_t read_at(std::string_view key, uint64_t offset, std::span<std::byte> out) const;
  /// True when get() with MemoryKind::device reads straight into device memory (GPUDirect
  /// Storage) instead of through host memory.
  virtual bool reads_into_device() const { return false; }
  /// Size in bytes of the value at `key`, nullopt when absent.
  virtual std::optional<uint64_t> size(std::string_view key) const = 0;
  bool exists(std::string_view key) const { return size(key).has_value(); }

  /// Stores `value` at `key`, replacing any old value atomically (a reader sees old or new).
  virtual void set(std::string_view key, std::span<const std::byte> value) = 0;
  void set(std::string_view key, std::string_view text);
  /// Stores the concatenation of `parts` at `key`, as set() stores one value. The default joins
  /// them into one buffer and calls set(); a store that can write the parts where they lie (the
  /// file store: one gathered write) overrides it. Throws what set() throws.
  virtual void set_parts(std::string_view key, std::span<const std::span<const std::byte>> parts);
  /// Removes `key`; absent keys are not an error.
  virtual void erase(std::string_view key) = 0;
  /// Removes every key under `prefix` ("" = everything).
  virtual void erase_prefix(std::string_view prefix);

  /// Every key that starts with `prefix`, sorted.
  virtual std::vector<std::string> list(std::string_view prefix = "") const = 0;
  /// Direct children of the directory `prefix` ("" for the root, otherwise ending without '/').
  virtual DirectoryListing list_dir(std::string_view prefix) const;

  /// A short description for messages ("file store at /data/x.zarr").
  virtual std::string description() const = 0;
};

/// Throws InvalidArgumentError naming `key` unless it is a valid store key: non-empty, relative,
/// '/'-separated, no empty, "." or ".." segments, no backslashes or NUL bytes.
void validate_store_key(std::string_view key);

}  // namespace cuzarr
