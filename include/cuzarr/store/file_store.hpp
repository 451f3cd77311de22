// FileStore: a directory on a local file system; each key is a file below the root.
// Writes are atomic (a temporary file ".cuzarr-tmp-*" in the same directory, then rename; listings
// skip such files); keys that would escape the root are refused. Symlinks inside the root are
// followed by get/set but symlinked directories are not walked by list/list_dir. erase and
// erase_prefix remove directories left empty, up to the root.
#pragma once

#include <filesystem>
#include <memory>

#include "cuzarr/store/gds_mode.hpp"
#include "cuzarr/store/store.hpp"

namespace cuzarr {

struct FileStoreOptions {
  /// How get() with MemoryKind::device reads (CUZARR_GDS overrides it): `on` through cuFile
  /// (GPUDirect Storage; the first device read throws UnsupportedError when cuFile is unusable),
  /// `off` through pinned bounce buffers, `automatic` through cuFile when its driver opens and
  /// the nvidia-fs kernel driver is loaded (true GPUDirect), else through pinned buffers.
  GdsMode gds = GdsMode::automatic;
};

class FileStore final : public Store {
 public:
  /// A store rooted at `root`. With create=true the directory is created when missing; otherwise
  /// a missing root throws NotFoundError naming it.
  explicit FileStore(std::filesystem::path root, bool create = true, FileStoreOptions options = {});

  std::optional<Buffer> get(std::string_view key, ByteRange range = {},
                            MemoryKind kind = MemoryKind::host) const override;
  std::vector<std::optional<Buffer>> get_many(std::span<const KeyRange> requests,
                                              MemoryKind kind = MemoryKind::host) const override;
  /// Reads in parallel, each result handed over by the thread that read it.
  void get_many_each(std::span<const KeyRange> requests, MemoryKind kind,
                     const ReadyValue& ready) const override;
  /// Reads with gathered reads (preadv) straight into the targets; with direct I/O on, as the
  /// default does.
  ReadIntoResult read_into(std::string_view key,
                           std::span<const std::span<std::byte>> targets) const override;
  /// pread into `out`.
  size_t read_at(std::string_view key, uint64_t offset, std::span<std::byte> out) const override;
  std::optional<uint64_t> size(std::string_view key) const override;
  void set(std::string_view key, std::span<const std::byte> value) override;
  /// Writes the parts with gathered writes (writev), without joining them first.
  void set_parts(std::string_view key, std::span<const std::span<const std::byte>> parts) override;
  using Store::set;
  void erase(std::string_view key) override;
  void erase_prefix(std::string_view prefix) override;
  std::vector<std::string> list(std::string_view prefix = "") const override;
  DirectoryListing list_dir(std::string_view prefix) const override;
  std::string description() const override;

  const std::filesystem::path& root() const { return root_; }
  /// True when device reads go through cuFile (decided at the first call; see FileStoreOptions).
  /// Throws UnsupportedError when the mode is `on` and cuFile is unusable.
  bool reads_into_device() const override;
  /// The configured GPUDirect Storage mode (before CUZARR_GDS).
  GdsMode gds_mode() const { return options_.gds; }

  /// Reads with O_DIRECT, bypassing the page cache, when `enabled` (default off; set it before
  /// sharing the store between threads). Reads are widened to 4096-byte boundaries into
  /// page-aligned memory and the requested bytes returned; a file system that refuses O_DIRECT
  /// is read through the page cache as usual. Writes are unaffected.
  void set_direct_io(bool enabled) { direct_io_ = enabled; }
  bool direct_io() const { return direct_io_; }

 private:
  std::filesystem::path path_of(std::string_view key) const;
  /// POSIX read of [begin, end) of the open file into device memory through a pinned buffer, or
  /// straight through cuFile.
  Buffer read_into_device(int fd, uint64_t begin, uint64_t end, const std::filesystem::path& path,
                          std::string_view key) const;
  Buffer read_through_pinned(int fd, uint64_t begin, uint64_t end,
                             const std::filesystem::path& path, std::string_view key) const;
  std::filesystem::path root_;
  FileStoreOptions options_;
  struct GdsDecision;
  std::shared_ptr<GdsDecision> gds_;
  bool direct_io_ = false;
};

}  // namespace cuzarr
