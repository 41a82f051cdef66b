// Whether this test build runs under AddressSanitizer, for gcc (__SANITIZE_ADDRESS__) and
// clang (__has_feature(address_sanitizer); clang 16 does not define gcc's macro). Tests that
// cannot run under ASan (address-space limits: its shadow memory cannot be mapped under one)
// skip there and say why; the release build runs them.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define WFOD_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WFOD_TEST_UNDER_ASAN 1
#endif
#endif
#ifndef WFOD_TEST_UNDER_ASAN
#define WFOD_TEST_UNDER_ASAN 0
#endif

#include <cstdint>

namespace wfod::test {

// How many random cases a property test draws: all `cases` in the release build, a fifth
// (at least one) under the sanitizers. That pass looks for memory errors and undefined
// behaviour on the same code paths, at 10-50x the cost per case (the test code itself is
// unoptimised there); the release pass draws every case. Used by the tests that were the
// sanitizer pass's longest (docs/testing.md "Where CI's time goes").
constexpr uint64_t property_cases(uint64_t cases) {
  return WFOD_TEST_UNDER_ASAN ? (cases / 5 > 0 ? cases / 5 : 1) : cases;
}

}  // namespace wfod::test
