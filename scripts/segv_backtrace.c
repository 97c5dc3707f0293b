/* segv_backtrace.c: preloaded into a program (LD_PRELOAD), prints the native
 * call stack of the thread that takes SIGSEGV, SIGBUS, SIGILL or SIGABRT to
 * stderr, each frame as library+offset and the nearest exported symbol, then
 * lets the signal end the program as it would have. For machines without a
 * debugger (scripts/init_order_probe.sh builds and uses it). After the
 * signal it calls backtrace() (called once in the constructor, as its first
 * call may load libgcc and allocate), dladdr() and snprintf(): not
 * async-signal-safe by the letter, good enough for a process about to die. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char alt_stack[1 << 16];

static void say(const char *text, int len) {
  if (len > 0) (void)!write(STDERR_FILENO, text, (size_t)len);
}

static void on_fault(int sig, siginfo_t *info, void *context) {
  (void)context;
  void *frames[64];
  char line[512];
  int n = backtrace(frames, 64);
  if (info->si_code > 0) /* raised by the kernel: si_addr is the faulting address */
    say(line, snprintf(line, sizeof line, "segv_backtrace: signal %d at address %p, thread %ld\n", sig, info->si_addr,
                       (long)gettid()));
  else /* sent by raise() or kill(): Python's faulthandler passes a fault on this way */
    say(line, snprintf(line, sizeof line, "segv_backtrace: signal %d, sent by raise or kill, thread %ld\n", sig,
                       (long)gettid()));
  for (int i = 0; i < n; i++) {
    Dl_info where;
    memset(&where, 0, sizeof where);
    if (dladdr(frames[i], &where) && where.dli_fname)
      say(line, snprintf(line, sizeof line, "#%d %s+0x%lx (%s+0x%lx)\n", i, where.dli_fname,
                         (unsigned long)((char *)frames[i] - (char *)where.dli_fbase),
                         where.dli_sname ? where.dli_sname : "?",
                         where.dli_saddr ? (unsigned long)((char *)frames[i] - (char *)where.dli_saddr) : 0UL));
    else
      say(line, snprintf(line, sizeof line, "#%d %p\n", i, frames[i]));
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

__attribute__((constructor)) static void install(void) {
  void *warm[1];
  (void)backtrace(warm, 1);
  stack_t stack = {.ss_sp = alt_stack, .ss_size = sizeof alt_stack};
  sigaltstack(&stack, NULL);
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = on_fault;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  const int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGABRT};
  for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) sigaction(signals[i], &action, NULL);
}
