// SPDX-License-Identifier: Apache-2.0
// FUZZ_CHECK: an invariant of a fuzz target. A violation prints what broke and aborts, which
// libFuzzer records as a crash with the input that caused it (and the replay test fails on it).
#pragma once

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(condition, ...)                                                       \
    do {                                                                                 \
        if (!(condition)) {                                                              \
            std::fprintf(stderr, "fuzz invariant failed at %s:%d: %s\n  ", __FILE__,     \
                         __LINE__, #condition);                                          \
            std::fprintf(stderr, __VA_ARGS__);                                           \
            std::fprintf(stderr, "\n");                                                  \
            std::abort();                                                                \
        }                                                                                \
    } while (0)
