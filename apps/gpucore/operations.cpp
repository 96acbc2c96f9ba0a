// SPDX-License-Identifier: Apache-2.0
// The operations the command runs, one description each (see operation.hpp). A new operation is
// one more struct here and its line in all_operations(): the command's `run` and `bench` cases,
// help texts, byte counts and verification derive from it. Its arithmetic check is one call of the
// reference library (verify.hpp); an element-wise op can give its reference here, per element.
#include "operation.hpp"

#include <stdexcept>

#include "case_spec.hpp"

namespace gpucore::cli {
namespace {

// Each: its traits (gpucore/ops.hpp's op_info: name, layout, inputs, output, takes_reduce_op), the
// call that enqueues it and the check of its output against the reference.
struct VectorAdd {
    static constexpr const OpInfo& traits = op_info::vector_add;
    template <class T>
    static void enqueue(Stream& stream, const CaseSpec&, const DeviceInputs<T>& in, Buffer<T>& out) {
        vector_add(stream, in[0], in[1], out);
    }
    template <class T>
    static Verification verify(const CaseSpec&, const HostInputs<T>& in, const std::vector<T>& out) {
        return verify_vector_add(in[0].data(), in[1].data(), out.data(), out.size());
    }
};

struct Transpose {
    static constexpr const OpInfo& traits = op_info::transpose;
    template <class T>
    static void enqueue(Stream& stream, const CaseSpec& spec, const DeviceInputs<T>& in, Buffer<T>& out) {
        transpose(stream, in[0], out, spec.rows, spec.cols);
    }
    template <class T>
    static Verification verify(const CaseSpec& spec, const HostInputs<T>& in, const std::vector<T>& out) {
        return verify_transpose(in[0].data(), out.data(), spec.rows, spec.cols);
    }
};

struct Reduce {
    static constexpr const OpInfo& traits = op_info::reduce;
    template <class T>
    static void enqueue(Stream& stream, const CaseSpec& spec, const DeviceInputs<T>& in, Buffer<T>& out) {
        reduce(stream, in[0], out, spec.reduce_op);
    }
    template <class T>
    static Verification verify(const CaseSpec& spec, const HostInputs<T>& in, const std::vector<T>& out) {
        return verify_reduce(in[0].data(), in[0].size(), out.at(0), spec.reduce_op);
    }
};

struct ReduceRows {
    static constexpr const OpInfo& traits = op_info::reduce_rows;
    template <class T>
    static void enqueue(Stream& stream, const CaseSpec& spec, const DeviceInputs<T>& in, Buffer<T>& out) {
        reduce_rows(stream, in[0], out, spec.rows, spec.cols, spec.reduce_op);
    }
    template <class T>
    static Verification verify(const CaseSpec& spec, const HostInputs<T>& in, const std::vector<T>& out) {
        return verify_reduce_rows(in[0].data(), spec.rows, spec.cols, out.data(), spec.reduce_op);
    }
};

} // namespace

const std::vector<Operation>& all_operations() {
    static const std::vector<Operation> operations{describe<VectorAdd>(), describe<Transpose>(),
                                                   describe<Reduce>(), describe<ReduceRows>()};
    return operations;
}

const Operation* find_operation(const std::string& name) {
    for (const Operation& op : all_operations())
        if (name == op.name) return &op;
    return nullptr;
}

const Operation& operation(const std::string& name) {
    if (const Operation* op = find_operation(name)) return *op;
    throw std::out_of_range("no operation named " + name);
}

} // namespace gpucore::cli
