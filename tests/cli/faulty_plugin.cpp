// SPDX-License-Identifier: Apache-2.0
// A backend that is wrong on purpose, so the tests can show `gpucore run` catching a wrong result
// end to end (verified: false, exit code 1). It is the template plugin (plugins/template) under
// the name "faulty", with every operation wrapped to spoil one output element afterwards. The
// template runs each call synchronously, so the output is final when the wrapped call returns.
#include "gpucore/plugin.h"

// Compile the template's source here with its entry point renamed; ours below wraps its table.
#undef GPUCORE_PLUGIN_ENTRY
#define GPUCORE_PLUGIN_ENTRY gpucore_cli_test_template_entry
#define GPUCORE_TEMPLATE_BACKEND_NAME "faulty"
#include "template_plugin.cpp"

namespace {

gpucore_plugin_api g_faulty;
const gpucore_plugin_api* g_template = nullptr;

// Adds 1 to element `index` of `data`: far outside any tolerance for the command's inputs.
void spoil(gpucore_dtype dtype, void* data, size_t index) {
    gpucore::visit_dtype(dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T* values = static_cast<T*>(data);
        if constexpr (std::is_integral_v<T>) { // through unsigned arithmetic: INT32_MAX + 1 is defined
            values[index] = static_cast<T>(static_cast<uint32_t>(values[index]) + 1u);
        } else {
            values[index] = static_cast<T>(static_cast<double>(values[index]) + 1.0);
        }
    });
}

gpucore_status faulty_vector_add(gpucore_dtype dtype, const void* a, const void* b, void* c,
                                 size_t n, gpucore_stream stream, gpucore_message* msg) {
    const gpucore_status status = g_template->vector_add(dtype, a, b, c, n, stream, msg);
    if (status == GPUCORE_OK && n > 0) spoil(dtype, c, n - 1);
    return status;
}

gpucore_status faulty_transpose(gpucore_dtype dtype, const void* in, void* out, size_t rows,
                                size_t cols, gpucore_stream stream, gpucore_message* msg) {
    const gpucore_status status = g_template->transpose(dtype, in, out, rows, cols, stream, msg);
    if (status == GPUCORE_OK && rows * cols > 0) spoil(dtype, out, 0);
    return status;
}

gpucore_status faulty_reduce(gpucore_dtype dtype, gpucore_reduce_op op, const void* in, size_t n,
                             void* out, gpucore_stream stream, gpucore_message* msg) {
    const gpucore_status status = g_template->reduce(dtype, op, in, n, out, stream, msg);
    if (status == GPUCORE_OK) spoil(dtype, out, 0);
    return status;
}

gpucore_status faulty_reduce_rows(gpucore_dtype dtype, gpucore_reduce_op op, const void* in,
                                  size_t rows, size_t cols, void* out, gpucore_stream stream,
                                  gpucore_message* msg) {
    const gpucore_status status = g_template->reduce_rows(dtype, op, in, rows, cols, out, stream, msg);
    if (status == GPUCORE_OK && rows > 0) spoil(dtype, out, rows - 1);
    return status;
}

} // namespace

static_assert(GPUCORE_PLUGIN_ABI_MAJOR == 1, "rename the entry point below with the ABI major");

extern "C" GPUCORE_PLUGIN_EXPORT const gpucore_plugin_api* gpucore_plugin_entry_v1(gpucore_message* msg) {
    if (g_template == nullptr) { // the core calls the entry once, under its discovery lock
        g_template = gpucore_cli_test_template_entry(msg);
        g_faulty = *g_template;
        g_faulty.version = "faulty 0.1 (the template plugin, spoiling one output per call)";
        g_faulty.vector_add = faulty_vector_add;
        g_faulty.transpose = faulty_transpose;
        g_faulty.reduce = faulty_reduce;
        g_faulty.reduce_rows = faulty_reduce_rows;
    }
    return &g_faulty;
}
