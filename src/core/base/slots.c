/* slots.c: a large table of pointers that costs memory only where it is
 * used. The per-combination View classes (120,960 combinations) and the
 * default labels of kokkos.array (7,560) are indexed by combination, but a
 * program uses a handful: the table keeps an index of blocks of
 * KP_SLOTS_BLOCK pointers and allocates a block on the first write into it,
 * so finding an entry stays two array loads; the index is made with the
 * module (7.4 KiB for the class table) and a first entry costs one block
 * (1 KiB).
 */
#include "core.h"
#include "base.h"

int kp_slots_init(kp_slots *t, size_t count) {
  t->count = count;
  t->nblocks = (count + KP_SLOTS_BLOCK - 1) / KP_SLOTS_BLOCK;
  t->blocks = (void ***)PyMem_Calloc(t->nblocks, sizeof(void **));
  if (!t->blocks) {
    PyErr_NoMemory();
    return -1;
  }
  return 0;
}

void *kp_slots_get(const kp_slots *t, size_t i) {
  if (!t->blocks || i >= t->count) return NULL;
  void **block = t->blocks[i / KP_SLOTS_BLOCK];
  return block ? block[i % KP_SLOTS_BLOCK] : NULL;
}

int kp_slots_set(kp_slots *t, size_t i, void *value) {
  if (!t->blocks || i >= t->count) {
    PyErr_Format(PyExc_SystemError, "slot %zu outside a table of %zu", i, t->count);
    return -1;
  }
  void ***block = &t->blocks[i / KP_SLOTS_BLOCK];
  if (!*block) {
    *block = (void **)PyMem_Calloc(KP_SLOTS_BLOCK, sizeof(void *));
    if (!*block) {
      PyErr_NoMemory();
      return -1;
    }
  }
  (*block)[i % KP_SLOTS_BLOCK] = value;
  return 0;
}

void kp_slots_free(kp_slots *t, void (*release)(void *)) {
  if (t->blocks) {
    for (size_t b = 0; b < t->nblocks; ++b) {
      if (!t->blocks[b]) continue;
      if (release)
        for (size_t k = 0; k < KP_SLOTS_BLOCK; ++k)
          if (t->blocks[b][k]) release(t->blocks[b][k]);
      PyMem_Free(t->blocks[b]);
    }
    PyMem_Free(t->blocks);
  }
  t->blocks = NULL;
  t->nblocks = 0;
}
