// SPDX-License-Identifier: Apache-2.0
#include "cases.hpp"

#include "conformance_devices.hpp"

namespace conformance {

const std::vector<std::size_t>& awkward_sizes() {
    static const std::vector<std::size_t> sizes = {0,  1,  2,    31,   32,   33,    63,
                                                   64, 65, 1023, 1024, 4097, 65537, 1000003};
    return sizes;
}

const std::vector<Shape>& transpose_shapes() {
    static const std::vector<Shape> shapes = {
        {0, 0},   {0, 17},    {17, 0},     {1, 1},     {1, 65537}, {65537, 1},
        {2, 3},   {31, 33},   {33, 31},    {32, 32},   {64, 64},   {65, 63},
        {257, 129}, {1000, 1}, {301, 3001}, {5003, 3001}, {65536, 16}, {16, 65536}, {4, 1048576},
        {2, 100003}, {100003, 2}, {7, 10007}, {10007, 7}, {17, 4099}, {4099, 17}, {16, 257}, {257, 16},
        {7, 300001}, {300001, 7}};
    return shapes;
}

const std::vector<Shape>& reduce_rows_shapes() {
    static const std::vector<Shape> shapes = {
        {0, 0},      {0, 33},     {33, 0},   {1, 1},      {1, 1000003}, {65537, 1},
        {31, 33},    {33, 31},    {64, 64},  {7, 4097},   {1000, 1023}, {2, 65537},
        {301, 3001}, {5003, 3001}, {65536, 16}, {4, 1048576}, {3, 16384}, {9, 3072}};
    return shapes;
}

namespace {

// Whether `device` runs a case of `elements` elements (see kCpuExecutionMaxElements).
bool runs(const gpucore::Device& device, std::size_t elements) {
    return elements <= kCpuExecutionMaxElements || !is_cpu_execution_of_gpu_kernels(device);
}

} // namespace

std::vector<DeviceCase> device_cases() {
    std::vector<DeviceCase> cases;
    for (const auto& device : conformance_devices()) cases.push_back({device});
    return cases;
}

std::vector<DtypeCase> dtype_cases() {
    std::vector<DtypeCase> cases;
    for (const auto& device : conformance_devices())
        for (auto dtype : kAllDtypes) cases.push_back({device, dtype});
    return cases;
}

std::vector<KindCase> kind_cases() {
    std::vector<KindCase> cases;
    for (const auto& device : conformance_devices())
        for (auto kind : {gpucore::MemoryKind::device, gpucore::MemoryKind::pinned_host,
                          gpucore::MemoryKind::managed})
            cases.push_back({device, kind});
    return cases;
}

std::vector<SizeCase> size_cases(const std::vector<std::size_t>& sizes) {
    std::vector<SizeCase> cases;
    for (const auto& device : conformance_devices())
        for (auto dtype : kAllDtypes)
            for (auto n : sizes)
                if (runs(device, n)) cases.push_back({device, dtype, n});
    return cases;
}

std::vector<ShapeCase> shape_cases(const std::vector<Shape>& shapes) {
    std::vector<ShapeCase> cases;
    for (const auto& device : conformance_devices())
        for (auto dtype : kAllDtypes)
            for (auto shape : shapes)
                if (runs(device, shape.rows * shape.cols)) cases.push_back({device, dtype, shape});
    return cases;
}

std::vector<ReduceCase> reduce_cases(const std::vector<std::size_t>& sizes) {
    std::vector<ReduceCase> cases;
    for (const auto& device : conformance_devices())
        for (auto dtype : kAllDtypes)
            for (auto op : kAllReduceOps)
                for (auto n : sizes)
                    if (runs(device, n)) cases.push_back({device, dtype, op, n});
    return cases;
}

std::vector<ReduceRowsCase> reduce_rows_cases(const std::vector<Shape>& shapes) {
    std::vector<ReduceRowsCase> cases;
    for (const auto& device : conformance_devices())
        for (auto dtype : kAllDtypes)
            for (auto op : kAllReduceOps)
                for (auto shape : shapes)
                    if (runs(device, shape.rows * shape.cols)) cases.push_back({device, dtype, op, shape});
    return cases;
}

namespace {
constexpr gpucore::DType kFloatDtypes[] = {gpucore::DType::f32, gpucore::DType::f64};
constexpr gpucore::ReduceOp kOrderOps[] = {gpucore::ReduceOp::min, gpucore::ReduceOp::max};
} // namespace

std::vector<ReduceCase> nan_reduce_cases(const std::vector<std::size_t>& sizes) {
    std::vector<ReduceCase> cases;
    for (const auto& device : conformance_devices())
        for (auto dtype : kFloatDtypes)
            for (auto op : kOrderOps)
                for (auto n : sizes)
                    if (n > 0 && runs(device, n)) cases.push_back({device, dtype, op, n});
    return cases;
}

std::vector<ReduceRowsCase> nan_reduce_rows_cases(const std::vector<Shape>& shapes) {
    std::vector<ReduceRowsCase> cases;
    for (const auto& device : conformance_devices())
        for (auto dtype : kFloatDtypes)
            for (auto op : kOrderOps)
                for (auto shape : shapes)
                    if (shape.rows > 0 && shape.cols > 0 && runs(device, shape.rows * shape.cols))
                        cases.push_back({device, dtype, op, shape});
    return cases;
}

namespace {
std::string shape_name(Shape s) { return std::to_string(s.rows) + "x" + std::to_string(s.cols); }
} // namespace

std::string case_name(const DeviceCase& c) { return device_test_name(c.device); }

std::string case_name(const DtypeCase& c) {
    return device_test_name(c.device) + "_" + gpucore::to_string(c.dtype);
}

std::string case_name(const KindCase& c) {
    return device_test_name(c.device) + "_" + gpucore::to_string(c.kind);
}

std::string case_name(const SizeCase& c) {
    return device_test_name(c.device) + "_" + gpucore::to_string(c.dtype) + "_n" +
           std::to_string(c.n);
}

std::string case_name(const ShapeCase& c) {
    return device_test_name(c.device) + "_" + gpucore::to_string(c.dtype) + "_" +
           shape_name(c.shape);
}

std::string case_name(const ReduceCase& c) {
    return device_test_name(c.device) + "_" + gpucore::to_string(c.dtype) + "_" +
           gpucore::to_string(c.op) + "_n" + std::to_string(c.n);
}

std::string case_name(const ReduceRowsCase& c) {
    return device_test_name(c.device) + "_" + gpucore::to_string(c.dtype) + "_" +
           gpucore::to_string(c.op) + "_" + shape_name(c.shape);
}

void PrintTo(const DeviceCase& c, std::ostream* out) { *out << c.device.to_string(); }
void PrintTo(const DtypeCase& c, std::ostream* out) {
    *out << c.device.to_string() << " " << gpucore::to_string(c.dtype);
}
void PrintTo(const KindCase& c, std::ostream* out) {
    *out << c.device.to_string() << " " << gpucore::to_string(c.kind) << " memory";
}
void PrintTo(const SizeCase& c, std::ostream* out) {
    *out << c.device.to_string() << " " << gpucore::to_string(c.dtype) << " n=" << c.n;
}
void PrintTo(const ShapeCase& c, std::ostream* out) {
    *out << c.device.to_string() << " " << gpucore::to_string(c.dtype) << " "
         << shape_name(c.shape);
}
void PrintTo(const ReduceCase& c, std::ostream* out) {
    *out << c.device.to_string() << " " << gpucore::to_string(c.dtype) << " "
         << gpucore::to_string(c.op) << " n=" << c.n;
}
void PrintTo(const ReduceRowsCase& c, std::ostream* out) {
    *out << c.device.to_string() << " " << gpucore::to_string(c.dtype) << " "
         << gpucore::to_string(c.op) << " " << shape_name(c.shape);
}

} // namespace conformance
