// scenario.hpp: what the embedding test programs share: a check that
// counts failures and the way a program reports how its scenario went.
#ifndef KP_TEST_EMBED_SCENARIO_HPP
#define KP_TEST_EMBED_SCENARIO_HPP

#include <cstdio>
#include <string>

namespace kp_test {

inline int &failures() {
  static int s_failures = 0;
  return s_failures;
}

// Prints "FAILED: what" when arg_ok is false; the scenario goes on.
inline void check(bool arg_ok, const std::string &arg_what) {
  if (!arg_ok) {
    std::printf("FAILED: %s\n", arg_what.c_str());
    ++failures();
  }
}

// The exit status of a scenario: 0 and "embed ok" when every check held.
inline int finish() {
  if (failures()) return 1;
  std::printf("embed ok\n");
  return 0;
}

}  // namespace kp_test

#endif
