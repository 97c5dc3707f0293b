/* host_blocks.c: small HostSpace blocks kept for reuse between Views.
 *
 * Kokkos' HostSpace allocate and deallocate of a small block cost several
 * times what the C library's malloc and free do (about 70 ns against 9 ns
 * for 400 bytes with Kokkos 3.4: an aligned allocation, a Tools check and a
 * space handle each way), which for a small View is most of its creation.
 * NumPy keeps small data buffers for reuse for the same reason. So does
 * this file, under one rule: it never hides an allocation from Kokkos
 * Tools. A block is taken from here, and a View's block comes back here,
 * only when no Tools library or callback was loaded when the View was made
 * (owner.c asks the bridge first); while one is loaded every View allocates
 * and frees through Kokkos, so the tool sees each with its label. Every
 * block was allocated by Kokkos' HostSpace and goes back to it: when the
 * cache is full, and all at once when Kokkos finalizes (kp_owner_release_all).
 *
 * At most KP_HOST_BLOCK_COUNT blocks of up to KP_HOST_BLOCK_MAX bytes each,
 * matched by exact size (as NumPy's cache is): what a program that makes
 * and drops Views of a few sizes keeps coming back to. All with the GIL.
 * KOKKOS_PYTHON_HOST_BLOCKS=0 keeps none (every View through Kokkos, as
 * for a memory checker that should see each free).
 */
#include "core.h"
#include "base.h"
#include "model.h"

#include <stdlib.h>
#include <string.h>

enum { KP_HOST_BLOCK_COUNT = 16 };

typedef struct kp_host_block {
  void *data;
  size_t bytes;
} kp_host_block;

/* Kokkos is one per process, and so is this cache (as owner.c's registry). */
static kp_host_block kp_host_blocks[KP_HOST_BLOCK_COUNT];
static int kp_host_block_count = 0;

void *kp_host_block_take(size_t bytes) {
  for (int i = kp_host_block_count - 1; i >= 0; --i) {
    if (kp_host_blocks[i].bytes != bytes) continue;
    void *data = kp_host_blocks[i].data;
    kp_host_blocks[i] = kp_host_blocks[--kp_host_block_count];
    return data;
  }
  return NULL;
}

/* 1 unless KOKKOS_PYTHON_HOST_BLOCKS=0 (read once). */
static int kp_host_blocks_enabled(void) {
  static int enabled = -1;
  if (enabled < 0) {
    const char *env = getenv("KOKKOS_PYTHON_HOST_BLOCKS");
    enabled = !(env && strcmp(env, "0") == 0);
  }
  return enabled;
}

int kp_host_block_keep(void *data, size_t bytes) {
  if (bytes > KP_HOST_BLOCK_MAX || kp_host_block_count == KP_HOST_BLOCK_COUNT || !kp_host_blocks_enabled()) return 0;
  kp_host_blocks[kp_host_block_count].data = data;
  kp_host_blocks[kp_host_block_count].bytes = bytes;
  ++kp_host_block_count;
  return 1;
}

void kp_host_blocks_release(void) {
  while (kp_host_block_count > 0) {
    kp_host_block b = kp_host_blocks[--kp_host_block_count];
    kp_error err;
    err.message[0] = 0;
    /* Kokkos is still alive (its finalize hook runs this first); a failure
     * here has no one to report to, and leaves the block. */
    (void)kp_bridge_deallocate(KP_SPACE_HOST, "", b.data, b.bytes, &err);
  }
}

PyObject *kp_py_host_blocks_held(PyObject *module, PyObject *unused) { return PyLong_FromLong(kp_host_block_count); }

PyObject *kp_py_host_blocks_release(PyObject *module, PyObject *unused) {
  if (kp_bridge_is_initialized()) kp_host_blocks_release();
  Py_RETURN_NONE;
}
