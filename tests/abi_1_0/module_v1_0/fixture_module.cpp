// SPDX-License-Identifier: Apache-2.0
// A kernel module written against the frozen module ABI 1.0 contract alone (include/gpucore/module.h
// and the plugin.h it includes, verbatim copies of the headers released with module ABI 1.0): no
// dialect, no registry, no SDK header of today. Its table, manifest and CPU launches are spelled
// out by hand, so the core's reading of a 1.0 module is tested whatever the SDK becomes.
// Never edit this file or the headers beside it; a newer fixture goes in a folder of its own.
//
// Kernels (one thread per element, blocks along x):
//   axpy_f64(double a, const double* x, double* y, uint64_t n)   y[i] = a * x[i] + y[i]
//   iota_u32(uint32_t* out, uint32_t step, uint64_t n)           out[i] = i * step
#include <stdio.h>
#include <string.h>

#include "gpucore/module.h"

#ifndef FIXTURE_TARGET
#error "FIXTURE_TARGET (the machine, as in the manifest's targets) must be defined"
#endif

extern "C" {
__attribute__((section(GPUCORE_MODULE_MANIFEST_SECTION), used)) const char fixture_manifest[] =
    "gpucore-module 1\n"
    "name abi10_fixture\n"
    "kind cpu\n"
    "targets " FIXTURE_TARGET "\n";
}

namespace {

const gpucore_kernel_param axpy_params[] = {
    {GPUCORE_PARAM_SCALAR, GPUCORE_PARAM_F64, sizeof(double), sizeof(double)},
    {GPUCORE_PARAM_CONST_BUFFER, GPUCORE_PARAM_F64, sizeof(void*), sizeof(double)},
    {GPUCORE_PARAM_BUFFER, GPUCORE_PARAM_F64, sizeof(void*), sizeof(double)},
    {GPUCORE_PARAM_SCALAR, GPUCORE_PARAM_U64, sizeof(uint64_t), sizeof(uint64_t)},
};
const gpucore_kernel_param iota_params[] = {
    {GPUCORE_PARAM_BUFFER, GPUCORE_PARAM_U32, sizeof(void*), sizeof(uint32_t)},
    {GPUCORE_PARAM_SCALAR, GPUCORE_PARAM_U32, sizeof(uint32_t), sizeof(uint32_t)},
    {GPUCORE_PARAM_SCALAR, GPUCORE_PARAM_U64, sizeof(uint64_t), sizeof(uint64_t)},
};
const gpucore_kernel_info kernels[] = {
    {"axpy_f64", 4, axpy_params, 0},
    {"iota_u32", 3, iota_params, 0},
};

// One launch's arguments, read out of the kernelParams array.
struct Launch {
    uint32_t kernel;
    uint32_t block_threads;
    double a;
    const double* x;
    double* y;
    uint32_t* out;
    uint32_t step;
    uint64_t n;
};

void run_block(void* user, uint64_t block) {
    const Launch* l = static_cast<const Launch*>(user);
    for (uint32_t t = 0; t < l->block_threads; ++t) {
        const uint64_t i = block * l->block_threads + t;
        if (i >= l->n) return;
        if (l->kernel == 0) l->y[i] = l->a * l->x[i] + l->y[i];
        else l->out[i] = static_cast<uint32_t>(i) * l->step;
    }
}

gpucore_status launch(uint32_t kernel, const gpucore_launch_config* config, const gpucore_launch_target* target,
                      void* const* args, gpucore_message* msg) {
    if (kernel > 1) {
        snprintf(msg->text, sizeof msg->text, "no kernel %u", kernel);
        return GPUCORE_ERROR_INVALID_ARGUMENT;
    }
    if (target->parallel == nullptr || target->parallel->parallel_for == nullptr) {
        snprintf(msg->text, sizeof msg->text, "a cpu module needs the backend's worker threads");
        return GPUCORE_ERROR_INVALID_ARGUMENT;
    }
    if (config->block[1] != 1 || config->block[2] != 1 || config->grid[1] != 1 || config->grid[2] != 1) {
        snprintf(msg->text, sizeof msg->text, "the fixture runs one-dimensional launches only");
        return GPUCORE_ERROR_INVALID_ARGUMENT;
    }
    Launch l{};
    l.kernel = kernel;
    l.block_threads = config->block[0];
    if (kernel == 0) {
        memcpy(&l.a, args[0], sizeof l.a);
        memcpy(&l.x, args[1], sizeof l.x);
        memcpy(&l.y, args[2], sizeof l.y);
        memcpy(&l.n, args[3], sizeof l.n);
    } else {
        memcpy(&l.out, args[0], sizeof l.out);
        memcpy(&l.step, args[1], sizeof l.step);
        memcpy(&l.n, args[2], sizeof l.n);
    }
    target->parallel->parallel_for(target->parallel->context, config->grid[0], &run_block, &l);
    return GPUCORE_OK;
}

const gpucore_module_api table = {
    GPUCORE_MODULE_ABI_MAJOR, GPUCORE_MODULE_ABI_MINOR, sizeof(gpucore_module_api), "abi10_fixture", "cpu",
    2, kernels, &launch,
};

} // namespace

extern "C" GPUCORE_PLUGIN_EXPORT const gpucore_module_api* GPUCORE_MODULE_ENTRY(gpucore_message* msg) {
    (void)msg;
    return &table;
}
