// SPDX-License-Identifier: Apache-2.0
// Operation: one description per operation the command runs (its name, operands, shape rule,
// whether it takes a reduce op, the bytes it moves, and the calls that enqueue and verify it).
// `run`, `bench`, their help texts, the byte counts and the verification all derive from these
// descriptions: a new operation adds one to operations.cpp and nothing else in the command.
#pragma once

#include <cstddef>
#include <iterator>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "gpucore/gpucore.hpp"
#include "verify.hpp"

namespace gpucore::cli {

struct CaseSpec;

// An operation's input buffers on the device, and their copies on the host.
template <class T>
using DeviceInputs = std::vector<Buffer<T>>;
template <class T>
using HostInputs = std::vector<std::vector<T>>;

// The calls of one operation for element type T: enqueue it on the device buffers, and compare its
// output, copied to the host, with the reference computed from the host inputs.
template <class T>
struct OperationCalls {
    using element_type = T;
    void (*enqueue)(Stream& stream, const CaseSpec& spec, const DeviceInputs<T>& in, Buffer<T>& out) = nullptr;
    Verification (*verify)(const CaseSpec& spec, const HostInputs<T>& in, const std::vector<T>& out) = nullptr;
};

namespace detail {
template <class Indices>
struct CallsOfEveryDType;
template <std::size_t... I>
struct CallsOfEveryDType<std::index_sequence<I...>> {
    using type = std::tuple<OperationCalls<element_type_t<all_dtypes[I]>>...>;
};
} // namespace detail

// An operation: its facts (gpucore::OpInfo of gpucore/ops.hpp: name, layout, inputs, output
// length, reduce op; what `run` accepts and what the byte counts derive from) and its calls.
struct Operation : OpInfo {
    // The calls for every element type of the dtype list.
    typename detail::CallsOfEveryDType<std::make_index_sequence<std::size(all_dtypes)>>::type calls;

    template <class T>
    const OperationCalls<T>& calls_for() const noexcept { return std::get<OperationCalls<T>>(calls); }
};

// Every operation, in the order of `run all` and of the help texts.
const std::vector<Operation>& all_operations();
// The operation named `name`, or nullptr.
const Operation* find_operation(const std::string& name);
// The operation named `name`; `name` must be one (std::out_of_range otherwise).
const Operation& operation(const std::string& name);

// The description of `Op`: a struct with `traits` (its gpucore::op_info entry) and the templates
// `enqueue<T>` and `verify<T>` (see operations.cpp).
template <class Op>
Operation describe() {
    Operation op;
    static_cast<OpInfo&>(op) = Op::traits;
    std::apply([](auto&... calls) {
        ((calls = {&Op::template enqueue<typename std::decay_t<decltype(calls)>::element_type>,
                   &Op::template verify<typename std::decay_t<decltype(calls)>::element_type>}), ...);
    }, op.calls);
    return op;
}

} // namespace gpucore::cli
