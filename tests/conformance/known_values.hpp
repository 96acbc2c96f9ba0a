// SPDX-License-Identifier: Apache-2.0
// Tiny inputs with results worked out by hand (not by any code), used twice: against every device
// (known_values_test.cpp) and against the CPU reference itself (reference_test.cpp), so a wrong
// reference cannot hide a wrong kernel, nor a wrong kernel agree with a wrong reference.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "gpucore/types.hpp"

namespace conformance::known {

template <class T>
struct ReduceCase {
    const char* what;
    std::vector<T> in;
    gpucore::ReduceOp op;
    T want;
};

template <class T>
struct ReduceRowsCase {
    const char* what;
    std::vector<T> in;
    std::size_t rows, cols;
    gpucore::ReduceOp op;
    std::vector<T> want;
};

template <class T>
struct TransposeCase {
    const char* what;
    std::vector<T> in;
    std::size_t rows, cols;
    std::vector<T> want;
};

template <class T>
struct VectorAddCase {
    const char* what;
    std::vector<T> a, b, want;
};

// Calls visit(case) for every hand-computed reduce case of every dtype.
template <class Visit>
void for_each_reduce_case(Visit&& visit) {
    using gpucore::ReduceOp;
    using i32 = std::int32_t;
    using u32 = std::uint32_t;
    constexpr float inf = std::numeric_limits<float>::infinity();
    constexpr float nan = std::numeric_limits<float>::quiet_NaN();
    constexpr double dnan = std::numeric_limits<double>::quiet_NaN();
    constexpr i32 i32_max = std::numeric_limits<i32>::max();
    constexpr i32 i32_min = std::numeric_limits<i32>::min();

    const std::vector<float> digits = {3, 1, 4, 1, 5};
    visit(ReduceCase<float>{"3+1+4+1+5", digits, ReduceOp::sum, 14.0f});
    visit(ReduceCase<float>{"min of 3 1 4 1 5", digits, ReduceOp::min, 1.0f});
    visit(ReduceCase<float>{"max of 3 1 4 1 5", digits, ReduceOp::max, 5.0f});
    visit(ReduceCase<float>{"3*1*4*1*5", digits, ReduceOp::prod, 60.0f});
    visit(ReduceCase<float>{"min with NaN", {1, nan, 3}, ReduceOp::min, nan});
    visit(ReduceCase<float>{"max with NaN last", {1, 3, nan}, ReduceOp::max, nan});
    visit(ReduceCase<float>{"min with -inf", {2, -inf, 7}, ReduceOp::min, -inf});
    visit(ReduceCase<float>{"sum with +inf", {1, inf, 2}, ReduceOp::sum, inf});
    visit(ReduceCase<float>{"+inf + -inf", {inf, 1, -inf}, ReduceOp::sum, nan});
    visit(ReduceCase<float>{"empty sum", {}, ReduceOp::sum, 0.0f});
    visit(ReduceCase<float>{"empty prod", {}, ReduceOp::prod, 1.0f});
    visit(ReduceCase<float>{"empty min", {}, ReduceOp::min, inf});
    visit(ReduceCase<float>{"empty max", {}, ReduceOp::max, -inf});

    const std::vector<double> quarters = {0.5, 0.25, -1.5};
    visit(ReduceCase<double>{"0.5+0.25-1.5", quarters, ReduceOp::sum, -0.75});
    visit(ReduceCase<double>{"0.5*0.25*-1.5", quarters, ReduceOp::prod, -0.1875});
    visit(ReduceCase<double>{"min of 0.5 0.25 -1.5", quarters, ReduceOp::min, -1.5});
    visit(ReduceCase<double>{"max of 0.5 0.25 -1.5", quarters, ReduceOp::max, 0.5});
    visit(ReduceCase<double>{"max with NaN first", {dnan, 2, 3}, ReduceOp::max, dnan});
    visit(ReduceCase<double>{"empty min", {}, ReduceOp::min, std::numeric_limits<double>::infinity()});

    const std::vector<i32> small = {-2, 7, -3};
    visit(ReduceCase<i32>{"-2+7-3", small, ReduceOp::sum, 2});
    visit(ReduceCase<i32>{"-2*7*-3", small, ReduceOp::prod, 42});
    visit(ReduceCase<i32>{"min of -2 7 -3", small, ReduceOp::min, -3});
    visit(ReduceCase<i32>{"max of -2 7 -3", small, ReduceOp::max, 7});
    visit(ReduceCase<i32>{"INT32_MAX+1 wraps", {i32_max, 1}, ReduceOp::sum, i32_min});
    visit(ReduceCase<i32>{"65536*65536 wraps to 0", {65536, 65536}, ReduceOp::prod, 0});
    visit(ReduceCase<i32>{"-1*INT32_MIN wraps", {-1, i32_min}, ReduceOp::prod, i32_min});
    visit(ReduceCase<i32>{"empty min", {}, ReduceOp::min, i32_max});
    visit(ReduceCase<i32>{"empty max", {}, ReduceOp::max, i32_min});
    visit(ReduceCase<i32>{"empty prod", {}, ReduceOp::prod, 1});

    visit(ReduceCase<u32>{"0xffffffff+2 wraps", {0xffffffffu, 2u}, ReduceOp::sum, 1u});
    visit(ReduceCase<u32>{"0xffffffff*2 wraps", {0xffffffffu, 2u}, ReduceOp::prod, 0xfffffffeu});
    visit(ReduceCase<u32>{"3*0x55555556 wraps", {3u, 0x55555556u}, ReduceOp::prod, 2u});
    visit(ReduceCase<u32>{"min of 0xffffffff 2", {0xffffffffu, 2u}, ReduceOp::min, 2u});
    visit(ReduceCase<u32>{"max of 0xffffffff 2", {0xffffffffu, 2u}, ReduceOp::max, 0xffffffffu});
    visit(ReduceCase<u32>{"empty min", {}, ReduceOp::min, 0xffffffffu});
    visit(ReduceCase<u32>{"empty max", {}, ReduceOp::max, 0u});
    visit(ReduceCase<u32>{"empty sum", {}, ReduceOp::sum, 0u});
}

template <class Visit>
void for_each_reduce_rows_case(Visit&& visit) {
    using gpucore::ReduceOp;
    const std::vector<float> m23 = {1, 2, 3, 4, 5, 6}; // [[1 2 3] [4 5 6]]
    visit(ReduceRowsCase<float>{"2x3 sum", m23, 2, 3, ReduceOp::sum, {6, 15}});
    visit(ReduceRowsCase<float>{"2x3 prod", m23, 2, 3, ReduceOp::prod, {6, 120}});
    visit(ReduceRowsCase<float>{"2x3 min", m23, 2, 3, ReduceOp::min, {1, 4}});
    visit(ReduceRowsCase<float>{"2x3 max", m23, 2, 3, ReduceOp::max, {3, 6}});
    visit(ReduceRowsCase<float>{"3x2 sum", m23, 3, 2, ReduceOp::sum, {3, 7, 11}});
    visit(ReduceRowsCase<float>{"3x0 prod", {}, 3, 0, ReduceOp::prod, {1, 1, 1}});
    visit(ReduceRowsCase<float>{"2x0 max", {}, 2, 0, ReduceOp::max,
                                {-std::numeric_limits<float>::infinity(),
                                 -std::numeric_limits<float>::infinity()}});
    visit(ReduceRowsCase<float>{"0x3 sum", {}, 0, 3, ReduceOp::sum, {}});
    visit(ReduceRowsCase<double>{"6x1 sum", {1, 2, 3, 4, 5, 6}, 6, 1, ReduceOp::sum, {1, 2, 3, 4, 5, 6}});
    visit(ReduceRowsCase<std::int32_t>{"2x2 min", {-1, -2, 3, -4}, 2, 2, ReduceOp::min, {-2, -4}});
    visit(ReduceRowsCase<std::int32_t>{"2x2 sum", {-1, -2, 3, -4}, 2, 2, ReduceOp::sum, {-3, -1}});
    visit(ReduceRowsCase<std::uint32_t>{"2x2 sum wraps", {0xffffffffu, 1u, 5u, 6u}, 2, 2,
                                        ReduceOp::sum, {0u, 11u}});
    visit(ReduceRowsCase<std::uint32_t>{"2x0 min", {}, 2, 0, ReduceOp::min, {0xffffffffu, 0xffffffffu}});
}

template <class Visit>
void for_each_transpose_case(Visit&& visit) {
    visit(TransposeCase<float>{"2x3", {1, 2, 3, 4, 5, 6}, 2, 3, {1, 4, 2, 5, 3, 6}});
    visit(TransposeCase<float>{"3x2", {1, 2, 3, 4, 5, 6}, 3, 2, {1, 3, 5, 2, 4, 6}});
    visit(TransposeCase<double>{"1x4", {1, 2, 3, 4}, 1, 4, {1, 2, 3, 4}});
    visit(TransposeCase<std::int32_t>{"4x1", {-1, -2, -3, -4}, 4, 1, {-1, -2, -3, -4}});
    visit(TransposeCase<std::uint32_t>{"2x2", {1u, 2u, 3u, 4u}, 2, 2, {1u, 3u, 2u, 4u}});
    visit(TransposeCase<std::uint32_t>{"0x5", {}, 0, 5, {}});
}

template <class Visit>
void for_each_vector_add_case(Visit&& visit) {
    visit(VectorAddCase<float>{"small floats", {1, 2, 3}, {10, 20, 30}, {11, 22, 33}});
    visit(VectorAddCase<double>{"binary fractions", {0.5, 1.25}, {0.25, -3}, {0.75, -1.75}});
    visit(VectorAddCase<std::int32_t>{"INT32_MAX+1 wraps", {std::numeric_limits<std::int32_t>::max(), -5},
                                      {1, 3}, {std::numeric_limits<std::int32_t>::min(), -2}});
    visit(VectorAddCase<std::uint32_t>{"0xffffffff+2 wraps", {0xffffffffu}, {2u}, {1u}});
    visit(VectorAddCase<std::uint32_t>{"empty", {}, {}, {}});
}

} // namespace conformance::known
