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
