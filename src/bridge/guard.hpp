// guard.hpp: how bridge code turns failures into a kp_status and a message
// (internal to src/bridge). Every extern "C" bridge function runs its body
// through guarded(), so no C++ exception ever reaches the C core.
#pragma once

#include "bridge.h"

#include <cstdio>
#include <cstring>
#include <exception>
#include <new>

namespace kokkos_python::impl {

// Writes arg_what into *arg_err (when given) and returns arg_status.
// Kokkos' own messages end with a stack-trace placeholder ("Traceback
// functionality not available") and blank lines that mean nothing in a
// Python exception: those are cut off.
inline kp_status fail(kp_error *arg_err, kp_status arg_status, const char *arg_what) noexcept {
  if (!arg_err) return arg_status;
  char *msg = arg_err->message;
  std::snprintf(msg, sizeof(arg_err->message), "%s", arg_what ? arg_what : "");
  if (char *trace = std::strstr(msg, "Traceback functionality not available")) *trace = '\0';
  size_t n = std::strlen(msg);
  while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' ' || msg[n - 1] == '\r' || msg[n - 1] == '\t'))
    msg[--n] = '\0';
  return arg_status;
}

// Runs arg_f() and returns its status; a C++ exception becomes KP_E_NOMEM
// (std::bad_alloc) or KP_E_KOKKOS with the exception's message, and
// arg_unknown for anything not derived from std::exception.
template <class F>
kp_status guarded_call(kp_error *arg_err, const char *arg_unknown, F &&arg_f) noexcept {
  try {
    return arg_f();
  } catch (std::bad_alloc &) {
    return fail(arg_err, KP_E_NOMEM, "out of memory");
  } catch (std::exception &e) {
    return fail(arg_err, KP_E_KOKKOS, e.what());
  } catch (...) {
    return fail(arg_err, KP_E_KOKKOS, arg_unknown);
  }
}

}  // namespace kokkos_python::impl
