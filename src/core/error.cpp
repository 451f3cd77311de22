#include "cuzarr/core/error.hpp"

namespace cuzarr {

const char* error_code_name(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::invalid_argument:
      return "invalid_argument";
    case ErrorCode::not_found:
      return "not_found";
    case ErrorCode::corrupt_data:
      return "corrupt_data";
    case ErrorCode::unsupported:
      return "unsupported";
    case ErrorCode::io:
      return "io";
    case ErrorCode::cuda:
      return "cuda";
  }
  return "unknown";
}

void throw_error(ErrorCode code, const std::string& message) {
  switch (code) {
    case ErrorCode::invalid_argument:
      throw InvalidArgumentError(message);
    case ErrorCode::not_found:
      throw NotFoundError(message);
    case ErrorCode::corrupt_data:
      throw CorruptDataError(message);
    case ErrorCode::unsupported:
      throw UnsupportedError(message);
    case ErrorCode::io:
      throw IoError(message);
    case ErrorCode::cuda:
      throw CudaError(message);
  }
  throw Error(code, message);
}

}  // namespace cuzarr
