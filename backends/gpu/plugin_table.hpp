// SPDX-License-Identifier: Apache-2.0
// The slot table is filled in parts: each slots_*.cpp, and each operation family's launcher
// (launch_<family>.cu, beside its kernels), defines its slots (plugins/include/gpucore/plugin.h
// gives each one's contract) and writes them into the table in its filler, so a new slot is
// written in one file only. plugin_entry.cpp builds the table once from every filler.
// Fillers store function addresses and nothing else: the entry point that calls them must stay
// cheap and must not touch the vendor runtime.
#pragma once

#include "gpucore/plugin.h"

namespace gpucore::gpu {

void fill_device_slots(gpucore_plugin_api& table) noexcept; // slots_devices.cpp
void fill_memory_slots(gpucore_plugin_api& table) noexcept; // slots_memory.cpp
void fill_peer_slots(gpucore_plugin_api& table) noexcept;   // slots_peer.cpp
void fill_stream_slots(gpucore_plugin_api& table) noexcept; // slots_streams.cpp
void fill_elementwise_slots(gpucore_plugin_api& table) noexcept;  // launch_elementwise.cu
void fill_transpose_slots(gpucore_plugin_api& table) noexcept;    // launch_transpose.cu
void fill_reduce_slots(gpucore_plugin_api& table) noexcept;       // launch_reduce.cu
void fill_reduce_rows_slots(gpucore_plugin_api& table) noexcept;  // launch_reduce_rows.cu

} // namespace gpucore::gpu
