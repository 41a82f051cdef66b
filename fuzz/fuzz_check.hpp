// The fuzz targets' assertion: a broken invariant prints what and where, then aborts, which
// libFuzzer reports as a crash and saves the input (crash-<sha1>). Unlike assert(), it is
// never compiled out, whatever the build type.
#pragma once

#include <cstdio>
#include <cstdlib>

#define WFOD_FUZZ_CHECK(cond, what)                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      std::fprintf(stderr, "%s:%d: invariant broken: %s (%s)\n", __FILE__, __LINE__, what, #cond); \
      std::abort();                                                                                \
    }                                                                                              \
  } while (0)
