/* logging_tool.c: a small Kokkos Tools library for the test suite.
 *
 * It exports the kokkosp_* entry points Kokkos looks up when it loads a tool
 * library (KOKKOS_TOOLS_LIBS, KOKKOS_PROFILE_LIBRARY or --kokkos-tools-libs)
 * and appends one tab-separated line per event to the file named by the
 * environment variable KP_TEST_TOOL_LOG, in the order the events arrive:
 *
 *     push_region <TAB> solve
 *     allocate_data <TAB> Host <TAB> label <TAB> bytes <TAB> ptr
 *
 * Kernel ids and section ids it hands back count up from 1000 and 500.
 * The structs are declared here from the Kokkos Tools interface
 * (Kokkos_Profiling_SpaceHandle is a 64-byte name; KokkosPDeviceInfo holds a
 * size_t). Built by the tests with the system C compiler.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct SpaceHandle {
  char name[64];
};

struct DeviceInfo {
  size_t deviceID;
};

struct ToolSettings {
  bool requires_global_fencing;
  bool padding[255];
};

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *log_file = NULL;
static int log_opened = 0; /* KP_TEST_TOOL_LOG looked up (unset: log nothing) */
static uint64_t next_kernel = 1000;
static uint32_t next_section = 500;

static void log_line(const char *fmt, ...) {
  pthread_mutex_lock(&log_lock);
  if (!log_opened) {
    const char *path = getenv("KP_TEST_TOOL_LOG");
    if (path) log_file = fopen(path, "a");
    log_opened = 1;
  }
  if (log_file) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(log_file, fmt, ap);
    va_end(ap);
    fputc('\n', log_file);
    fflush(log_file);
  }
  pthread_mutex_unlock(&log_lock);
}

static const char *or_empty(const char *s) { return s ? s : ""; }

void kokkosp_init_library(const int load_seq, const uint64_t interface_version, const uint32_t device_count,
                          struct DeviceInfo *info) {
  (void)info;
  log_line("init\t%d\t%" PRIu64 "\t%u", load_seq, interface_version, device_count);
}

void kokkosp_finalize_library(void) { log_line("finalize"); }

void kokkosp_parse_args(int argc, char **argv) {
  char buf[1024] = "";
  for (int i = 0; i < argc; ++i) {
    strncat(buf, "\t", sizeof(buf) - strlen(buf) - 1);
    strncat(buf, or_empty(argv[i]), sizeof(buf) - strlen(buf) - 1);
  }
  log_line("parse_args\t%d%s", argc, buf);
}

void kokkosp_request_tool_settings(const uint32_t count, struct ToolSettings *settings) {
  (void)settings;
  log_line("request_tool_settings\t%u", count);
}

static void begin_kernel(const char *kind, const char *name, uint32_t dev, uint64_t *id) {
  pthread_mutex_lock(&log_lock);
  *id = next_kernel++;
  pthread_mutex_unlock(&log_lock);
  log_line("begin_%s\t%s\t%u\t%" PRIu64, kind, or_empty(name), dev, *id);
}

void kokkosp_begin_parallel_for(const char *name, const uint32_t dev, uint64_t *id) {
  begin_kernel("parallel_for", name, dev, id);
}
void kokkosp_end_parallel_for(const uint64_t id) { log_line("end_parallel_for\t%" PRIu64, id); }
void kokkosp_begin_parallel_reduce(const char *name, const uint32_t dev, uint64_t *id) {
  begin_kernel("parallel_reduce", name, dev, id);
}
void kokkosp_end_parallel_reduce(const uint64_t id) { log_line("end_parallel_reduce\t%" PRIu64, id); }
void kokkosp_begin_parallel_scan(const char *name, const uint32_t dev, uint64_t *id) {
  begin_kernel("parallel_scan", name, dev, id);
}
void kokkosp_end_parallel_scan(const uint64_t id) { log_line("end_parallel_scan\t%" PRIu64, id); }

void kokkosp_begin_fence(const char *name, const uint32_t dev, uint64_t *id) { begin_kernel("fence", name, dev, id); }
void kokkosp_end_fence(const uint64_t id) { log_line("end_fence\t%" PRIu64, id); }

void kokkosp_push_profile_region(const char *name) { log_line("push_region\t%s", or_empty(name)); }
void kokkosp_pop_profile_region(void) { log_line("pop_region"); }

void kokkosp_allocate_data(const struct SpaceHandle space, const char *label, const void *ptr, const uint64_t size) {
  log_line("allocate_data\t%.64s\t%s\t%" PRIu64 "\t%p", space.name, or_empty(label), size, ptr);
}

void kokkosp_deallocate_data(const struct SpaceHandle space, const char *label, const void *ptr, const uint64_t size) {
  log_line("deallocate_data\t%.64s\t%s\t%" PRIu64 "\t%p", space.name, or_empty(label), size, ptr);
}

void kokkosp_begin_deep_copy(struct SpaceHandle dst_space, const char *dst_label, const void *dst,
                             struct SpaceHandle src_space, const char *src_label, const void *src, uint64_t size) {
  log_line("begin_deep_copy\t%.64s\t%s\t%.64s\t%s\t%" PRIu64 "\t%p\t%p", dst_space.name, or_empty(dst_label),
           src_space.name, or_empty(src_label), size, dst, src);
}

void kokkosp_end_deep_copy(void) { log_line("end_deep_copy"); }

void kokkosp_create_profile_section(const char *name, uint32_t *id) {
  pthread_mutex_lock(&log_lock);
  *id = next_section++;
  pthread_mutex_unlock(&log_lock);
  log_line("create_profile_section\t%s\t%u", or_empty(name), *id);
}

void kokkosp_start_profile_section(const uint32_t id) { log_line("start_profile_section\t%u", id); }
void kokkosp_stop_profile_section(const uint32_t id) { log_line("stop_profile_section\t%u", id); }
void kokkosp_destroy_profile_section(const uint32_t id) { log_line("destroy_profile_section\t%u", id); }

void kokkosp_profile_event(const char *name) { log_line("profile_event\t%s", or_empty(name)); }

void kokkosp_declare_metadata(const char *key, const char *value) {
  log_line("declare_metadata\t%s\t%s", or_empty(key), or_empty(value));
}
