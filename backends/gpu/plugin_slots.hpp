// SPDX-License-Identifier: Apache-2.0
// The plugin table's slots (see plugins/include/gpucore/plugin.h for each one's contract),
// defined in slots_*.cpp and collected into the table by plugin_entry.cpp.
#pragma once

#include "gpucore/plugin.h"

namespace gpucore::gpu::slots {

// slots_devices.cpp
gpucore_status init(const gpucore_host_services* host, gpucore_message* msg);
void shutdown(void);
gpucore_status device_count(int* count, gpucore_message* msg);
gpucore_status device_properties(int device, gpucore_device_properties* props,
                                 gpucore_message* msg);

// slots_memory.cpp
gpucore_status allocate(int device, gpucore_memory_kind kind, size_t bytes, void** ptr,
                        gpucore_message* msg);
gpucore_status deallocate(int device, gpucore_memory_kind kind, void* ptr, gpucore_message* msg);
gpucore_status copy(void* dst, const void* src, size_t bytes, gpucore_copy_kind kind,
                    gpucore_stream stream, gpucore_message* msg);
gpucore_status fill(void* dst, const void* value, size_t element_size, size_t count,
                    gpucore_stream stream, gpucore_message* msg);
gpucore_status memory_info(int device, uint64_t* free_bytes, uint64_t* total_bytes,
                           gpucore_message* msg);
gpucore_status pointer_device(const void* ptr, int* device, gpucore_memory_kind* kind,
                              gpucore_message* msg);

// slots_peer.cpp
gpucore_status copy_peer(void* dst, int dst_device, const void* src, int src_device, size_t bytes,
                         gpucore_stream stream, gpucore_message* msg);

// slots_streams.cpp
gpucore_status stream_create(int device, gpucore_stream* stream, gpucore_message* msg);
gpucore_status stream_destroy(gpucore_stream stream, gpucore_message* msg);
gpucore_status stream_synchronize(gpucore_stream stream, gpucore_message* msg);
gpucore_status stream_query(gpucore_stream stream, int* done, gpucore_message* msg);
gpucore_status stream_wait_event(gpucore_stream stream, gpucore_event event, gpucore_message* msg);
gpucore_status stream_native_handle(gpucore_stream stream, void** handle, gpucore_message* msg);
gpucore_status event_create(int device, gpucore_event* event, gpucore_message* msg);
gpucore_status event_destroy(gpucore_event event, gpucore_message* msg);
gpucore_status event_record(gpucore_event event, gpucore_stream stream, gpucore_message* msg);
gpucore_status event_synchronize(gpucore_event event, gpucore_message* msg);
gpucore_status event_query(gpucore_event event, int* done, gpucore_message* msg);
gpucore_status event_elapsed_ms(gpucore_event start, gpucore_event end, double* ms,
                                gpucore_message* msg);

// slots_ops.cpp
gpucore_status vector_add(gpucore_dtype dtype, const void* a, const void* b, void* c, size_t n,
                          gpucore_stream stream, gpucore_message* msg);
gpucore_status transpose(gpucore_dtype dtype, const void* in, void* out, size_t rows, size_t cols,
                         gpucore_stream stream, gpucore_message* msg);
gpucore_status reduce(gpucore_dtype dtype, gpucore_reduce_op op, const void* in, size_t n,
                      void* out, gpucore_stream stream, gpucore_message* msg);
gpucore_status reduce_rows(gpucore_dtype dtype, gpucore_reduce_op op, const void* in, size_t rows,
                           size_t cols, void* out, gpucore_stream stream, gpucore_message* msg);

} // namespace gpucore::gpu::slots
