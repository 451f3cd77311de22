// libcufile, loaded at run time (dlopen), so that builds need no cufile.h and machines without
// GPUDirect Storage run unchanged. Only the handful of cuFile calls a read needs are bound; their
// C declarations follow the cuFile API reference (cufile.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace cuzarr::detail {

class CuFileLibrary {
 public:
  /// The process-wide instance: loads the library and opens the driver on first use.
  static const CuFileLibrary& instance();

  bool available() const noexcept { return available_; }
  /// Why the library or its driver is unusable ("" when available).
  const std::string& unavailable_reason() const noexcept { return reason_; }

  /// Reads `size` bytes at `offset` of the open file `fd` into device memory at `device_pointer`.
  /// Returns "" on success, otherwise what went wrong (the caller names the file).
  std::string read(int fd, void* device_pointer, size_t size, uint64_t offset) const;

 private:
  CuFileLibrary();
  bool available_ = false;
  std::string reason_;
  void* handle_ = nullptr;
  struct Functions;
  const Functions* functions_ = nullptr;
};

}  // namespace cuzarr::detail
