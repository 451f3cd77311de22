// cuzarr's one exception hierarchy. Every error carries a code; messages name the key, file or
// argument at fault and what was expected.
#pragma once

#include <stdexcept>
#include <string>

namespace cuzarr {

/// What kind of failure an Error reports.
enum class ErrorCode {
  invalid_argument,  ///< the caller passed something malformed or inconsistent
  not_found,         ///< a key, file or node does not exist
  corrupt_data,      ///< stored bytes do not decode (bad checksum, truncated, malformed)
  unsupported,       ///< valid per the spec, but not implemented (or CUDA not built)
  io,                ///< the operating system refused a read or write
  cuda,              ///< a CUDA call failed
};

/// Returns a stable lower-case name for a code ("corrupt_data", ...).
const char* error_code_name(ErrorCode code) noexcept;

/// Base class of every exception cuzarr throws.
class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

#define CUZARR_DEFINE_ERROR(Name, Code)                                            \
  class Name : public Error {                                                      \
   public:                                                                         \
    explicit Name(const std::string& message) : Error(ErrorCode::Code, message) {} \
  };

CUZARR_DEFINE_ERROR(InvalidArgumentError, invalid_argument)
CUZARR_DEFINE_ERROR(NotFoundError, not_found)
CUZARR_DEFINE_ERROR(CorruptDataError, corrupt_data)
CUZARR_DEFINE_ERROR(UnsupportedError, unsupported)
CUZARR_DEFINE_ERROR(IoError, io)
CUZARR_DEFINE_ERROR(CudaError, cuda)
#undef CUZARR_DEFINE_ERROR

/// Throws the subclass of Error that matches `code`.
[[noreturn]] void throw_error(ErrorCode code, const std::string& message);

}  // namespace cuzarr
