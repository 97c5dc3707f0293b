/* reach.c: whether a device space's code can reach host memory, asked in
 * this one place beside the memory-space table (space.c), and the page
 * registration that makes a GPU without pageable memory access reach it
 * (src/bridge/host_register.h). Callers: kokkos.array / unmanaged_array of
 * a host array in a device space (array.c). */
#include "core.h"
#include "base.h"
#include "exchange_bridge.h"
#include "host_register.h"

#include <stdlib.h>
#include <string.h>

/* The pinned host space of space's backend (a row of the table), or -1. */
static int pinned_space_of(int space) {
  for (int s = 0; s < KP_SPACE_COUNT; ++s)
    if (kp_spaces[s].backend == kp_spaces[space].backend && kp_spaces[s].kind == KP_MEMORY_PINNED) return s;
  return -1;
}

/* Whether the environment variable name is set to "0". */
static int turned_off(const char *name) {
  const char *value = getenv(name);
  return value && strcmp(value, "0") == 0;
}

int kp_space_reach_host(kp_state *st, int space, void *data, size_t bytes, kp_host_reach *out, const char *where) {
  out->device_data = data;
  out->registration = NULL;
  out->refused = 0;
  if (kp_bridge_space_host_accessible(space)) return 0;
  if (!turned_off("KOKKOS_PYTHON_PAGEABLE_ACCESS") && kp_bridge_pageable_access(space)) return 0;
  if (turned_off("KOKKOS_PYTHON_REGISTER_HOST_MEMORY")) {
    /* the strict rule: only memory the runtime already knows */
    out->refused = kp_bridge_pointer_space(data, NULL) < 0;
    return 0;
  }
  kp_error err;
  err.message[0] = 0;
  kp_status status = kp_bridge_host_register(space, data, bytes, &out->registration, &out->device_data, &err);
  if (status == KP_OK) return 0;
  int pinned = pinned_space_of(space);
  PyErr_Format(st->device_access_error,
               "%s: the GPU of %s cannot read pageable host memory (no HMM or ATS), and registering the array's %zu "
               "bytes with its runtime failed: %s. Pass pinned host memory (cupyx.zeros_pinned, kokkos.array(..., "
               "space=kokkos.%s)), or copy the array to the device (kokkos.array(host_array, space=...) without "
               "trait=kokkos.%s); a locked-memory limit (ulimit -l) can cause this",
               where, kp_spaces[space].name, bytes, err.message[0] ? err.message : "no reason given",
               pinned >= 0 ? kp_spaces[pinned].name : "...", kp_trait_name(KP_TRAIT_UNMANAGED));
  return -1;
}
