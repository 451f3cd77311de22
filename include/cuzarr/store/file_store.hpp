// FileStore: a directory on a local file system; each key is a file below the root.
// Writes are atomic (a temporary file ".cuzarr-tmp-*" in the same directory, then rename; listings
// skip such files); keys that would escape the root are refused. Symlinks inside the root are
// followed by get/set but symlinked directories are not walked by list/list_dir. erase and
// erase_prefix remove directories left empty, up to the root.
#pragma once

#include <filesystem>

#include "cuzarr/store/store.hpp"

namespace cuzarr {

class FileStore final : public Store {
 public:
  /// A store rooted at `root`. With create=true the directory is created when missing; otherwise
  /// a missing root throws NotFoundError naming it.
  explicit FileStore(std::filesystem::path root, bool create = true);

  std::optional<Buffer> get(std::string_view key, ByteRange range = {},
                            MemoryKind kind = MemoryKind::host) const override;
  std::vector<std::optional<Buffer>> get_many(std::span<const KeyRange> requests,
                                              MemoryKind kind = MemoryKind::host) const override;
  std::optional<uint64_t> size(std::string_view key) const override;
  void set(std::string_view key, std::span<const std::byte> value) override;
  using Store::set;
  void erase(std::string_view key) override;
  void erase_prefix(std::string_view prefix) override;
  std::vector<std::string> list(std::string_view prefix = "") const override;
  DirectoryListing list_dir(std::string_view prefix) const override;
  std::string description() const override;

  const std::filesystem::path& root() const { return root_; }

  /// Reads with O_DIRECT, bypassing the page cache, when `enabled` (default off; set it before
  /// sharing the store between threads). Reads are widened to 4096-byte boundaries into
  /// page-aligned memory and the requested bytes returned; a file system that refuses O_DIRECT
  /// is read through the page cache as usual. Writes are unaffected.
  void set_direct_io(bool enabled) { direct_io_ = enabled; }
  bool direct_io() const { return direct_io_; }

 private:
  std::filesystem::path path_of(std::string_view key) const;
  std::filesystem::path root_;
  bool direct_io_ = false;
};

}  // namespace cuzarr
