/* tables.h: the enumerations of the kokkos C interface, one row per dtype,
 * memory space, layout and memory trait. Each row is the one place its
 * name and its facts are written: kokkos_python.h makes the public enums
 * (enum kokkos_python_dtype, ...) from these rows, kokkos_python.hpp its
 * C++ type mapping and names, and the kokkos package its own tables (the
 * core's dtype and memory-space tables, the Python enumerations) and its
 * checks that both sides number the rows alike.
 *
 * The numbers are the C interface's and never change: a row keeps its
 * number, and a new row is appended with the next one (code built against
 * an older list checks dtype < the KOKKOS_PYTHON_DTYPE_COUNT it was built
 * with). Plain C (C99 and later) and C++; nothing here needs Python.h.
 *
 * Each list is an X-macro: define X(...) to pick the columns you need, e.g.
 *   #define NAME_OF(id, number, name, ...) name,
 *   static const char *const names[] = {KOKKOS_PYTHON_DTYPE_ROWS(NAME_OF)};
 */
#ifndef KOKKOS_PYTHON_TABLES_H
#define KOKKOS_PYTHON_TABLES_H

#ifndef __cplusplus
#include <stdbool.h>
#endif
#include <stdint.h>

/* Element types:
 *   X(id, number, name, aliases, kind, C type, PEP 3118 format, typestr)
 * id: KOKKOS_PYTHON_<id> names the number in C;
 * name: kokkos.dtype's name, the one spelling of it;
 * aliases: the pykokkos-base names of the same dtype (kokkos.double, ...),
 *   a parenthesized list, each followed by a comma (at most 3);
 * kind and C type: how an element is stored and converted: INT and UINT (an
 *   integer of the C type's size: in C++ any integer type of that size and
 *   signedness), REAL (the C type itself), COMPLEX (two of the C type, real
 *   then imaginary: Kokkos::complex<C type> and std::complex<C type>), BOOL,
 *   HALF (IEEE binary16, stored as the C type's 16 bits: in C++ Kokkos'
 *   half_t where it is 16 bits wide, and the compiler's _Float16);
 * format and typestr: the buffer protocol's and __array_interface__'s
 *   spellings on a little-endian host. 64-bit integers use 'q' / 'Q' (long
 *   long), as pykokkos-base exported them: NumPy reads them as
 *   numpy.longlong / numpy.ulonglong, which equal int64 / uint64.
 * bool and float16 were appended after the numeric types. */
/* clang-format off */
#define KOKKOS_PYTHON_DTYPE_ROWS(X)                                                                                  \
  X(INT8, 0, "int8", ("signed_char", "char", ), INT, int8_t, "b", "|i1")                                             \
  X(INT16, 1, "int16", ("short", ), INT, int16_t, "h", "<i2")                                                        \
  X(INT32, 2, "int32", ("int", ), INT, int32_t, "i", "<i4")                                                          \
  X(INT64, 3, "int64", ("long", "long_long", ), INT, int64_t, "q", "<i8")                                            \
  X(UINT8, 4, "uint8", ("unsigned_char", ), UINT, uint8_t, "B", "|u1")                                               \
  X(UINT16, 5, "uint16", ("unsigned_short", ), UINT, uint16_t, "H", "<u2")                                           \
  X(UINT32, 6, "uint32", ("unsigned", "unsigned_int", ), UINT, uint32_t, "I", "<u4")                                 \
  X(UINT64, 7, "uint64", ("unsigned_long", "unsigned_long_long", ), UINT, uint64_t, "Q", "<u8")                      \
  X(FLOAT32, 8, "float32", ("float", "single", ), REAL, float, "f", "<f4")                                           \
  X(FLOAT64, 9, "float64", ("double", ), REAL, double, "d", "<f8")                                                   \
  X(COMPLEX64, 10, "complex64", ("complex_float", "complex_float32_dtype", "complex_float_dtype", ), COMPLEX, float,  \
    "Zf", "<c8")                                                                                                     \
  X(COMPLEX128, 11, "complex128", ("complex_double", "complex_float64_dtype", "complex_double_dtype", ), COMPLEX,     \
    double, "Zd", "<c16")                                                                                            \
  X(BOOL, 12, "bool", ("bool_", ), BOOL, bool, "?", "|b1")                                                           \
  X(FLOAT16, 13, "float16", ("half", ), HALF, uint16_t, "e", "<f2")

/* Memory spaces, in the order pykokkos-base numbered them:
 *   X(id, number, name, aliases, DLPack device type, backend, memory kind)
 * id: KOKKOS_PYTHON_<id>_SPACE names the number in C;
 * name: kokkos.memory_space's name (Kokkos' type name), the one spelling;
 * aliases: other names Python accepts (kokkos.Host, kokkos.Cuda, ...; at
 *   most 5), listed as the dtypes' are;
 * DLPack device type: kDLCPU 1, kDLCUDA 2, kDLCUDAHost 3, kDLROCM 10,
 *   kDLROCMHost 11, kDLCUDAManaged 13, kDLOneAPI 14 (0: none);
 * backend: the device runtime behind it: HOST, CUDA, HIP, SYCL or
 *   OPENMP_TARGET;
 * memory kind: HOST, PINNED (host memory the device reads) and MANAGED
 *   are host-accessible, DEVICE is device-only.
 * Its Kokkos type: compat.hpp's KOKKOS_PYTHON_COMPAT_SPACE_TYPES. */
#define KOKKOS_PYTHON_SPACE_ROWS(X)                                                                                  \
  X(HOST, 0, "HostSpace", ("Host", "Serial", "OpenMP", "Threads", "HPX", ), 1, HOST, HOST)                           \
  X(CUDA, 1, "CudaSpace", ("Cuda", ), 2, CUDA, DEVICE)                                                               \
  X(CUDA_UVM, 2, "CudaUVMSpace", ("SharedSpace", ), 13, CUDA, MANAGED)                                               \
  X(CUDA_HOST_PINNED, 3, "CudaHostPinnedSpace", ("SharedHostPinnedSpace", ), 3, CUDA, PINNED)                        \
  X(HBW, 4, "HBWSpace", (), 1, HOST, HOST)                                                                           \
  X(HIP, 5, "HIPSpace", ("HIP", ), 10, HIP, DEVICE)                                                                  \
  X(HIP_HOST_PINNED, 6, "HIPHostPinnedSpace", (), 11, HIP, PINNED)                                                   \
  X(OPENMP_TARGET, 7, "OpenMPTargetSpace", ("OpenMPTarget", ), 0, OPENMP_TARGET, DEVICE)                             \
  X(SYCL_SHARED_USM, 8, "SYCLSharedUSMSpace", ("SYCL", ), 14, SYCL, MANAGED)                                         \
  X(SYCL_DEVICE_USM, 9, "SYCLDeviceUSMSpace", (), 14, SYCL, DEVICE)

/* Layouts: X(id, number, name); KOKKOS_PYTHON_LAYOUT_<id> in C. */
#define KOKKOS_PYTHON_LAYOUT_ROWS(X)                                                                                 \
  X(RIGHT, 0, "LayoutRight")                                                                                         \
  X(LEFT, 1, "LayoutLeft")                                                                                           \
  X(STRIDE, 2, "LayoutStride")

/* Memory traits, flags as Kokkos::MemoryTraits<...>: X(id, flag, name);
 * KOKKOS_PYTHON_<id> in C. Managed (no flag) first, the others in flag
 * order. */
#define KOKKOS_PYTHON_TRAIT_ROWS(X)                                                                                  \
  X(MANAGED, 0, "Managed")                                                                                           \
  X(UNMANAGED, 1, "Unmanaged")                                                                                       \
  X(RANDOM_ACCESS, 2, "RandomAccess")                                                                                \
  X(ATOMIC, 4, "Atomic")                                                                                             \
  X(RESTRICT, 8, "Restrict")                                                                                         \
  X(ALIGNED, 16, "Aligned")
/* clang-format on */

#endif /* KOKKOS_PYTHON_TABLES_H */
