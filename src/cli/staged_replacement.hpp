// Replacing a node that a directory holds without losing it on failure: `cp --overwrite` and
// `import --overwrite` write the new node into a fresh sibling directory, and only a finished
// write takes the old one's place. A write that fails (a corrupt source chunk, memory running out)
// or is interrupted leaves the old node as it was.
#pragma once

#include <filesystem>
#include <string>

namespace cuzarr::cli {

class StagedReplacement {
 public:
  /// Stages the writes when `replace` is set and `path` holds a Zarr node; else they go to `path`
  /// itself (nothing is there to lose).
  StagedReplacement(const std::string& path, bool replace);
  StagedReplacement(const StagedReplacement&) = delete;
  StagedReplacement& operator=(const StagedReplacement&) = delete;
  /// Removes the staging directory unless commit() moved it into place, and a directory that the
  /// writes created at `path` and left empty (a write that failed before its first file).
  ~StagedReplacement();

  /// Where the writes go.
  const std::string& write_path() const { return write_path_; }
  bool staged() const { return write_path_ != path_; }
  /// Moves the finished node into place: the old directory is renamed aside, the staged one
  /// renamed to `path`, then the old one removed. Throws IoError naming the paths on failure,
  /// with the old node back in place where the renames allow it.
  void commit();

 private:
  std::string path_;
  std::string write_path_;
  bool created_ = false;  // nothing was at `path`
  bool committed_ = false;
};

}  // namespace cuzarr::cli
