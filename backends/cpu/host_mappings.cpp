// SPDX-License-Identifier: Apache-2.0
#include "host_mappings.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <optional>
#include <utility>

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

// One pass over the lines of a memory map, in their (ascending) order: decided as soon as the
// lines read cover the range, leave a gap in it or give part of it no read-write access, so a
// reader can stop there. Lines past that point are not looked at.
class RangeScan {
public:
    // The range [begin, begin + bytes), bytes > 0 and within the address space.
    RangeScan(std::uintptr_t begin, std::size_t bytes) : cursor_(begin), last_(static_cast<std::uintmax_t>(begin) + (bytes - 1)) {}

    bool decided() const { return decided_; }

    // Reads the whole lines of `text` (each ended by a newline) until decided; returns the offset
    // just past the last line read.
    std::size_t read_lines(const std::string& text) {
        std::size_t at = 0;
        for (std::size_t line_end; !decided_ && (line_end = text.find('\n', at)) != std::string::npos;
             at = line_end + 1) {
            read_line(text.substr(at, line_end - at));
        }
        return at;
    }

    // Reads one line (without its newline) unless already decided.
    void read_line(const std::string& line) {
        if (decided_) return;
        ++line_number_;
        std::size_t pos = 0;
        std::uintmax_t start = 0, end = 0;
        const bool parsed = parse_hex(line, pos, '-', start) && (++pos, parse_hex(line, pos, ' ', end)) &&
                            start < end && pos + 4 < line.size() && (line[pos + 1] == 'r' || line[pos + 1] == '-') &&
                            (line[pos + 2] == 'w' || line[pos + 2] == '-') &&
                            (line[pos + 3] == 'x' || line[pos + 3] == '-') &&
                            (line[pos + 4] == 'p' || line[pos + 4] == 's');
        if (!parsed) {
            return decide("cannot check the range: line " + std::to_string(line_number_) +
                          " of the process's memory map does not parse (\"" + line.substr(0, 80) + "\")");
        }
        const bool read_write = line[pos + 1] == 'r' && line[pos + 2] == 'w';
        if (end <= cursor_) return;
        if (start > cursor_) return decide("the bytes at " + hex(cursor_) + " are not mapped");
        if (!read_write) {
            return decide("the bytes at " + hex(cursor_) + " lie in a mapping without read-write access (" +
                          hex(start) + "-" + hex(end) + " " + line.substr(pos + 1, 4) + ")");
        }
        if (end - 1 >= last_) return decide({});
        cursor_ = end;
    }

    // The answer: empty when every byte is in read-write mappings. Once every line has been read,
    // a range still undecided runs past the last mapping.
    std::string result() const { return decided_ ? problem_ : "the bytes at " + hex(cursor_) + " are not mapped"; }

private:
    void decide(std::string problem) {
        decided_ = true;
        problem_ = std::move(problem);
    }

    std::uintmax_t cursor_; // the first byte not yet found in a read-write mapping
    std::uintmax_t last_;
    std::size_t line_number_ = 0;
    bool decided_ = false;
    std::string problem_;
};

// The answer for a range that needs no map: empty for no bytes, a problem for a range past the end
// of the address space; nullopt for every other range.
std::optional<std::string> answer_without_map(std::uintptr_t begin, std::size_t bytes) {
    if (bytes == 0) return std::string();
    if (bytes - 1 > UINTPTR_MAX - begin) return std::string("the range runs past the end of the address space");
    return std::nullopt;
}

} // namespace

std::string range_problem_in_maps(const std::string& maps_text, std::uintptr_t begin, std::size_t bytes) {
    if (std::optional<std::string> answer = answer_without_map(begin, bytes)) return *answer;
    RangeScan scan(begin, bytes);
    const std::size_t at = scan.read_lines(maps_text);
    if (at < maps_text.size()) scan.read_line(maps_text.substr(at)); // a last line without its newline
    return scan.result();
}

std::string host_range_problem(const void* begin, std::size_t bytes, const char* maps_path) {
    const int fd = ::open(maps_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return std::string("cannot check the range: cannot open ") + maps_path + ": " + std::strerror(errno);
    }
    const auto address = reinterpret_cast<std::uintptr_t>(begin);
    if (std::optional<std::string> answer = answer_without_map(address, bytes)) {
        ::close(fd);
        return *answer;
    }
    // The kernel writes the map as it is read, a page at a time: reading it in pages and stopping
    // once the range is decided saves writing the rest (the maps of a process with many libraries
    // take 100 us and more to write in full).
    RangeScan scan(address, bytes);
    std::string pending; // text read but not yet a whole line
    char chunk[4096];
    while (!scan.decided()) {
        const ssize_t got = ::read(fd, chunk, sizeof chunk);
        if (got > 0) {
            pending.append(chunk, static_cast<std::size_t>(got));
            pending.erase(0, scan.read_lines(pending));
        } else if (got == 0) {
            if (!pending.empty()) scan.read_line(pending); // a last line without its newline
            break;
        } else if (errno != EINTR) {
            const int error = errno;
            ::close(fd);
            return std::string("cannot check the range: cannot read ") + maps_path + ": " + std::strerror(error);
        }
    }
    ::close(fd);
    return scan.result();
}

} // namespace gpucore::cpu
