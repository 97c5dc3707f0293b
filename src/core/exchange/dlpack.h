/* dlpack.h: the DLPack ABI as this project uses it, written from the DLPack
 * specification (DLPack 1.3; the tensor layouts are those of 1.0 to 1.3,
 * the C exchange table is the one 1.3 defines).
 *
 * Only ABI facts live here: the field order and widths of the structs the
 * producer and the consumer share, the numeric values of device types,
 * data-type codes and flags, and the capsule names of the Python protocol.
 * The names carry this project's kp_dl prefix so that a user's own copy of
 * the official header can never clash with this one.
 *
 * Ownership, in one place:
 *   - a kp_dl_managed_tensor(_versioned) belongs to its producer until a
 *     consumer takes it; the consumer then calls deleter(self) exactly once
 *     when it no longer needs the memory (deleter may be NULL: nothing to do);
 *   - shape and strides point into memory owned by the managed tensor;
 *   - version comes first in the versioned struct, and version, manager_ctx
 *     and deleter keep their offsets in every 1.x release, so a consumer that
 *     meets an unknown major version can still release the tensor.
 */
#ifndef KOKKOS_PYTHON_DLPACK_H
#define KOKKOS_PYTHON_DLPACK_H

#include <stddef.h>
#include <stdint.h>

/* The DLPack version this project speaks (the versioned struct's layout is
 * major 1; the minor number only adds enumerators and the exchange table). */
#define KP_DL_MAJOR_VERSION 1
#define KP_DL_MINOR_VERSION 3

/* Python capsule names: fresh and consumed, for the versioned struct (1.x)
 * and the legacy unversioned one; and the exchange table's capsule. */
#define KP_DL_CAPSULE_VERSIONED "dltensor_versioned"
#define KP_DL_CAPSULE_VERSIONED_USED "used_dltensor_versioned"
#define KP_DL_CAPSULE_LEGACY "dltensor"
#define KP_DL_CAPSULE_LEGACY_USED "used_dltensor"
#define KP_DL_CAPSULE_EXCHANGE_API "dlpack_exchange_api"
/* The type attribute that holds the exchange table's capsule. */
#define KP_DL_EXCHANGE_API_ATTR "__dlpack_c_exchange_api__"

typedef struct kp_dl_version {
  uint32_t major;
  uint32_t minor;
} kp_dl_version;

/* Device types (DLDeviceType; an int32 in the ABI). */
enum {
  KP_DL_CPU = 1,
  KP_DL_CUDA = 2,
  KP_DL_CUDA_HOST = 3, /* pinned host memory registered with CUDA */
  KP_DL_OPENCL = 4,
  KP_DL_VULKAN = 7,
  KP_DL_METAL = 8,
  KP_DL_VPI = 9,
  KP_DL_ROCM = 10,
  KP_DL_ROCM_HOST = 11, /* pinned host memory registered with ROCm */
  KP_DL_EXT_DEV = 12,
  KP_DL_CUDA_MANAGED = 13, /* CUDA unified (managed) memory */
  KP_DL_ONEAPI = 14,       /* SYCL / Level Zero USM */
  KP_DL_WEBGPU = 15,
  KP_DL_HEXAGON = 16,
  KP_DL_MAIA = 17,
  KP_DL_TRN = 18
};

typedef struct kp_dl_device {
  int32_t device_type; /* one of KP_DL_CPU, ... */
  int32_t device_id;   /* ordinal of the device; 0 for the host */
} kp_dl_device;

/* Data-type codes (DLDataTypeCode; a uint8 in the ABI). */
enum {
  KP_DL_INT = 0,
  KP_DL_UINT = 1,
  KP_DL_FLOAT = 2,
  KP_DL_OPAQUE_HANDLE = 3,
  KP_DL_BFLOAT = 4,
  KP_DL_COMPLEX = 5,
  KP_DL_BOOL = 6,
  /* 7..17: 8-, 6- and 4-bit floating-point formats (1.1 and later) */
  KP_DL_FLOAT8_FIRST = 7,
  KP_DL_FLOAT4_E2M1FN = 17
};

typedef struct kp_dl_data_type {
  uint8_t code;   /* KP_DL_INT, ... */
  uint8_t bits;   /* bits of one lane: 8, 16, 32, 64 (128 for complex128) */
  uint16_t lanes; /* vector lanes; 1 for plain element types */
} kp_dl_data_type;

/* The tensor description shared by both structs (DLTensor). */
typedef struct kp_dl_tensor {
  /* Start of the allocation (address of element 0 is data + byte_offset).
   * May be NULL when the tensor has no elements. */
  void *data;
  kp_dl_device device;
  int32_t ndim;
  kp_dl_data_type dtype;
  int64_t *shape;   /* ndim extents */
  int64_t *strides; /* ndim strides in elements, or NULL for a compact
                       row-major tensor (not allowed since 1.2) */
  uint64_t byte_offset;
} kp_dl_tensor;

/* The legacy, unversioned managed tensor (DLManagedTensor): capsule
 * "dltensor". No flags: consumers must treat the memory as writable. */
typedef struct kp_dl_managed_tensor {
  kp_dl_tensor dl_tensor;
  void *manager_ctx; /* the producer's context, for its deleter */
  void (*deleter)(struct kp_dl_managed_tensor *self);
} kp_dl_managed_tensor;

/* Flags of the versioned managed tensor. */
#define KP_DL_FLAG_READ_ONLY ((uint64_t)1 << 0)              /* consumer must not write */
#define KP_DL_FLAG_IS_COPIED ((uint64_t)1 << 1)              /* memory is a fresh copy */
#define KP_DL_FLAG_IS_SUBBYTE_TYPE_PADDED ((uint64_t)1 << 2) /* sub-byte types padded */

/* The versioned managed tensor (DLManagedTensorVersioned, 1.0 and later):
 * capsule "dltensor_versioned". */
typedef struct kp_dl_managed_tensor_versioned {
  kp_dl_version version; /* first, so any consumer can read it */
  void *manager_ctx;
  void (*deleter)(struct kp_dl_managed_tensor_versioned *self);
  uint64_t flags; /* KP_DL_FLAG_* */
  kp_dl_tensor dl_tensor;
} kp_dl_managed_tensor_versioned;

/* ---- the C exchange table (DLPack 1.3) -------------------------------------
 *
 * A type offers it as the class attribute __dlpack_c_exchange_api__, a
 * capsule named "dlpack_exchange_api" whose pointer is a kp_dl_exchange_api
 * that lives as long as the process. A consumer reads it from the type of
 * the object (never the instance), checks header.version.major, and may
 * then convert without calling __dlpack__ through Python. None of the
 * functions synchronizes streams; all are called with the GIL held and
 * report failure by returning -1 with a Python exception set. */

typedef struct kp_dl_exchange_api_header {
  kp_dl_version version;
  /* An older table for consumers of an earlier major version, or NULL. */
  struct kp_dl_exchange_api_header *prev_api;
} kp_dl_exchange_api_header;

typedef struct kp_dl_exchange_api {
  kp_dl_exchange_api_header header;
  /* Allocates a new tensor shaped like prototype (dtype, ndim, shape and
   * device are read) in the producer; on failure calls
   * set_error(error_ctx, kind, message) and returns -1. */
  int (*managed_tensor_allocator)(kp_dl_tensor *prototype, kp_dl_managed_tensor_versioned **out, void *error_ctx,
                                  void (*set_error)(void *error_ctx, const char *kind, const char *message));
  /* py_object (of the type that holds the table) -> a new owning managed
   * tensor in *out; 0, or -1 with an exception. */
  int (*managed_tensor_from_py_object_no_sync)(void *py_object, kp_dl_managed_tensor_versioned **out);
  /* Takes ownership of tensor and makes a new object of the producer's type
   * in *out_py_object (a new reference); 0, or -1 with an exception. */
  int (*managed_tensor_to_py_object_no_sync)(kp_dl_managed_tensor_versioned *tensor, void **out_py_object);
  /* Fills *out (shape and strides stay owned by py_object, valid while it
   * lives unchanged); may be NULL. 0, or -1 with an exception. */
  int (*dltensor_from_py_object_no_sync)(void *py_object, kp_dl_tensor *out);
  /* The producer's current work stream for a device (NULL for the host). */
  int (*current_work_stream)(int32_t device_type, int32_t device_id, void **out_current_stream);
} kp_dl_exchange_api;

#endif /* KOKKOS_PYTHON_DLPACK_H */
