// SPDX-License-Identifier: Apache-2.0
// A plugin that implements only some operations: today's template plugin under the name
// "partial", with its transpose, reduce and reduce_rows slots left NULL. Operation slots are
// optional: the core must load it, run vector_add, and answer the others with not_supported.
#include "gpucore/plugin.h"

// Compile the template's source here with its entry point renamed; ours below edits its table.
#undef GPUCORE_PLUGIN_ENTRY
#define GPUCORE_PLUGIN_ENTRY gpucore_partial_template_entry
#define GPUCORE_TEMPLATE_BACKEND_NAME "partial"
#include "template_plugin.cpp"

extern "C" GPUCORE_PLUGIN_EXPORT const gpucore_plugin_api* gpucore_plugin_entry_v1(gpucore_message* msg) {
    static const gpucore_plugin_api table = [msg] {
        gpucore_plugin_api t = *gpucore_partial_template_entry(msg);
        t.transpose = nullptr;
        t.reduce = nullptr;
        t.reduce_rows = nullptr;
        return t;
    }();
    return &table;
}
