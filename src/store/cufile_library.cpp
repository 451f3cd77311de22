#include "store/cufile_library.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <sys/types.h>

namespace cuzarr::detail {
namespace {

// cuFile API types (cufile.h): CUfileError_t, CUfileDescr_t with CU_FILE_HANDLE_TYPE_OPAQUE_FD,
// and the opaque CUfileHandle_t.
struct CuFileError {
  int err;     // CUfileOpError; 0 is CU_FILE_SUCCESS
  int cu_err;  // CUresult
};
struct CuFileDescriptor {
  int type;  // CUfileFileHandleType
  union {
    int fd;
    void* handle;
  } handle;
  const void* fs_ops;
};
constexpr int kHandleTypeOpaqueFd = 1;
using CuFileHandle = void*;

}  // namespace

struct CuFileLibrary::Functions {
  CuFileError (*driver_open)();
  CuFileError (*handle_register)(CuFileHandle*, CuFileDescriptor*);
  void (*handle_deregister)(CuFileHandle);
  ssize_t (*read)(CuFileHandle, void*, size_t, off_t, off_t);
};

const CuFileLibrary& CuFileLibrary::instance() {
  static const CuFileLibrary library;
  return library;
}

CuFileLibrary::CuFileLibrary() {
#if !defined(CUZARR_HAVE_CUDA)
  reason_ = "this build of cuzarr has no CUDA support";
#else
  for (const char* name : {"libcufile.so.0", "libcufile.so"}) {
    handle_ = ::dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (handle_) break;
  }
  if (!handle_) {
    const char* why = ::dlerror();
    reason_ = fmt::format("libcufile could not be loaded ({})", why ? why : "not found");
    return;
  }
  static Functions functions{};
  const auto bind = [&](auto& function, const char* symbol) {
    function =
        reinterpret_cast<std::remove_reference_t<decltype(function)> >(::dlsym(handle_, symbol));
    if (!function && reason_.empty()) reason_ = fmt::format("libcufile has no {}", symbol);
  };
  bind(functions.driver_open, "cuFileDriverOpen");
  bind(functions.handle_register, "cuFileHandleRegister");
  bind(functions.handle_deregister, "cuFileHandleDeregister");
  bind(functions.read, "cuFileRead");
  if (!reason_.empty()) return;
  const CuFileError opened = functions.driver_open();
  if (opened.err != 0) {
    reason_ = fmt::format("cuFileDriverOpen failed (cuFile error {}, CUDA error {})", opened.err,
                          opened.cu_err);
    return;
  }
  functions_ = &functions;
  available_ = true;
#endif
}

std::string CuFileLibrary::read(int fd, void* device_pointer, size_t size, uint64_t offset) const {
  if (!available_) return reason_;
  CuFileDescriptor descriptor{};
  descriptor.type = kHandleTypeOpaqueFd;
  descriptor.handle.fd = fd;
  CuFileHandle handle = nullptr;
  const CuFileError registered = functions_->handle_register(&handle, &descriptor);
  if (registered.err != 0) {
    return fmt::format("cuFileHandleRegister failed (cuFile error {}, CUDA error {})",
                       registered.err, registered.cu_err);
  }
  std::string problem;
  size_t done = 0;
  while (done < size) {
    const ssize_t got =
        functions_->read(handle, device_pointer, size - done, static_cast<off_t>(offset + done),
                         static_cast<off_t>(done));
    if (got < 0) {
      problem = fmt::format("cuFileRead failed (error {})", got);
      break;
    }
    if (got == 0) {
      problem = "the file shrank while being read";
      break;
    }
    done += static_cast<size_t>(got);
  }
  functions_->handle_deregister(handle);
  return problem;
}

}  // namespace cuzarr::detail
