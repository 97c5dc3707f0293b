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

// Cuts what means nothing in a Python exception from a Kokkos message, in
// place: its stack-trace placeholder ("Traceback functionality not
// available") and the blank lines and spaces at the end.
inline void trim_kokkos_message(char *arg_msg) noexcept {
  if (char *trace = std::strstr(arg_msg, "Traceback functionality not available")) *trace = '\0';
  size_t n = std::strlen(arg_msg);
  while (n > 0 && (arg_msg[n - 1] == '\n' || arg_msg[n - 1] == ' ' || arg_msg[n - 1] == '\r' || arg_msg[n - 1] == '\t'))
    arg_msg[--n] = '\0';
}

// Writes arg_what (trimmed as above) into *arg_err (when given) and returns
// arg_status.
inline kp_status fail(kp_error *arg_err, kp_status arg_status, const char *arg_what) noexcept {
  if (!arg_err) return arg_status;
  std::snprintf(arg_err->message, sizeof(arg_err->message), "%s", arg_what ? arg_what : "");
  trim_kokkos_message(arg_err->message);
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
