/* DLPack tensor exchange structures, declared from the public DLPack specification
 * (https://dmlc.github.io/dlpack/latest/c_api.html), ABI-compatible with dlpack.h v1.0. The
 * include guard is the one of the reference header, so whichever of the two is included first
 * provides the (identical) declarations. */
#ifndef DLPACK_DLPACK_H_
#define DLPACK_DLPACK_H_

#include <stddef.h>
#include <stdint.h>

#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 0

#ifdef __cplusplus
extern "C" {
#endif

/* The DLPack version a DLManagedTensorVersioned follows. */
typedef struct {
  uint32_t major;
  uint32_t minor;
} DLPackVersion;

/* Where a tensor's memory lives. */
#ifdef __cplusplus
typedef enum : int32_t {
#else
typedef enum {
#endif
  kDLCPU = 1,      /* pageable or pinned host memory, used by the CPU */
  kDLCUDA = 2,     /* CUDA device memory */
  kDLCUDAHost = 3, /* page-locked host memory from cudaMallocHost */
  kDLOpenCL = 4,
  kDLVulkan = 7,
  kDLMetal = 8,
  kDLVPI = 9,
  kDLROCM = 10,
  kDLROCMHost = 11,
  kDLExtDev = 12,
  kDLCUDAManaged = 13, /* CUDA managed (unified) memory */
  kDLOneAPI = 14,
  kDLWebGPU = 15,
  kDLHexagon = 16,
  kDLMAIA = 17,
} DLDeviceType;

/* A device: its type and its index among devices of that type. */
typedef struct {
  DLDeviceType device_type;
  int32_t device_id;
} DLDevice;

/* Type codes of DLDataType.code. */
typedef enum {
  kDLInt = 0U,
  kDLUInt = 1U,
  kDLFloat = 2U,
  kDLOpaqueHandle = 3U,
  kDLBfloat = 4U,
  kDLComplex = 5U,
  kDLBool = 6U,
} DLDataTypeCode;

/* An element type: code, bits per lane, lanes (1 for scalars). */
typedef struct {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} DLDataType;

/* A tensor view: data + byte_offset is element [0, ..., 0]; shape and strides have ndim entries;
 * strides count elements (not bytes), and NULL strides mean a compact C-order tensor. */
typedef struct {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
} DLTensor;

/* The legacy (pre-1.0) managed tensor: the consumer calls deleter(self) once when done. */
typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensor* self);
} DLManagedTensor;

/* Bits of DLManagedTensorVersioned.flags. */
#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)

/* The versioned managed tensor (DLPack >= 1.0). A consumer must check version.major before
 * reading other fields; the consumer calls deleter(self) once when done. */
typedef struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
} DLManagedTensorVersioned;

#ifdef __cplusplus
}  // extern "C"
#endif

#endif /* DLPACK_DLPACK_H_ */
