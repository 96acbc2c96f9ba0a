// SPDX-License-Identifier: Apache-2.0
// Whether a range of addresses is readable and writable memory of this process, judged from the
// kernel's list of mappings (Linux: /proc/self/maps), so that memory a caller wraps as cpu device
// memory never makes a kernel fault. Fails closed: a list that cannot be read or parsed refuses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace gpucore::cpu {

// Why the `bytes` (> 0) at `begin` are not all readable and writable memory according to
// `maps_text` (the text of /proc/self/maps: one "start-end perms ..." line per mapping, ascending):
// a gap between mappings, a mapping without read-write access, a range past the last mapping, or
// a line that does not parse. Empty when every byte is covered by read-write mappings. Pure.
std::string range_problem_in_maps(const std::string& maps_text, std::uintptr_t begin, std::size_t bytes);

// range_problem_in_maps over the current /proc/self/maps (or `maps_path`), read only as far as the
// lines that decide the range; a file that cannot be opened or read (EMFILE, ...) is a problem
// naming the path and the cause. Thread-safe.
std::string host_range_problem(const void* begin, std::size_t bytes, const char* maps_path = "/proc/self/maps");

} // namespace gpucore::cpu
