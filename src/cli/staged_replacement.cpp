#include "staged_replacement.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <system_error>

#include "cuzarr/api/group.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr::cli {
namespace fs = std::filesystem;

namespace {

/// A sibling of `path` that does not exist yet, named after it and `what`.
std::string free_sibling(const std::string& path, const char* what) {
  fs::path p = fs::path(path).lexically_normal();
  if (!p.has_filename()) p = p.parent_path();
  for (int attempt = 0;; ++attempt) {
    fs::path candidate = p;
    candidate += fmt::format(".cuzarr-{}-{}-{}", what, ::getpid(), attempt);
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(candidate, ec))) return candidate.string();
  }
}

}  // namespace

StagedReplacement::StagedReplacement(const std::string& path, bool replace)
    : path_(path), write_path_(path) {
  std::error_code ec;
  created_ = !fs::exists(fs::symlink_status(path, ec));
  if (!replace || !fs::is_directory(path, ec)) return;
  if (!node_type(*open_store(path, /*create=*/false), "")) return;
  write_path_ = free_sibling(path, "staging");
}

StagedReplacement::~StagedReplacement() {
  if (committed_) return;
  std::error_code ec;
  if (staged()) {
    fs::remove_all(write_path_, ec);  // best effort: the old node is untouched either way
  } else if (created_ && fs::is_directory(path_, ec) && fs::is_empty(path_, ec)) {
    fs::remove(path_, ec);
  }
}

void StagedReplacement::commit() {
  if (committed_) return;
  if (!staged()) {
    committed_ = true;
    return;
  }
  const std::string aside = free_sibling(path_, "replaced");
  std::error_code ec;
  fs::rename(path_, aside, ec);
  if (ec) {
    throw IoError(
        fmt::format("cannot move {} aside to {} to replace it: {}", path_, aside, ec.message()));
  }
  fs::rename(write_path_, path_, ec);
  if (ec) {
    const std::string reason = ec.message();
    std::error_code back;
    fs::rename(aside, path_, back);
    throw IoError(fmt::format("cannot move the new node {} to {}: {}{}", write_path_, path_, reason,
                              back ? fmt::format(" (the old node stays at {})", aside) : ""));
  }
  committed_ = true;
  fs::remove_all(aside, ec);
  if (ec) {
    throw IoError(fmt::format("replaced {}, but cannot remove the old node at {}: {}", path_, aside,
                              ec.message()));
  }
}

}  // namespace cuzarr::cli
