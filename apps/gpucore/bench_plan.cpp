// SPDX-License-Identifier: Apache-2.0
#include "bench_plan.hpp"

#include <initializer_list>
#include <utility>
#include <type_traits>

#include "gpucore/float16.hpp"
#include "operation.hpp"

namespace gpucore::cli {
namespace {

constexpr std::size_t pow2(int k) { return std::size_t{1} << k; }

struct Plan {
    std::vector<BenchCase> cases;

    void add(const Operation& op, DType dtype, ReduceOp rop, std::size_t rows, std::size_t cols,
             std::string target = {}) {
        CaseSpec spec;
        spec.op = &op;
        spec.dtype = dtype;
        spec.reduce_op = rop;
        spec.rows = rows;
        spec.cols = cols;
        cases.push_back({spec, std::move(target), std::nullopt});
    }
    void vector_add(DType t, std::size_t n, std::string target = {}) {
        add(operation("vector_add"), t, ReduceOp::sum, 1, n, std::move(target));
    }
    void reduce(DType t, ReduceOp op, std::size_t n, std::string target = {}) {
        add(operation("reduce"), t, op, 1, n, std::move(target));
    }
    void transpose(DType t, std::size_t rows, std::size_t cols, std::string target = {}) {
        add(operation("transpose"), t, ReduceOp::sum, rows, cols, std::move(target));
    }
    void reduce_rows(DType t, std::size_t rows, std::size_t cols, std::string target = {}) {
        add(operation("reduce_rows"), t, ReduceOp::sum, rows, cols, std::move(target));
    }
    // The last case's target compares its GB/s with the same case in `reference`'s dtype.
    void in_turn_with(DType reference) {
        CaseSpec spec = cases.back().spec;
        spec.dtype = reference;
        cases.back().in_turn_with = spec;
    }
    bool has(const Operation& op) const {
        for (const BenchCase& c : cases)
            if (c.spec.op == &op) return true;
        return false;
    }
};

// The dtypes that accumulate in a wider type (f16, bf16: in f32); their reductions should read as
// fast as f32's.
bool accumulates_in_wider_type(DType t) {
    return gpucore::visit(t, [](auto tag) {
        using T = typename decltype(tag)::type;
        return !std::is_same_v<gpucore::accumulator_t<T>, T>;
    });
}

// Every dtype but f32 (which the plans sweep in detail).
std::vector<DType> other_dtypes() {
    std::vector<DType> others;
    for (DType t : gpucore::all_dtypes)
        if (t != DType::f32) others.push_back(t);
    return others;
}

// Sizes for an operation without a plan of its own (a new one): `vector_sizes` of f32 and the
// largest of them for every other dtype (or the same with `matrix_shapes`), reduce op sum.
struct DefaultSizes {
    std::vector<std::size_t> vector_sizes;
    std::vector<std::pair<std::size_t, std::size_t>> matrix_shapes;
};

void default_plan(Plan& p, const Operation& op, const DefaultSizes& sizes) {
    if (op.is_matrix()) {
        for (auto [rows, cols] : sizes.matrix_shapes) p.add(op, DType::f32, ReduceOp::sum, rows, cols);
        const auto [rows, cols] = sizes.matrix_shapes.back();
        for (DType t : other_dtypes()) p.add(op, t, ReduceOp::sum, rows, cols);
    } else {
        for (std::size_t n : sizes.vector_sizes) p.add(op, DType::f32, ReduceOp::sum, 1, n);
        for (DType t : other_dtypes()) p.add(op, t, ReduceOp::sum, 1, sizes.vector_sizes.back());
    }
}

void quick_plan(Plan& p) {
    for (int k : {14, 20}) p.vector_add(DType::f32, pow2(k));
    for (DType t : other_dtypes()) p.vector_add(t, pow2(20));
    for (int k : {14, 20}) p.reduce(DType::f32, ReduceOp::sum, pow2(k));
    for (DType t : other_dtypes()) p.reduce(t, ReduceOp::sum, pow2(20));
    for (ReduceOp op : {ReduceOp::min, ReduceOp::max, ReduceOp::prod})
        p.reduce(DType::f32, op, pow2(20));
    p.transpose(DType::f32, 256, 256);
    p.transpose(DType::f32, 1024, 1024);
    p.transpose(DType::f32, 1000, 777);
    for (DType t : other_dtypes()) p.transpose(t, 512, 512);
    p.reduce_rows(DType::f32, pow2(14), 16);
    p.reduce_rows(DType::f32, 512, 2048);
    p.reduce_rows(DType::f32, 8, pow2(18));
    for (DType t : other_dtypes()) p.reduce_rows(t, 512, 512);
}

void cpu_plan(Plan& p) {
    const std::string target = "CPU target: ";
    for (int k : {10, 14, 18, 22}) p.vector_add(DType::f32, pow2(k));
    p.vector_add(DType::f32, pow2(26), target + ">= 1.0x a plain OpenMP loop");
    for (DType t : other_dtypes()) p.vector_add(t, pow2(22));

    for (int k : {10, 14, 18, 22}) p.reduce(DType::f32, ReduceOp::sum, pow2(k));
    p.reduce(DType::f32, ReduceOp::sum, pow2(26), target + ">= 1.5x numpy sum (tools/cpu_peers.py)");
    // The 16-bit types' bandwidth is compared where both sides are bound by memory, not by the
    // fixed cost of a parallel launch (which dominates a 2^22-element reduce on a many-core host).
    for (DType t : other_dtypes()) {
        p.reduce(t, ReduceOp::sum, pow2(22));
        if (accumulates_in_wider_type(t)) {
            p.reduce(t, ReduceOp::sum, pow2(26), target + "GB/s >= 1.0x reduce sum f32 2^26's");
            p.in_turn_with(DType::f32);
        }
    }
    for (ReduceOp op : {ReduceOp::min, ReduceOp::max, ReduceOp::prod})
        p.reduce(DType::f32, op, pow2(22));

    for (std::size_t s : {256, 1024, 4096}) p.transpose(DType::f32, s, s);
    p.transpose(DType::f32, 8192, 8192, target + ">= 8x numpy copyto(out, m.T) (tools/cpu_peers.py)");
    p.transpose(DType::f32, 5003, 3001);
    for (DType t : other_dtypes()) p.transpose(t, 2048, 2048);

    p.reduce_rows(DType::f32, pow2(16), 16);
    p.reduce_rows(DType::f32, 2048, 2048);
    p.reduce_rows(DType::f32, 8, pow2(20));
    p.reduce_rows(DType::f32, 8192, 8192);
    for (DType t : other_dtypes()) {
        p.reduce_rows(t, 2048, 2048);
        if (accumulates_in_wider_type(t)) {
            p.reduce_rows(t, 8192, 8192, target + "GB/s >= 1.0x reduce_rows sum f32 8192x8192's");
            p.in_turn_with(DType::f32);
        }
    }
}

void gpu_plan(Plan& p) {
    const std::string target = "GPU target: ";
    for (int k : {10, 14, 18, 22, 26}) p.vector_add(DType::f32, pow2(k));
    p.vector_add(DType::f32, pow2(28), target + ">= 1.00x thrust::transform");
    for (DType t : other_dtypes()) p.vector_add(t, pow2(26));

    for (int k : {10, 16, 20})
        p.reduce(DType::f32, ReduceOp::sum, pow2(k), target + "time <= CUB's");
    for (int k : {14, 18, 22, 26}) p.reduce(DType::f32, ReduceOp::sum, pow2(k));
    p.reduce(DType::f32, ReduceOp::sum, pow2(28), target + ">= 1.00x cub::DeviceReduce::Sum");
    for (DType t : other_dtypes()) p.reduce(t, ReduceOp::sum, pow2(26));
    for (ReduceOp op : {ReduceOp::min, ReduceOp::max, ReduceOp::prod})
        p.reduce(DType::f32, op, pow2(26));

    p.transpose(DType::f32, 1024, 1024);
    p.transpose(DType::f32, 4096, 4096, target + ">= 0.90x of a D2D copy");
    p.transpose(DType::f32, 16384, 16384, target + ">= 0.90x of a D2D copy");
    p.transpose(DType::f32, 5003, 3001, target + ">= 0.80x of a D2D copy");
    for (DType t : other_dtypes()) p.transpose(t, 8192, 8192);

    p.reduce_rows(DType::f32, 2048, 2048);
    p.reduce_rows(DType::f32, 2048, pow2(18), target + ">= 1.00x cub::DeviceSegmentedReduce");
    p.reduce_rows(DType::f32, 8, pow2(26), target + ">= 0.95x a 2^29 reduce's bandwidth");
    p.reduce_rows(DType::f32, pow2(20), 16, target + ">= 5x cub::DeviceSegmentedReduce");
    for (DType t : other_dtypes()) p.reduce_rows(t, 2048, 8192);
}

} // namespace

std::vector<BenchCase> bench_plan(bool quick, bool gpu) {
    Plan p;
    if (quick) quick_plan(p);
    else if (gpu) gpu_plan(p);
    else cpu_plan(p);
    DefaultSizes sizes;
    if (quick) sizes = {{pow2(14), pow2(20)}, {{256, 256}, {1000, 777}, {1024, 1024}}};
    else if (gpu) sizes = {{pow2(10), pow2(18), pow2(26)}, {{1024, 1024}, {5003, 3001}, {8192, 8192}}};
    else sizes = {{pow2(10), pow2(18), pow2(22)}, {{256, 256}, {5003, 3001}, {2048, 2048}}};
    for (const Operation& op : all_operations())
        if (!p.has(op)) default_plan(p, op, sizes);
    return p.cases;
}

} // namespace gpucore::cli
