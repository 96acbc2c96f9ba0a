// SPDX-License-Identifier: Apache-2.0
#include "host_mappings.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace gpucore::cpu {
namespace {

std::string hex(std::uintmax_t value) {
    char text[2 + 2 * sizeof(std::uintmax_t) + 1];
    std::snprintf(text, sizeof text, "0x%jx", value);
    return text;
}

// Parses a hexadecimal number at `text[at]` up to `stop`; false when there is none or it overflows.
bool parse_hex(const std::string& text, std::size_t& at, char stop, std::uintmax_t& value) {
    value = 0;
    const std::size_t first = at;
    for (; at < text.size() && text[at] != stop; ++at) {
        const char c = text[at];
        unsigned digit = 0;
        if (c >= '0' && c <= '9') digit = static_cast<unsigned>(c - '0');
        else if (c >= 'a' && c <= 'f') digit = static_cast<unsigned>(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') digit = static_cast<unsigned>(c - 'A' + 10);
        else return false;
        if (value > (UINTMAX_MAX >> 4)) return false;
        value = (value << 4) | digit;
    }
    return at > first && at < text.size();
}

} // namespace

std::string range_problem_in_maps(const std::string& maps_text, std::uintptr_t begin, std::size_t bytes) {
    if (bytes == 0) return {};
    if (bytes - 1 > UINTPTR_MAX - begin) return "the range runs past the end of the address space";
    const std::uintmax_t last = static_cast<std::uintmax_t>(begin) + (bytes - 1);
    std::uintmax_t cursor = begin; // the first byte not yet found in a read-write mapping
    std::size_t at = 0;
    std::size_t line_number = 0;
    while (at < maps_text.size()) {
        ++line_number;
        const std::size_t line_end = std::min(maps_text.find('\n', at), maps_text.size());
        const std::string line = maps_text.substr(at, line_end - at);
        at = line_end + 1;
        std::size_t pos = 0;
        std::uintmax_t start = 0, end = 0;
        const bool parsed = parse_hex(line, pos, '-', start) && (++pos, parse_hex(line, pos, ' ', end)) &&
                            start < end && pos + 4 < line.size() && (line[pos + 1] == 'r' || line[pos + 1] == '-') &&
                            (line[pos + 2] == 'w' || line[pos + 2] == '-') &&
                            (line[pos + 3] == 'x' || line[pos + 3] == '-') &&
                            (line[pos + 4] == 'p' || line[pos + 4] == 's');
        if (!parsed) {
            return "cannot check the range: line " + std::to_string(line_number) +
                   " of the process's memory map does not parse (\"" + line.substr(0, 80) + "\")";
        }
        const bool read_write = line[pos + 1] == 'r' && line[pos + 2] == 'w';
        if (end <= cursor) continue;
        if (start > cursor) return "the bytes at " + hex(cursor) + " are not mapped";
        if (!read_write) {
            return "the bytes at " + hex(cursor) + " lie in a mapping without read-write access (" + hex(start) +
                   "-" + hex(end) + " " + line.substr(pos + 1, 4) + ")";
        }
        if (end - 1 >= last) return {};
        cursor = end;
    }
    return "the bytes at " + hex(cursor) + " are not mapped";
}

std::string host_range_problem(const void* begin, std::size_t bytes, const char* maps_path) {
    const int fd = ::open(maps_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return std::string("cannot check the range: cannot open ") + maps_path + ": " + std::strerror(errno);
    }
    std::string text;
    char chunk[16384];
    for (;;) {
        const ssize_t got = ::read(fd, chunk, sizeof chunk);
        if (got > 0) {
            text.append(chunk, static_cast<std::size_t>(got));
        } else if (got == 0) {
            break;
        } else if (errno != EINTR) {
            const int error = errno;
            ::close(fd);
            return std::string("cannot check the range: cannot read ") + maps_path + ": " + std::strerror(error);
        }
    }
    ::close(fd);
    return range_problem_in_maps(text, reinterpret_cast<std::uintptr_t>(begin), bytes);
}

} // namespace gpucore::cpu
