#include "cuzarr/store/file_store.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <mutex>
#include <random>
#include <system_error>
#include <utility>
#include <vector>

#include "cuzarr/core/error.hpp"
#include "cuzarr/core/parallel.hpp"
#include "cuzarr/core/stage_times.hpp"
#include "store/cufile_library.hpp"

namespace fs = std::filesystem;

namespace cuzarr {
namespace {

// Values being written live in "<dir>/.cuzarr-tmp-<unique>" until renamed over their key; listings
// skip such names.
constexpr std::string_view kTempPrefix = ".cuzarr-tmp-";

bool is_temp_name(std::string_view name) { return name.starts_with(kTempPrefix); }

std::string errno_text(int error) {
  return std::error_code(error, std::generic_category()).message();
}

std::string_view strip_trailing_slash(std::string_view prefix) {
  if (!prefix.empty() && prefix.back() == '/') prefix.remove_suffix(1);
  return prefix;
}

// Closes a file descriptor when it goes out of scope.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(FileDescriptor&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  /// Closes now and returns close()'s errno (0 on success).
  int close() {
    const int fd = fd_;
    fd_ = -1;
    return fd >= 0 && ::close(fd) != 0 ? errno : 0;
  }

 private:
  int fd_;
};

// Reads exactly `size` bytes at `offset`, retrying after signals and short reads. Returns 0 or an
// errno; hitting the end of the file early reports EIO-like ENODATA.
int read_fully(int fd, std::byte* out, uint64_t size, uint64_t offset) {
  while (size > 0) {
    const ssize_t n = ::pread(fd, out, size, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return ENODATA;
    out += n;
    size -= static_cast<uint64_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return 0;
}

int write_fully(int fd, const std::byte* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return 0;
}

// Writes every part, in order, with as few writev calls as the system's iovec limit allows;
// 0 or the errno of the failure.
int write_parts_fully(int fd, std::span<const std::span<const std::byte>> parts) {
  std::vector<iovec> pending;
  pending.reserve(parts.size());
  for (const auto& part : parts)
    if (!part.empty()) pending.push_back({const_cast<std::byte*>(part.data()), part.size()});
  const size_t max_iov = static_cast<size_t>(std::max<long>(1, ::sysconf(_SC_IOV_MAX)));
  size_t first = 0;
  while (first < pending.size()) {
    const size_t count = std::min(max_iov, pending.size() - first);
    const ssize_t n = ::writev(fd, pending.data() + first, static_cast<int>(count));
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    // Skip what was written; a partly written part continues where it stopped.
    auto written = static_cast<size_t>(n);
    while (written > 0 && written >= pending[first].iov_len) written -= pending[first++].iov_len;
    if (written > 0) {
      pending[first].iov_base = static_cast<std::byte*>(pending[first].iov_base) + written;
      pending[first].iov_len -= written;
    }
  }
  return 0;
}

// A name no other writer (thread or process) picks at the same time; O_EXCL settles the rest.
std::string unique_temp_name() {
  static const uint64_t process_salt = std::random_device{}();
  static std::atomic<uint64_t> counter{0};
  return fmt::format("{}{}-{:x}-{}", kTempPrefix, ::getpid(), process_salt, counter.fetch_add(1));
}

bool is_missing(int error) { return error == ENOENT || error == ENOTDIR; }

// A regular file opened for reading, and its size.
struct ReadableFile {
  FileDescriptor fd;
  uint64_t size = 0;
};

// Opens the file of `key` at `path` for reading: nullopt when no regular file is there (a
// directory is a prefix, not a key); IoError naming the file when it cannot be opened or stat'ed.
std::optional<ReadableFile> open_readable(const fs::path& path, std::string_view key) {
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    const int error = errno;
    if (is_missing(error)) return std::nullopt;
    throw IoError(
        fmt::format("cannot open \"{}\" (key \"{}\"): {}", path.string(), key, errno_text(error)));
  }
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) {
    throw IoError(
        fmt::format("cannot stat \"{}\" (key \"{}\"): {}", path.string(), key, errno_text(errno)));
  }
  if (!S_ISREG(info.st_mode)) return std::nullopt;
  return ReadableFile{std::move(fd), static_cast<uint64_t>(info.st_size)};
}

// Moves the finished temporary file `temp` onto `path` atomically (readers see the old or the
// new value); 0 or the errno of the failure, with `temp` then still in place.
//
// An existing regular file is exchanged with the temporary one (renameat2 RENAME_EXCHANGE) and
// the old value, now under the temporary name, removed: ext4 starts writing the new file back
// inside rename(2) when the rename replaces an existing file (its auto_da_alloc heuristic), which
// made replacing a chunk cost about three times writing a new one; an exchange does not. Either
// way nothing is synced to disk (as for new keys). Anything else, and file systems without
// exchanges, take rename(2).
int move_into_place(const fs::path& temp, const fs::path& path) {
#ifdef RENAME_EXCHANGE
  struct stat info {};
  if (::lstat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode)) {
    if (::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) == 0) {
      if (::unlink(temp.c_str()) == 0) return 0;
      // Not a file any more (a directory made at the key meanwhile): put it back, fail as
      // rename(2) would.
      const int error = errno;
      if (::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) != 0)
        return errno;
      return error == EPERM ? EISDIR : error;
    }
    const int error = errno;
    if (error != ENOENT && error != EINVAL && error != ENOSYS && error != EOPNOTSUPP) return error;
  }
#endif
  return ::rename(temp.c_str(), path.c_str()) == 0 ? 0 : errno;
}

// O_DIRECT transfers need file offsets, lengths and memory aligned to the device's logical block
// size (512 or 4096 bytes on Linux); 4096 satisfies both.
constexpr uint64_t kDirectAlignment = 4096;

// Switches `fd` to O_DIRECT; false when the file system refuses it (EINVAL, e.g. tmpfs).
bool enable_direct_io(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  return flags >= 0 && ::fcntl(fd, F_SETFL, flags | O_DIRECT) == 0;
}

void disable_direct_io(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_DIRECT);
}

// Reads [begin, end) of an O_DIRECT file: the aligned range around it into page-aligned mapped
// memory (the file may end inside the last block). Returns nullopt, having switched `fd` back to
// buffered reads, when a transfer is refused (EINVAL), so that the caller reads the usual way.
// Throws IoError for other failures.
std::optional<Buffer> read_direct(int fd, uint64_t begin, uint64_t end, const fs::path& path,
                                  std::string_view key) {
  const uint64_t first = begin / kDirectAlignment * kDirectAlignment;
  const uint64_t last = (end + kDirectAlignment - 1) / kDirectAlignment * kDirectAlignment;
  const size_t length = static_cast<size_t>(std::max<uint64_t>(last - first, kDirectAlignment));
  void* memory =
      ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) throw std::bad_alloc();
  std::shared_ptr<void> owner(memory, [length](void* p) { ::munmap(p, length); });
  auto* bytes = static_cast<std::byte*>(memory);
  uint64_t done = 0;
  while (first + done < end) {
    const ssize_t n = ::pread(fd, bytes + done, length - done, static_cast<off_t>(first + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EINVAL) {
      disable_direct_io(fd);
      return std::nullopt;
    }
    if (n < 0) {
      throw IoError(fmt::format("cannot read \"{}\" (key \"{}\"): {}", path.string(), key,
                                errno_text(errno)));
    }
    if (n == 0) {
      throw IoError(fmt::format("cannot read \"{}\" (key \"{}\"): the file shrank while being read",
                                path.string(), key));
    }
    done += static_cast<uint64_t>(n);
    // A short transfer inside the file leaves the next offset unaligned: finish buffered.
    if (done % kDirectAlignment != 0 && first + done < end) {
      disable_direct_io(fd);
      if (const int error = read_fully(fd, bytes + done, end - first - done, first + done)) {
        throw IoError(
            fmt::format("cannot read \"{}\" (key \"{}\"): {}", path.string(), key,
                        error == ENODATA ? "the file shrank while being read" : errno_text(error)));
      }
      break;
    }
  }
  return Buffer::wrap(bytes + (begin - first), static_cast<size_t>(end - begin), MemoryKind::host,
                      std::move(owner));
}

}  // namespace

// Whether device reads use cuFile, decided once, at the first device read (loading libcufile may
// be slow and writes a log, so stores that never read into device memory never load it).
struct FileStore::GdsDecision {
  std::once_flag once;
  bool use_cufile = false;
  std::string refusal;  // set when mode ON cannot be honoured
};

FileStore::FileStore(fs::path root, bool create, FileStoreOptions options)
    : options_(options), gds_(std::make_shared<GdsDecision>()) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(root, ec);
  if (ec)
    throw IoError(fmt::format("cannot resolve store root \"{}\": {}", root.string(), ec.message()));
  const auto status = fs::status(absolute, ec);
  if (!fs::exists(status)) {
    if (!create)
      throw NotFoundError(fmt::format("store root \"{}\" does not exist", absolute.string()));
    fs::create_directories(absolute, ec);
    if (ec)
      throw IoError(
          fmt::format("cannot create store root \"{}\": {}", absolute.string(), ec.message()));
  } else if (!fs::is_directory(status)) {
    throw InvalidArgumentError(
        fmt::format("store root \"{}\" exists but is not a directory", absolute.string()));
  }
  // Keys are checked lexically against this path, so resolve symlinks and "..": once, here.
  root_ = fs::canonical(absolute, ec);
  if (ec)
    throw IoError(
        fmt::format("cannot resolve store root \"{}\": {}", absolute.string(), ec.message()));
}

fs::path FileStore::path_of(std::string_view key) const {
  // A valid key has no empty, "." or ".." segments and is relative, so root_/key stays below the
  // root lexically; the check below guards that reasoning. Symlinks that the store's owner placed
  // inside the root are followed, as for any directory tree.
  validate_store_key(key);
  fs::path path = root_ / fs::path(std::string(key));
  const auto [root_end, path_it] =
      std::mismatch(root_.begin(), root_.end(), path.begin(), path.end());
  if (root_end != root_.end() || path_it == path.end()) {
    throw InvalidArgumentError(fmt::format(
        "store key \"{}\" resolves outside the store root \"{}\"", key, root_.string()));
  }
  return path;
}

std::optional<Buffer> FileStore::get(std::string_view key, ByteRange range, MemoryKind kind) const {
  const fs::path path = path_of(key);
  std::optional<ReadableFile> file = [&] {
    const StageTimer timer("store: open files");
    return open_readable(path, key);
  }();
  if (!file) return std::nullopt;
  const FileDescriptor& fd = file->fd;
  uint64_t begin = 0, end = 0;
  range.resolve(file->size, begin, end);
  if (direct_io_ && end > begin && enable_direct_io(fd.get())) {
    if (auto direct = read_direct(fd.get(), begin, end, path, key))
      return kind == MemoryKind::host ? *direct : direct->copy_to(kind);
  }
  if (!is_host_accessible(kind)) return read_into_device(fd.get(), begin, end, path, key);
  Buffer out = Buffer::allocate(static_cast<size_t>(end - begin), kind);
  const StageTimer timer("store: read files");
  if (const int error = read_fully(fd.get(), out.data(), end - begin, begin)) {
    const std::string why =
        error == ENODATA ? "the file shrank while being read" : errno_text(error);
    throw IoError(fmt::format("cannot read {} of \"{}\" (key \"{}\"): {}", range.to_string(),
                              path.string(), key, why));
  }
  return out;
}

bool FileStore::reads_into_device() const {
  std::call_once(gds_->once, [&] {
    const GdsMode mode = effective_gds_mode(options_.gds);
    if (mode == GdsMode::off) return;
    const auto& cufile = detail::CuFileLibrary::instance();
    if (mode == GdsMode::on) {
      if (cufile.available())
        gds_->use_cufile = true;
      else
        gds_->refusal = "GPUDirect Storage was required (mode ON) but is unavailable: " +
                        cufile.unavailable_reason();
      return;
    }
    // Automatic: only true GPUDirect (the nvidia-fs kernel driver); cuFile's own compatibility
    // mode is no faster than our pinned bounce buffers.
    std::error_code ec;
    gds_->use_cufile = cufile.available() && fs::exists("/proc/driver/nvidia-fs", ec);
  });
  if (!gds_->refusal.empty()) throw UnsupportedError(gds_->refusal);
  return gds_->use_cufile;
}

Buffer FileStore::read_into_device(int fd, uint64_t begin, uint64_t end, const fs::path& path,
                                   std::string_view key) const {
  const size_t size = static_cast<size_t>(end - begin);
  if (reads_into_device()) {
    // cuFile reads through a descriptor opened with O_DIRECT (GPUDirect Storage bypasses the page
    // cache); a file system that refuses O_DIRECT is read through pinned memory instead.
    FileDescriptor direct(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_DIRECT));
    if (direct.get() < 0) return read_through_pinned(fd, begin, end, path, key);
    Buffer out = Buffer::allocate(size, MemoryKind::device);
    const std::string problem =
        detail::CuFileLibrary::instance().read(direct.get(), out.data(), size, begin);
    if (!problem.empty()) {
      throw IoError(
          fmt::format("cannot read bytes {}..{} of \"{}\" (key \"{}\") into device "
                      "memory: {}",
                      begin, end, path.string(), key, problem));
    }
    return out;
  }
  return read_through_pinned(fd, begin, end, path, key);
}

Buffer FileStore::read_through_pinned(int fd, uint64_t begin, uint64_t end, const fs::path& path,
                                      std::string_view key) const {
  const size_t size = static_cast<size_t>(end - begin);
  Buffer bounce = Buffer::allocate(size, MemoryKind::pinned);
  if (const int error = read_fully(fd, bounce.data(), size, begin)) {
    const std::string why =
        error == ENODATA ? "the file shrank while being read" : errno_text(error);
    throw IoError(fmt::format("cannot read bytes {}..{} of \"{}\" (key \"{}\"): {}", begin, end,
                              path.string(), key, why));
  }
  return bounce.copy_to(MemoryKind::device);
}

std::vector<std::optional<Buffer>> FileStore::get_many(std::span<const KeyRange> requests,
                                                       MemoryKind kind) const {
  std::vector<std::optional<Buffer>> results(requests.size());
  get_many_each(requests, kind,
                [&](size_t i, std::optional<Buffer> value) { results[i] = std::move(value); });
  return results;
}

void FileStore::get_many_each(std::span<const KeyRange> requests, MemoryKind kind,
                              const ReadyValue& ready) const {
  parallel_for(requests.size(),
               [&](size_t i) { ready(i, get(requests[i].key, requests[i].range, kind)); });
}

ReadIntoResult FileStore::read_into(std::string_view key,
                                    std::span<const std::span<std::byte>> targets) const {
  if (direct_io_) return Store::read_into(key, targets);  // O_DIRECT needs aligned memory
  const fs::path path = path_of(key);
  const std::optional<ReadableFile> file = open_readable(path, key);
  if (!file) return ReadIntoResult::absent;
  const FileDescriptor& fd = file->fd;
  uint64_t total = 0;
  for (const auto& t : targets) total += t.size();
  if (file->size != total) return ReadIntoResult::size_differs;
  // Gathered reads of at most IOV_MAX targets each, resuming inside a target after a short read.
  std::vector<iovec> iov;
  size_t next = 0;    // the first target not yet filled
  size_t within = 0;  // bytes of targets[next] already read
  uint64_t offset = 0;
  while (offset < total) {
    iov.clear();
    for (size_t t = next; t < targets.size() && iov.size() < IOV_MAX; ++t) {
      const size_t skip = t == next ? within : 0;
      if (targets[t].size() > skip)
        iov.push_back({targets[t].data() + skip, targets[t].size() - skip});
    }
    const ssize_t n =
        ::preadv(fd.get(), iov.data(), static_cast<int>(iov.size()), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = n == 0 ? "the file shrank while being read" : errno_text(errno);
      throw IoError(fmt::format("cannot read bytes {}..{} of \"{}\" (key \"{}\"): {}", offset,
                                total, path.string(), key, why));
    }
    offset += static_cast<uint64_t>(n);
    size_t left = static_cast<size_t>(n);
    while (left > 0 && next < targets.size()) {
      const size_t room = targets[next].size() - within;
      if (left < room) {
        within += left;
        left = 0;
      } else {
        left -= room;
        within = 0;
        ++next;
      }
    }
  }
  return ReadIntoResult::read;
}

size_t FileStore::read_at(std::string_view key, uint64_t offset, std::span<std::byte> out) const {
  const fs::path path = path_of(key);
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    const int error = errno;
    if (is_missing(error)) {
      throw NotFoundError(fmt::format("key \"{}\" not found (no file \"{}\")", key, path.string()));
    }
    throw IoError(
        fmt::format("cannot open \"{}\" (key \"{}\"): {}", path.string(), key, errno_text(error)));
  }
  size_t done = 0;
  while (done < out.size()) {
    const ssize_t n =
        ::pread(fd.get(), out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      throw IoError(fmt::format("cannot read \"{}\" (key \"{}\") at byte {}: {}", path.string(),
                                key, offset + done, errno_text(errno)));
    }
    if (n == 0) break;  // the end of the file
    done += static_cast<size_t>(n);
  }
  return done;
}

std::optional<uint64_t> FileStore::size(std::string_view key) const {
  const fs::path path = path_of(key);
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    const int error = errno;
    if (is_missing(error)) return std::nullopt;
    throw IoError(
        fmt::format("cannot stat \"{}\" (key \"{}\"): {}", path.string(), key, errno_text(error)));
  }
  if (!S_ISREG(info.st_mode)) return std::nullopt;
  return static_cast<uint64_t>(info.st_size);
}

void FileStore::set(std::string_view key, std::span<const std::byte> value) {
  const std::span<const std::byte> parts[1] = {value};
  set_parts(key, parts);
}

void FileStore::set_parts(std::string_view key, std::span<const std::span<const std::byte>> parts) {
  const fs::path path = path_of(key);
  const fs::path directory = path.parent_path();
  auto fail = [&](const fs::path& file, const std::string& what, const std::string& why) {
    throw IoError(
        fmt::format("cannot write key \"{}\": {} \"{}\": {}", key, what, file.string(), why));
  };

  // Open a fresh temporary file next to the key. A concurrent erase may prune the directory we just
  // created, so retry creating it a few times.
  fs::path temp;
  int raw_fd = -1;
  for (int attempt = 0; raw_fd < 0; ++attempt) {
    std::error_code ec;
    fs::create_directories(directory, ec);
    if (ec) fail(directory, "cannot create directory", ec.message());
    temp = directory / unique_temp_name();
    raw_fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (raw_fd < 0) {
      const int error = errno;
      if ((error == ENOENT || error == EEXIST) && attempt < 8) continue;
      fail(temp, "cannot create temporary file", errno_text(error));
    }
  }
  FileDescriptor fd(raw_fd);

  // From here on a failure removes the temporary file; the old value stays in place.
  auto fail_and_clean = [&](const fs::path& file, const std::string& what, int error) {
    fd.close();
    ::unlink(temp.c_str());
    fail(file, what, errno_text(error));
  };
  const int written = parts.size() == 1 ? write_fully(fd.get(), parts[0].data(), parts[0].size())
                                        : write_parts_fully(fd.get(), parts);
  if (const int error = written) fail_and_clean(temp, "cannot write", error);
  if (const int error = fd.close()) fail_and_clean(temp, "cannot close", error);
  // Replaces the old file atomically: readers see the old or the new value (POSIX rename).
  if (const int error = move_into_place(temp, path))
    fail_and_clean(path, "cannot rename a temporary file onto", error);
}

void FileStore::erase(std::string_view key) {
  const fs::path path = path_of(key);
  if (::unlink(path.c_str()) != 0) {
    const int error = errno;
    // Absent keys are fine; so is a directory (a prefix, not a key: EISDIR on Linux, EPERM on
    // POSIX).
    if (is_missing(error) || error == EISDIR) return;
    if (error == EPERM) {
      struct stat info {};
      if (::lstat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) return;
    }
    throw IoError(fmt::format("cannot remove \"{}\" (key \"{}\"): {}", path.string(), key,
                              errno_text(error)));
  }
  // Prune directories left empty, up to but not including the root. rmdir fails on a non-empty
  // directory, which ends the walk.
  for (fs::path dir = path.parent_path();
       dir != root_ && dir.native().size() > root_.native().size(); dir = dir.parent_path()) {
    if (::rmdir(dir.c_str()) != 0) break;
  }
}

void FileStore::erase_prefix(std::string_view prefix) {
  prefix = strip_trailing_slash(prefix);
  std::error_code ec;
  if (prefix.empty()) {
    // Everything below the root, but not the root itself.
    for (fs::directory_iterator it(root_, ec), end; !ec && it != end; it.increment(ec)) {
      fs::remove_all(it->path(), ec);
      if (ec)
        throw IoError(fmt::format("cannot remove \"{}\": {}", it->path().string(), ec.message()));
    }
    if (ec) throw IoError(fmt::format("cannot list \"{}\": {}", root_.string(), ec.message()));
    return;
  }
  const fs::path path = path_of(prefix);
  // Directory semantics, as Store::erase_prefix: a value stored at `prefix` itself is kept.
  if (!fs::is_directory(fs::symlink_status(path, ec))) return;
  fs::remove_all(path, ec);
  if (ec)
    throw IoError(fmt::format("cannot remove \"{}\" (prefix \"{}\"): {}", path.string(), prefix,
                              ec.message()));
  for (fs::path dir = path.parent_path();
       dir != root_ && dir.native().size() > root_.native().size(); dir = dir.parent_path()) {
    if (::rmdir(dir.c_str()) != 0) break;
  }
}

namespace {

// Appends the keys of regular files below `dir` (whose key prefix is `dir_key`, "" or ending in
// '/') that start with `prefix`. Directories that vanish while we walk are skipped; symlinked
// directories are not walked (a link may point to an ancestor), symlinked files are listed.
void collect_keys(const fs::path& dir, const std::string& dir_key, std::string_view prefix,
                  std::vector<std::string>& keys) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec), end;
  if (ec) {
    if (is_missing(ec.value())) return;
    throw IoError(fmt::format("cannot list \"{}\": {}", dir.string(), ec.message()));
  }
  for (; it != end; it.increment(ec)) {
    if (ec) break;
    const std::string name = it->path().filename().string();
    if (is_temp_name(name)) continue;
    std::string key = dir_key + name;
    std::error_code status_ec;
    const auto status = it->status(status_ec);  // follows symlinks
    if (status_ec) continue;                    // vanished or dangling
    if (fs::is_directory(status) && !it->is_symlink(status_ec)) {
      std::string sub = key + "/";
      // Descend only where keys could still match the prefix.
      if (sub.starts_with(prefix) || prefix.starts_with(sub))
        collect_keys(it->path(), sub, prefix, keys);
    } else if (fs::is_regular_file(status) && key.starts_with(prefix)) {
      keys.push_back(std::move(key));
    }
  }
  if (ec && !is_missing(ec.value()))
    throw IoError(fmt::format("cannot list \"{}\": {}", dir.string(), ec.message()));
}

}  // namespace

std::vector<std::string> FileStore::list(std::string_view prefix) const {
  // Start the walk at the deepest directory the prefix names; a prefix whose directory part is not
  // a valid key matches no key.
  const size_t slash = prefix.rfind('/');
  std::string dir_key;
  fs::path start = root_;
  if (slash != std::string_view::npos) {
    const std::string_view dir = prefix.substr(0, slash);
    try {
      start = path_of(dir);
    } catch (const InvalidArgumentError&) {
      return {};
    }
    dir_key = std::string(dir) + "/";
  }
  std::vector<std::string> keys;
  collect_keys(start, dir_key, prefix, keys);
  std::sort(keys.begin(), keys.end());
  return keys;
}

DirectoryListing FileStore::list_dir(std::string_view prefix) const {
  prefix = strip_trailing_slash(prefix);
  const fs::path dir = prefix.empty() ? root_ : path_of(prefix);
  DirectoryListing listing;
  std::error_code ec;
  fs::directory_iterator it(dir, ec), end;
  if (ec) {
    if (is_missing(ec.value())) return listing;
    throw IoError(
        fmt::format("cannot list \"{}\" (prefix \"{}\"): {}", dir.string(), prefix, ec.message()));
  }
  for (; it != end; it.increment(ec)) {
    if (ec) break;
    std::string name = it->path().filename().string();
    if (is_temp_name(name)) continue;
    std::error_code status_ec;
    const auto status = it->status(status_ec);
    if (status_ec) continue;
    if (fs::is_directory(status)) {
      // As in list(): symlinked directories are not walked (no cycles), so not listed either.
      if (!it->is_symlink(status_ec)) listing.prefixes.push_back(std::move(name));
    } else if (fs::is_regular_file(status)) {
      listing.keys.push_back(std::move(name));
    }
  }
  if (ec && !is_missing(ec.value())) {
    throw IoError(
        fmt::format("cannot list \"{}\" (prefix \"{}\"): {}", dir.string(), prefix, ec.message()));
  }
  std::sort(listing.keys.begin(), listing.keys.end());
  std::sort(listing.prefixes.begin(), listing.prefixes.end());
  return listing;
}

std::string FileStore::description() const {
  return fmt::format("file store at {}", root_.string());
}

}  // namespace cuzarr
