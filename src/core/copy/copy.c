/* copy.c: copies between Views, fills and mirrors, and a View's copy into
 * another space (kp_view_copy_to_space, for the exchange protocols' copy=True).
 * It sits below exchange/, which copies with it; deep_copy from any other
 * source (a scalar, an array, a buffer, a producer) is deep_copy.c's, above
 * exchange/ (it imports its source through it).
 *
 * A View-to-View copy chooses, cheapest first:
 *  1. both contiguous in the same order: one byte copy through Kokkos
 *     (kp_bridge_copy_bytes), for every pair of spaces;
 *  2. both host-accessible: a strided C copy (dimensions reordered so the
 *     destination is walked contiguously, unit-stride runs as memcpy, 2-D
 *     transposes blocked for the cache);
 *  3. one device space: the bridge's strided copy kernel in that space;
 *  4. otherwise staging through a contiguous temporary.
 * Before any of these, the byte ranges the two Views span are compared: a
 * View onto its own memory with its own strides is left as it is (it never
 * reaches Kokkos, whose deep_copy forbids a View onto itself), and Views
 * whose memory overlaps get NumPy's result, as if the source were copied
 * first (copy_overlapping). Kokkos leaves overlapping copies undefined.
 * The GIL is released around every copy and fill.
 */
#include "core.h"
#include "base.h"
#include "model.h"
#include "copy.h"
#include "host_parallel.h"
#include "tools_bridge.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ---- copy plans ------------------------------------------------------------------- */

typedef struct kp_plan {
  int rank;
  Py_ssize_t shape[KP_MAX_RANK];
  Py_ssize_t dst[KP_MAX_RANK]; /* element strides */
  Py_ssize_t src[KP_MAX_RANK];
} kp_plan;

static Py_ssize_t absz(Py_ssize_t x) { return x < 0 ? -x : x; }

/* Drops unit dimensions, orders dimensions by destination stride (largest
 * first) and merges dimensions that are contiguous in both. */
static inline void plan_make(kp_plan *p, int rank, const Py_ssize_t *shape, const Py_ssize_t *dst,
                             const Py_ssize_t *src) {
  int n = 0;
  for (int r = 0; r < rank; ++r) {
    if (shape[r] == 1) continue;
    p->shape[n] = shape[r];
    p->dst[n] = dst[r];
    p->src[n] = src ? src[r] : 0;
    ++n;
  }
  /* insertion sort, stable, by |dst stride| descending */
  for (int i = 1; i < n; ++i) {
    for (int j = i; j > 0 && absz(p->dst[j - 1]) < absz(p->dst[j]); --j) {
      Py_ssize_t t;
      t = p->shape[j];
      p->shape[j] = p->shape[j - 1];
      p->shape[j - 1] = t;
      t = p->dst[j];
      p->dst[j] = p->dst[j - 1];
      p->dst[j - 1] = t;
      t = p->src[j];
      p->src[j] = p->src[j - 1];
      p->src[j - 1] = t;
    }
  }
  /* merge (i, i+1) when i steps exactly over i+1 in both */
  int m = 0;
  for (int i = 0; i < n; ++i) {
    if (m > 0 && p->dst[m - 1] == p->dst[i] * p->shape[i] && p->src[m - 1] == p->src[i] * p->shape[i]) {
      p->shape[m - 1] *= p->shape[i];
      p->dst[m - 1] = p->dst[i];
      p->src[m - 1] = p->src[i];
    } else {
      p->shape[m] = p->shape[i];
      p->dst[m] = p->dst[i];
      p->src[m] = p->src[i];
      ++m;
    }
  }
  p->rank = m;
}

/* ---- host kernels (no GIL) ---------------------------------------------------------- */

#define KP_ELEMENT_LOOP(N) \
  for (Py_ssize_t i = 0; i < n; ++i) memcpy(dst + i * ds * (N), src + i * ss * (N), (N));

static void copy_1d(Py_ssize_t n, char *dst, Py_ssize_t ds, const char *src, Py_ssize_t ss, size_t is) {
  if (ds == 1 && ss == 1) {
    memcpy(dst, src, (size_t)n * is);
    return;
  }
  switch (is) {
    case 1:
      KP_ELEMENT_LOOP(1) break;
    case 2:
      KP_ELEMENT_LOOP(2) break;
    case 4:
      KP_ELEMENT_LOOP(4) break;
    case 8:
      KP_ELEMENT_LOOP(8) break;
    case 16:
      KP_ELEMENT_LOOP(16) break;
    default:
      for (Py_ssize_t i = 0; i < n; ++i) memcpy(dst + i * ds * (Py_ssize_t)is, src + i * ss * (Py_ssize_t)is, is);
  }
}

#define KP_BLOCK 32

/* Copies an n0 x n1 block where the destination is contiguous along 1 and
 * the source along 0: walk it in tiles so both stay in cache. */
static void copy_2d_blocked(Py_ssize_t n0, Py_ssize_t n1, char *dst, Py_ssize_t d0, Py_ssize_t d1, const char *src,
                            Py_ssize_t s0, Py_ssize_t s1, size_t is) {
  for (Py_ssize_t ib = 0; ib < n0; ib += KP_BLOCK) {
    Py_ssize_t ie = ib + KP_BLOCK < n0 ? ib + KP_BLOCK : n0;
    for (Py_ssize_t jb = 0; jb < n1; jb += KP_BLOCK) {
      Py_ssize_t je = jb + KP_BLOCK < n1 ? jb + KP_BLOCK : n1;
      for (Py_ssize_t i = ib; i < ie; ++i)
        copy_1d(je - jb, dst + (i * d0 + jb * d1) * (Py_ssize_t)is, d1, src + (i * s0 + jb * s1) * (Py_ssize_t)is, s1,
                is);
    }
  }
}

static void copy_rec(const kp_plan *p, int d, char *dst, const char *src, size_t is) {
  Py_ssize_t isz = (Py_ssize_t)is;
  if (p->rank == 0) {
    memcpy(dst, src, is);
    return;
  }
  if (d == p->rank - 1) {
    copy_1d(p->shape[d], dst, p->dst[d], src, p->src[d], is);
    return;
  }
  if (d == p->rank - 2 && absz(p->src[d]) < absz(p->src[d + 1]) && p->shape[d] >= 8 && p->shape[d + 1] >= 8) {
    copy_2d_blocked(p->shape[d], p->shape[d + 1], dst, p->dst[d], p->dst[d + 1], src, p->src[d], p->src[d + 1], is);
    return;
  }
  for (Py_ssize_t i = 0; i < p->shape[d]; ++i)
    copy_rec(p, d + 1, dst + i * p->dst[d] * isz, src + i * p->src[d] * isz, is);
}

/* n elements of is bytes, dst stride ds (elements), all set to *value:
 * typed stores (memcpy of a constant size compiles to one move). */
#define KP_FILL_LOOP(N)                                                                 \
  do {                                                                                  \
    char v_[N];                                                                         \
    memcpy(v_, value, N);                                                               \
    if (ds == 1)                                                                        \
      for (Py_ssize_t i = 0; i < n; ++i) memcpy(dst + i * (N), v_, N);                  \
    else                                                                                \
      for (Py_ssize_t i = 0; i < n; ++i) memcpy(dst + i * ds * (Py_ssize_t)(N), v_, N); \
  } while (0)

/* From this many contiguous bytes on, a fill bypasses the caches (it would
 * push everything else out of them anyway): non-temporal stores write the
 * memory without first reading each line in, half the memory traffic of
 * plain stores. */
#define KP_STREAM_FILL_BYTES ((size_t)1 << 24)

/* Fills n contiguous elements of is bytes (1, 2, 4, 8 or 16) with *value
 * by non-temporal stores. 0 when it cannot (no SSE2, or dst not aligned to
 * its elements): the caller fills the plain way. */
static int stream_fill(Py_ssize_t n, char *dst, const char *value, size_t is) {
#if defined(__SSE2__)
  if (16 % is != 0 || (uintptr_t)dst % is != 0) return 0;
  unsigned char pattern[16];
  for (size_t k = 0; k < 16; k += is) memcpy(pattern + k, value, is);
  size_t bytes = (size_t)n * is;
  size_t head = (16 - (uintptr_t)dst % 16) % 16; /* a whole number of elements: dst is element-aligned */
  for (size_t k = 0; k < head; k += is) memcpy(dst + k, value, is);
  char *p = dst + head;
  size_t body = (bytes - head) & ~(size_t)63;
  const __m128i v = _mm_loadu_si128((const __m128i *)pattern);
  for (char *end = p + body; p < end; p += 64) {
    _mm_stream_si128((__m128i *)p, v);
    _mm_stream_si128((__m128i *)(p + 16), v);
    _mm_stream_si128((__m128i *)(p + 32), v);
    _mm_stream_si128((__m128i *)(p + 48), v);
  }
  _mm_sfence(); /* the streamed lines are visible before anything that follows */
  for (char *end = dst + bytes; p < end; p += is) memcpy(p, value, is);
  return 1;
#else
  (void)n, (void)dst, (void)value, (void)is;
  return 0;
#endif
}

static void fill_1d(Py_ssize_t n, char *dst, Py_ssize_t ds, const char *value, size_t is) {
  if (ds == 1 && (size_t)n * is >= KP_STREAM_FILL_BYTES && stream_fill(n, dst, value, is)) return;
  switch (is) {
    case 1:
      if (ds == 1) {
        memset(dst, (unsigned char)value[0], (size_t)n);
        return;
      }
      KP_FILL_LOOP(1);
      return;
    case 2:
      KP_FILL_LOOP(2);
      return;
    case 4:
      KP_FILL_LOOP(4);
      return;
    case 8:
      KP_FILL_LOOP(8);
      return;
    case 16:
      KP_FILL_LOOP(16);
      return;
    default:
      for (Py_ssize_t i = 0; i < n; ++i) memcpy(dst + i * ds * (Py_ssize_t)is, value, is);
  }
}

static void fill_rec(const kp_plan *p, int d, char *dst, const char *value, size_t is) {
  Py_ssize_t isz = (Py_ssize_t)is;
  if (p->rank == 0) {
    memcpy(dst, value, is);
    return;
  }
  if (d == p->rank - 1) {
    fill_1d(p->shape[d], dst, p->dst[d], value, is);
    return;
  }
  for (Py_ssize_t i = 0; i < p->shape[d]; ++i) fill_rec(p, d + 1, dst + i * p->dst[d] * isz, value, is);
}

/* ---- running host kernels ------------------------------------------------------------ */

/* Below this many bytes a host copy or fill runs with the GIL held and on
 * one thread: releasing the GIL or waking threads costs more than it saves. */
#define KP_HOST_SMALL_BYTES ((size_t)1 << 15)
/* From this many bytes on, host copies and fills are split across the
 * threads of Kokkos' default host execution space (when it has several). */
#define KP_HOST_PARALLEL_BYTES ((size_t)1 << 20)

typedef struct kp_host_job {
  const kp_plan *plan;
  char *dst;
  const char *src; /* copy: the source; fill: the value */
  size_t is;
  int fill;
} kp_host_job;

/* Runs the job on rows [begin, end) of the plan's outermost dimension. */
static void host_job_rows(int64_t begin, int64_t end, void *ctx) {
  const kp_host_job *j = (const kp_host_job *)ctx;
  kp_plan q = *j->plan;
  Py_ssize_t isz = (Py_ssize_t)j->is;
  q.shape[0] = (Py_ssize_t)(end - begin);
  char *d = j->dst + (Py_ssize_t)begin * q.dst[0] * isz;
  if (j->fill) {
    fill_rec(&q, 0, d, j->src, j->is);
  } else {
    copy_rec(&q, 0, d, j->src + (Py_ssize_t)begin * q.src[0] * isz, j->is);
  }
}

/* Runs a host copy (fill = 0) or fill (fill = 1, src = the value) of bytes
 * bytes: small ones inline, large ones without the GIL and, when Kokkos has
 * several host threads, split across them. -1 with an exception. */
static int run_host(const kp_plan *p, char *dst, const char *src, size_t is, size_t bytes, int fill,
                    const char *where) {
  kp_host_job job = {p, dst, src, is, fill};
  if (bytes < KP_HOST_SMALL_BYTES || p->rank == 0) {
    if (fill)
      fill_rec(p, 0, dst, src, is);
    else
      copy_rec(p, 0, dst, src, is);
    return 0;
  }
  int parallel = bytes >= KP_HOST_PARALLEL_BYTES && p->shape[0] > 1 && kp_bridge_host_concurrency() > 1;
  kp_status st = KP_OK;
  kp_error err;
  err.message[0] = 0;
  if (parallel)
    KP_KOKKOS_WORK(where, return -1,
                   st = kp_bridge_host_parallel(fill ? "kokkos.deep_copy(host fill)" : "kokkos.deep_copy(host copy)",
                                                (int64_t)p->shape[0], host_job_rows, &job, &err));
  else {
    Py_BEGIN_ALLOW_THREADS
    host_job_rows(0, (int64_t)p->shape[0], &job);
    Py_END_ALLOW_THREADS
  }
  return st == KP_OK ? 0 : kp_raise_bridge(st, &err, where);
}

/* ---- helpers ------------------------------------------------------------------------ */

static int same_shape(const kp_view *a, const kp_view *b) {
  if (a->rank != b->rank) return 0;
  for (int r = 0; r < a->rank; ++r)
    if (a->shape[r] != b->shape[r]) return 0;
  return 1;
}

static int same_order_contiguous(const kp_view *a, const kp_view *b) {
  return (kp_view_is_c_contiguous(a) && kp_view_is_c_contiguous(b)) ||
         (kp_view_is_f_contiguous(a) && kp_view_is_f_contiguous(b));
}

static int raise_shape_mismatch(const kp_view *dst, const kp_view *src, const char *where) {
  PyObject *a = kp_view_extents_tuple(dst, 0), *b = a ? kp_view_extents_tuple(src, 0) : NULL;
  if (a && b)
    PyErr_Format(PyExc_ValueError,
                 "%s: shapes differ: destination %R, source %R (Kokkos deep_copy needs equal extents)", where, a, b);
  Py_XDECREF(a);
  Py_XDECREF(b);
  return -1;
}

static int64_t *to_i64(const Py_ssize_t *in, int rank, int64_t *out) {
  for (int r = 0; r < rank; ++r) out[r] = (int64_t)in[r];
  return out;
}

/* Bridge strided copy within one space, GIL released. */
static int bridge_strided(int space, size_t is, const kp_plan *p, char *dst, const char *src, const char *where) {
  int64_t e[KP_MAX_RANK], d[KP_MAX_RANK], s[KP_MAX_RANK];
  kp_error err;
  err.message[0] = 0;
  kp_status st;
  int rank = p->rank;
  KP_KOKKOS_WORK(where, return -1,
                 st = kp_bridge_copy_strided(space, is, rank, to_i64(p->shape, rank, e), dst, to_i64(p->dst, rank, d),
                                             src, to_i64(p->src, rank, s), &err));
  return st == KP_OK ? 0 : kp_raise_bridge(st, &err, where);
}

static int bridge_bytes(int dspace, char *dst, PyObject *dlabel, int sspace, const char *src, PyObject *slabel,
                        size_t bytes, const char *where) {
  const char *dl = dlabel ? PyUnicode_AsUTF8(dlabel) : "";
  const char *sl = slabel ? PyUnicode_AsUTF8(slabel) : "";
  if (!dl || !sl) return -1;
  kp_error err;
  err.message[0] = 0;
  kp_status st;
  KP_KOKKOS_WORK(where, return -1, st = kp_bridge_copy_bytes(dspace, dst, dl, sspace, src, sl, bytes, &err));
  return st == KP_OK ? 0 : kp_raise_bridge(st, &err, where);
}

/* While a copy or fill runs without the GIL, another thread may finalize
 * Kokkos (an exit with daemon threads still copying): count the copy as an
 * export of both memories, so finalize leaves them allocated under it. */
static void pin(kp_view *a, kp_view *b) {
  if (a && a->owner) a->owner->exports++;
  if (b && b->owner) b->owner->exports++;
}

static void unpin(kp_view *a, kp_view *b) {
  if (a && a->owner) a->owner->exports--;
  if (b && b->owner) b->owner->exports--;
}

static int copy_same_dtype(kp_view *dst, kp_view *src, const char *where);
static int copy_same_dtype_pinned(kp_view *dst, kp_view *src, size_t is, Py_ssize_t n, const char *where);
static int copy_strided(kp_view *dst, kp_view *src, const kp_plan *p, size_t is, Py_ssize_t n, const char *where);

/* Reports a copy into dst to Kokkos Tools as a deep copy from src_data in
 * src_space (kp_bridge_tools_begin_deep_copy): 1 when reported (the caller
 * reports the end after the copy), 0 when no tool listens, -1 with an
 * exception. Called with the GIL. */
static int tools_begin(kp_view *dst, int src_space, PyObject *src_label, const void *src_data, size_t bytes) {
  if (!kp_tools_bridge_profile_library_loaded()) return 0;
  const char *dl = dst->label ? PyUnicode_AsUTF8(dst->label) : "";
  const char *sl = src_label ? PyUnicode_AsUTF8(src_label) : "Scalar";
  if (!dl || !sl) return -1;
  return kp_bridge_tools_begin_deep_copy(dst->space, dl, dst->data, src_space, sl, src_data, (uint64_t)bytes);
}

/* ---- operands that share memory -------------------------------------------------- */

/* How the memory of two Views of equal shape and dtype relates. */
enum { KP_MEMORY_APART, KP_MEMORY_SAME, KP_MEMORY_OVERLAP };

/* KP_MEMORY_APART when the memory of dst and src (non-empty, of equal shapes
 * and dtypes) cannot meet: the byte ranges they span, from the lowest
 * element to the end of the highest, do not intersect. KP_MEMORY_SAME when
 * they name the same elements in the same order (a copy of a View onto
 * itself), else KP_MEMORY_OVERLAP. Addresses are compared whatever the
 * spaces: a device-space View over host memory may alias a host View. The
 * spans were checked on construction (kp_check_span_at): nothing overflows. */
static int memory_relation(const kp_view *dst, const kp_view *src, Py_ssize_t is) {
  /* two allocations of the package's own never overlap: nothing to compute */
  const kp_owner *downer = dst->owner, *sowner = src->owner;
  if (downer && sowner && downer != sowner && downer->kind == KP_OWNER_KOKKOS && sowner->kind == KP_OWNER_KOKKOS)
    return KP_MEMORY_APART;
  Py_ssize_t dlo = 0, dhi = is, slo = 0, shi = is;
  int same = dst->data == src->data;
  for (int r = 0; r < dst->rank; ++r) {
    Py_ssize_t last = dst->shape[r] - 1;
    Py_ssize_t d = dst->byte_strides[r] * last, s = src->byte_strides[r] * last;
    if (d < 0)
      dlo += d;
    else
      dhi += d;
    if (s < 0)
      slo += s;
    else
      shi += s;
    same &= d == s;
  }
  if (same) return KP_MEMORY_SAME;
  uintptr_t dat = (uintptr_t)dst->data, sat = (uintptr_t)src->data;
  /* lo <= 0 wraps to a subtraction */
  if (dat + (uintptr_t)dhi <= sat + (uintptr_t)slo || sat + (uintptr_t)shi <= dat + (uintptr_t)dlo)
    return KP_MEMORY_APART;
  return KP_MEMORY_OVERLAP;
}

/* The label of the temporaries of a staged copy (Kokkos Tools see it). */
static const char staging_label[] = "kokkos.deep_copy staging";

/* dst <- src through a new contiguous View in src's space (ordered as dst
 * is, when dst is LayoutLeft-contiguous): two copies between memories that
 * do not overlap. */
static int copy_through_temporary(kp_view *dst, kp_view *src, const char *where) {
  kp_state *st = kp_state_from_type(Py_TYPE(dst));
  if (!st) return -1;
  kp_view_spec spec = {0};
  spec.rank = src->rank;
  for (int r = 0; r < src->rank; ++r) spec.shape[r] = src->shape[r];
  spec.dtype = src->dtype;
  spec.space = src->space;
  spec.layout = kp_view_is_f_contiguous(dst) && !kp_view_is_c_contiguous(dst) ? KP_LAYOUT_LEFT : KP_LAYOUT_RIGHT;
  spec.zero = 0;
  spec.label_checked = 1;
  PyObject *label = PyUnicode_FromString(staging_label);
  if (!label) return -1;
  kp_view *tmp = kp_view_allocate(st, &spec, label);
  Py_DECREF(label);
  if (!tmp) return -1;
  int rc = copy_same_dtype(tmp, src, where);
  if (rc == 0) rc = copy_same_dtype(dst, tmp, where);
  Py_DECREF(tmp);
  return rc;
}

/* dst <- src where their memory overlaps, with NumPy's result: as if src
 * were copied first. Two HostSpace runs contiguous in the same order are
 * one memmove; anything else (strides that cross; other spaces, whose
 * copies go through Kokkos' fences, byte copies and parallel kernels) goes
 * through a temporary. */
static int copy_overlapping(kp_view *dst, kp_view *src, size_t bytes, const char *where) {
  if (!(same_order_contiguous(dst, src) && dst->space == KP_SPACE_HOST && src->space == KP_SPACE_HOST))
    return copy_through_temporary(dst, src, where);
  int told = tools_begin(dst, src->space, src->label, src->data, bytes);
  if (told < 0) return -1;
  char *d = dst->data;
  const char *s = src->data;
  if (bytes < KP_HOST_SMALL_BYTES) {
    memmove(d, s, bytes);
  } else {
    Py_BEGIN_ALLOW_THREADS
    memmove(d, s, bytes);
    Py_END_ALLOW_THREADS
  }
  if (told) kp_bridge_tools_end_deep_copy();
  return 0;
}

/* ---- copies between Views ---------------------------------------------------------- */

/* Copies between two Views of equal shape and dtype. */
static int copy_same_dtype(kp_view *dst, kp_view *src, const char *where) {
  if (kp_view_require_device_reach(dst, PyExc_ValueError, where) < 0 ||
      kp_view_require_device_reach(src, PyExc_ValueError, where) < 0)
    return -1;
  size_t is = (size_t)kp_dtypes[dst->dtype].itemsize;
  Py_ssize_t n = kp_view_size(dst);
  if (n == 0) return 0;
  int relation = memory_relation(dst, src, (Py_ssize_t)is);
  if (relation == KP_MEMORY_SAME) return 0;
  pin(dst, src);
  int rc = relation == KP_MEMORY_OVERLAP ? copy_overlapping(dst, src, (size_t)n * is, where)
                                         : copy_same_dtype_pinned(dst, src, is, n, where);
  unpin(dst, src);
  return rc;
}

/* dst <- src, n > 0 elements of is bytes, whose memories do not overlap. */
static int copy_same_dtype_pinned(kp_view *dst, kp_view *src, size_t is, Py_ssize_t n, const char *where) {
  kp_plan p;
  plan_make(&p, dst->rank, dst->shape, dst->strides, src->strides);

  /* 1. one byte copy through Kokkos (which reports it to Kokkos Tools);
   * HostSpace to HostSpace is the host copy below (no global fences, and
   * split across the host threads when large). */
  if (same_order_contiguous(dst, src) && !(dst->space == KP_SPACE_HOST && src->space == KP_SPACE_HOST))
    return bridge_bytes(dst->space, dst->data, dst->label, src->space, src->data, src->label, (size_t)n * is, where);
  /* 2.-4. copies the core carries out itself, reported as Kokkos does */
  int told = tools_begin(dst, src->space, src->label, src->data, (size_t)n * is);
  if (told < 0) return -1;
  int rc = copy_strided(dst, src, &p, is, n, where);
  if (told) kp_bridge_tools_end_deep_copy();
  return rc;
}

static int copy_strided(kp_view *dst, kp_view *src, const kp_plan *pp, size_t is, Py_ssize_t n, const char *where) {
  kp_plan p = *pp;
  int dhost = kp_bridge_space_host_accessible(dst->space), shost = kp_bridge_space_host_accessible(src->space);
  /* 2. host strided copy */
  if (dhost && shost) return run_host(&p, dst->data, src->data, is, (size_t)n * is, 0, where);
  /* 3. one space: the bridge kernel */
  if (dst->space == src->space) return bridge_strided(dst->space, is, &p, dst->data, src->data, where);

  /* 4. staging: make the source contiguous in its own space (if it is not),
   * move the bytes, then scatter in the destination's space. */
  kp_error err;
  err.message[0] = 0;
  void *stage_src = NULL, *stage_dst = NULL;
  int rc = -1;
  Py_ssize_t cstr[KP_MAX_RANK];
  kp_contiguous_strides(dst->rank, dst->shape, KP_LAYOUT_RIGHT, cstr);
  size_t bytes = (size_t)n * is;
  const char *contig_src = src->data; /* C-ordered from here on */
  if (!(kp_view_is_c_contiguous(src))) {
    kp_status s = kp_bridge_allocate(src->space, staging_label, bytes, 0, &stage_src, &err);
    if (s != KP_OK) {
      kp_raise_bridge(s, &err, where);
      goto done;
    }
    kp_plan ps;
    plan_make(&ps, src->rank, src->shape, cstr, src->strides);
    if (kp_bridge_space_host_accessible(src->space)) {
      Py_BEGIN_ALLOW_THREADS
      copy_rec(&ps, 0, (char *)stage_src, src->data, is);
      Py_END_ALLOW_THREADS
    } else if (bridge_strided(src->space, is, &ps, (char *)stage_src, src->data, where) < 0) {
      goto done;
    }
    contig_src = (const char *)stage_src;
  }
  if (kp_view_is_c_contiguous(dst)) {
    rc = bridge_bytes(dst->space, dst->data, dst->label, src->space, contig_src, src->label, bytes, where);
    goto done;
  }
  {
    kp_status s = kp_bridge_allocate(dst->space, staging_label, bytes, 0, &stage_dst, &err);
    if (s != KP_OK) {
      kp_raise_bridge(s, &err, where);
      goto done;
    }
    if (bridge_bytes(dst->space, (char *)stage_dst, dst->label, src->space, contig_src, src->label, bytes, where) < 0)
      goto done;
    kp_plan pd;
    plan_make(&pd, dst->rank, dst->shape, dst->strides, cstr);
    if (dhost) {
      char *d = dst->data;
      Py_BEGIN_ALLOW_THREADS
      copy_rec(&pd, 0, d, (const char *)stage_dst, is);
      Py_END_ALLOW_THREADS
      rc = 0;
    } else {
      rc = bridge_strided(dst->space, is, &pd, dst->data, (const char *)stage_dst, where);
    }
  }
done:
  if (stage_src) kp_bridge_deallocate(src->space, staging_label, stage_src, bytes, &err);
  if (stage_dst) kp_bridge_deallocate(dst->space, staging_label, stage_dst, bytes, &err);
  return rc;
}

static int fill_view_pinned(kp_view *dst, const char *value, const char *where);

/* Fills dst with one element value (itemsize bytes). */
int kp_fill_view(kp_view *dst, const char *value, const char *where) {
  if (kp_view_require_device_reach(dst, PyExc_ValueError, where) < 0) return -1;
  pin(dst, NULL);
  int rc = fill_view_pinned(dst, value, where);
  unpin(dst, NULL);
  return rc;
}

static int fill_view_pinned(kp_view *dst, const char *value, const char *where) {
  size_t is = (size_t)kp_dtypes[dst->dtype].itemsize;
  if (kp_view_size(dst) == 0) return 0;
  kp_plan p;
  plan_make(&p, dst->rank, dst->shape, dst->strides, NULL);
  /* Kokkos reports a fill as a deep copy from a host "Scalar". */
  int told = tools_begin(dst, KP_SPACE_HOST, NULL, value, (size_t)kp_view_size(dst) * is);
  if (told < 0) return -1;
  int rc = 0;
  if (kp_bridge_space_host_accessible(dst->space)) {
    rc = run_host(&p, dst->data, value, is, (size_t)kp_view_size(dst) * is, 1, where);
  } else {
    int64_t e[KP_MAX_RANK], s[KP_MAX_RANK];
    kp_error err;
    err.message[0] = 0;
    kp_status st;
    st = KP_OK;
    KP_KOKKOS_WORK(where, rc = -1,
                   st = kp_bridge_fill(dst->space, is, p.rank, to_i64(p.shape, p.rank, e), dst->data,
                                       to_i64(p.dst, p.rank, s), value, &err));
    if (st != KP_OK) rc = kp_raise_bridge(st, &err, where);
  }
  if (told) kp_bridge_tools_end_deep_copy();
  return rc;
}

int kp_copy_views(kp_view *dst, kp_view *src, const char *where) { return copy_same_dtype(dst, src, where); }

int kp_check_same_shape(const kp_view *dst, const kp_view *src, const char *where) {
  return same_shape(dst, src) ? 0 : raise_shape_mismatch(dst, src, where);
}

/* Parses (copy=True, space=None) of the mirror methods (signature sig). */
static int parse_mirror_args(kp_state *st, const kp_signature *sig, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames, int *copy, int *space) {
  PyObject *copy_o, *space_o;
  const kp_param params[] = {{KP_KW_COPY, &copy_o}, {KP_KW_SPACE, &space_o}};
  if (!st || kp_args_parse(st, sig, params, KP_PARAM_COUNT(params), args, nargs, kwnames) < 0) return -1;
  if ((*copy = kp_args_bool(copy_o, sig->name, "copy", 1)) < 0) return -1;
  *space = KP_SPACE_HOST;
  if (space_o && space_o != Py_None) {
    if ((*space = kp_arg_space(st, space_o, sig->name)) < 0) return -1;
    if (kp_space_check_available(*space, sig->name) < 0) return -1;
  }
  return 0;
}

static PyObject *make_mirror(kp_view *self, int space, int copy, const char *where) {
  kp_state *st = kp_state_from_type(Py_TYPE(self));
  kp_view_spec spec = {0};
  spec.rank = self->rank;
  for (int r = 0; r < self->rank; ++r) spec.shape[r] = self->shape[r];
  spec.dtype = self->dtype;
  spec.space = space;
  spec.layout = self->layout == KP_LAYOUT_LEFT ? KP_LAYOUT_LEFT : KP_LAYOUT_RIGHT;
  spec.traits = self->traits & ~(unsigned)KP_TRAIT_UNMANAGED;
  spec.dynamic = PyObject_TypeCheck((PyObject *)self, st->dyn_rank_view_type);
  spec.zero = !copy;
  spec.label_checked = 1; /* self's label passed the door when self was made */
  PyObject *label = PyUnicode_FromFormat("%U_mirror", self->label);
  if (!label) return NULL;
  kp_view *m = kp_view_allocate(st, &spec, label);
  Py_DECREF(label);
  if (!m) return NULL;
  if (copy && copy_same_dtype(m, self, where) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  return (PyObject *)m;
}

PyObject *kp_view_create_mirror(kp_view *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const kp_signature sig = {"View.create_mirror()", 2, 0};
  const char *where = sig.name;
  int copy, space;
  if (parse_mirror_args(kp_state_from_type(Py_TYPE(self)), &sig, args, nargs, kwnames, &copy, &space) < 0) return NULL;
  if (kp_view_check_released(self)) return NULL;
  return make_mirror(self, space, copy, where);
}

PyObject *kp_view_create_mirror_view(kp_view *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  static const kp_signature sig = {"View.create_mirror_view()", 2, 0};
  const char *where = sig.name;
  int copy, space;
  if (parse_mirror_args(kp_state_from_type(Py_TYPE(self)), &sig, args, nargs, kwnames, &copy, &space) < 0) return NULL;
  return kp_mirror(self, space, copy, 1, where);
}

PyObject *kp_mirror(kp_view *src, int space, int copy, int view_if_possible, const char *where) {
  if (kp_view_check_released(src)) return NULL;
  /* Kokkos returns the View itself when the target space can use its memory. */
  int usable = space == src->space || (space == KP_SPACE_HOST && kp_bridge_space_host_accessible(src->space));
  if (view_if_possible && usable) return Py_NewRef((PyObject *)src);
  return make_mirror(src, space, copy, where);
}

kp_view *kp_view_copy_to_space(kp_state *st, kp_view *src, int space, PyObject *label, const char *where) {
  if (kp_view_check_released(src)) return NULL;
  if (kp_space_check_available(space, where) < 0) return NULL;
  kp_view_spec spec;
  memset(&spec, 0, sizeof spec);
  spec.rank = src->rank;
  for (int r = 0; r < src->rank; ++r) spec.shape[r] = src->shape[r];
  spec.dtype = src->dtype;
  spec.space = space;
  spec.layout = (kp_view_is_f_contiguous(src) && !kp_view_is_c_contiguous(src)) ? KP_LAYOUT_LEFT : KP_LAYOUT_RIGHT;
  spec.zero = 0;
  spec.label_checked = !label; /* src's own label passed the door */
  kp_view *dst = kp_view_allocate(st, &spec, label ? label : src->label);
  if (!dst) return NULL;
  if (kp_copy_views(dst, src, where) < 0) {
    Py_DECREF(dst);
    return NULL;
  }
  return dst;
}
