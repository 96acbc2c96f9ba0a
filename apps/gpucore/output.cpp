// SPDX-License-Identifier: Apache-2.0
#include "output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <vector>

#include "exit_codes.hpp"

namespace gpucore::cli {

namespace {

std::string errno_text(int error) { return std::strerror(error); }

// Writes all of `text` to `fd`; false with errno set on failure.
bool write_all(int fd, const std::string& text) {
    const char* data = text.data();
    std::size_t left = text.size();
    while (left > 0) {
        const ssize_t wrote = ::write(fd, data, left);
        if (wrote < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        data += wrote;
        left -= static_cast<std::size_t>(wrote);
    }
    return true;
}

} // namespace

std::string json_text(const nlohmann::json& value) {
    return value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

void finish_standard_output() {
    errno = 0;
    std::cout.flush();
    const bool stream_failed = !std::cout;
    const bool flush_failed = std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
    if (stream_failed || flush_failed) {
        const int error = errno;
        std::clearerr(stdout);
        std::cout.clear();
        throw OutputError("cannot write the output to standard output" +
                          (error != 0 ? ": " + errno_text(error) : std::string()));
    }
}

ReplacingFile::ReplacingFile(std::string path) : path_(std::move(path)) {
    if (path_.empty()) throw OutputError("the output file name is empty");
    temporary_ = path_ + ".tmp.XXXXXX";
    std::vector<char> pattern(temporary_.begin(), temporary_.end());
    pattern.push_back('\0');
    fd_ = ::mkstemp(pattern.data());
    if (fd_ < 0) {
        const int error = errno;
        throw OutputError("cannot write the JSON file '" + path_ + "': cannot create a file in its folder: " +
                          errno_text(error));
    }
    temporary_.assign(pattern.data());
    // mkstemp makes the file 0600; give it the mode a plain creation would (0666 less the umask).
    const mode_t mask = ::umask(0);
    ::umask(mask);
    (void)::fchmod(fd_, 0666 & ~mask);
}

ReplacingFile::~ReplacingFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!temporary_.empty()) ::unlink(temporary_.c_str());
}

void ReplacingFile::commit(const std::string& text) {
    auto fail = [&](const char* step) {
        const int error = errno;
        throw OutputError("cannot write the JSON file '" + path_ + "': " + step + ": " + errno_text(error));
    };
    if (!write_all(fd_, text)) fail("write");
    if (::fsync(fd_) != 0 && errno != EINVAL && errno != EROFS) fail("fsync");
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail("close");
    if (::rename(temporary_.c_str(), path_.c_str()) != 0) fail("rename");
    temporary_.clear();
}

} // namespace gpucore::cli
