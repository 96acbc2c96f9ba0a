// SPDX-License-Identifier: Apache-2.0
// The parameters of the value-parameterized suites: one case per device x dtype (x reduce op) x
// size or shape, each named "<backend>_<index>_<dtype>[_<op>]_<size>" (e.g. cpu_0_f32_sum_n1023,
// cuda_0_u32_5003x3001) so a failure names the device and a filter can pick one.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpucore/device.hpp"
#include "gpucore/types.hpp"

namespace conformance {

// body(TypeTag<T>{}) for the element type T of dtype (gpucore::visit over the contract's list).
template <class F>
void with_dtype(gpucore::DType dtype, F&& body) {
    gpucore::visit(dtype, [&](auto tag) {
        if constexpr (sizeof(typename decltype(tag)::type) >= 4) {
            body(tag);
        } else {
            ADD_FAILURE() << "the generic suites run 4- and 8-byte dtypes; 16-bit floats: float16_test.cpp";
        }
    });
}

// The dtypes of the contract's list whose element is a 4- or 8-byte type: the generic suites run
// these. half and bfloat16 (2 bytes, accumulated in float) have their own suite with tolerances
// from their epsilon: float16_test.cpp, over kFloat16Dtypes.
inline std::vector<gpucore::DType> dtypes_where(bool (*keep)(gpucore::DType)) {
    std::vector<gpucore::DType> kept;
    for (gpucore::DType dtype : gpucore::all_dtypes)
        if (keep(dtype)) kept.push_back(dtype);
    return kept;
}
inline const std::vector<gpucore::DType> kAllDtypes =
    dtypes_where([](gpucore::DType d) { return gpucore::size_of(d) >= 4; });
inline const std::vector<gpucore::DType> kFloat16Dtypes =
    dtypes_where([](gpucore::DType d) { return gpucore::size_of(d) == 2; });
inline constexpr gpucore::ReduceOp kAllReduceOps[] = {gpucore::ReduceOp::sum, gpucore::ReduceOp::min,
                                                      gpucore::ReduceOp::max, gpucore::ReduceOp::prod};

struct Shape {
    std::size_t rows;
    std::size_t cols;
};

struct DeviceCase {
    gpucore::Device device;
};

struct DtypeCase {
    gpucore::Device device;
    gpucore::DType dtype;
};

struct SizeCase {
    gpucore::Device device;
    gpucore::DType dtype;
    std::size_t n;
};

struct ShapeCase {
    gpucore::Device device;
    gpucore::DType dtype;
    Shape shape;
};

struct KindCase {
    gpucore::Device device;
    gpucore::MemoryKind kind;
};

struct ReduceCase {
    gpucore::Device device;
    gpucore::DType dtype;
    gpucore::ReduceOp op;
    std::size_t n;
};

struct ReduceRowsCase {
    gpucore::Device device;
    gpucore::DType dtype;
    gpucore::ReduceOp op;
    Shape shape;
};

// Awkward lengths: empty, single, around warp (32) and wavefront (64) widths, odd tails around
// powers of two, and primes (65537, 1000003).
const std::vector<std::size_t>& awkward_sizes();
// Shapes for transpose: empty (0x0, 0xN, Nx0), vectors (1xN, Nx1), non-square odd tiles around 32
// and 64, a large odd 5003x3001, many short rows 2^16x16 and its transpose, few long rows 4x2^20,
// and 7 x 300001 and its transpose (over 8 MiB of 4-byte elements: pairs of words, an odd long side).
const std::vector<Shape>& transpose_shapes();
// Shapes for reduce_rows: the same families, chosen for the row-length strategies a backend picks
// (several rows per warp, a block per row, several blocks per row), with few rows of 64 KiB
// (f32 3 x 16384) and rows of 12 KiB (f32 9 x 3072) for the GPU planner's other lean-block sizes.
const std::vector<Shape>& reduce_rows_shapes();

// Case lists over conformance_devices().
std::vector<DeviceCase> device_cases();
std::vector<DtypeCase> dtype_cases();
std::vector<KindCase> kind_cases(); // every device x {device, pinned_host, managed}
std::vector<SizeCase> size_cases(const std::vector<std::size_t>& sizes);
std::vector<ShapeCase> shape_cases(const std::vector<Shape>& shapes);
std::vector<ReduceCase> reduce_cases(const std::vector<std::size_t>& sizes);
std::vector<ReduceRowsCase> reduce_rows_cases(const std::vector<Shape>& shapes);
// Float dtypes x {min, max} only: the NaN-propagation cases.
std::vector<ReduceCase> nan_reduce_cases(const std::vector<std::size_t>& sizes);
std::vector<ReduceRowsCase> nan_reduce_rows_cases(const std::vector<Shape>& shapes);

// Test-name suffixes.
std::string case_name(const DeviceCase& c);
std::string case_name(const DtypeCase& c);
std::string case_name(const KindCase& c);
std::string case_name(const SizeCase& c);
std::string case_name(const ShapeCase& c);
std::string case_name(const ReduceCase& c);
std::string case_name(const ReduceRowsCase& c);

// For INSTANTIATE_TEST_SUITE_P's name generator.
struct CaseName {
    template <class Case>
    std::string operator()(const testing::TestParamInfo<Case>& info) const {
        return case_name(info.param);
    }
};

// How GoogleTest prints a parameter in failure messages.
void PrintTo(const DeviceCase& c, std::ostream* out);
void PrintTo(const DtypeCase& c, std::ostream* out);
void PrintTo(const KindCase& c, std::ostream* out);
void PrintTo(const SizeCase& c, std::ostream* out);
void PrintTo(const ShapeCase& c, std::ostream* out);
void PrintTo(const ReduceCase& c, std::ostream* out);
void PrintTo(const ReduceRowsCase& c, std::ostream* out);

} // namespace conformance
