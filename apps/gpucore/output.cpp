// SPDX-License-Identifier: Apache-2.0
#include "output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
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
        int error = errno;
        // A write that failed before this call (output longer than stdout's buffer) left its
        // errno behind long ago: ask the descriptor itself, with the output's last newline.
        if (error == 0 && ::write(STDOUT_FILENO, "\n", 1) < 0) error = errno;
        std::clearerr(stdout);
        std::cout.clear();
        throw OutputError("cannot write the output to standard output" +
                          (error != 0 ? ": " + errno_text(error) : std::string()));
    }
}

ReplacingFile::ReplacingFile(std::string path) : path_(std::move(path)), target_(path_) {
    if (path_.empty()) throw OutputError("the output file name is empty");
    auto refuse = [&](const std::string& why) { throw OutputError("cannot write the JSON file '" + path_ + "': " + why); };
    struct stat status {};
    if (::lstat(path_.c_str(), &status) == 0 && S_ISLNK(status.st_mode)) {
        // A symlink: the file it leads to is the output; the link itself stays.
        std::unique_ptr<char, decltype(&std::free)> real(::realpath(path_.c_str(), nullptr), &std::free);
        if (!real) refuse("it is a symbolic link that leads nowhere usable (" + errno_text(errno) + ")");
        target_ = real.get();
    }
    if (::stat(target_.c_str(), &status) == 0) {
        if (S_ISCHR(status.st_mode) || S_ISFIFO(status.st_mode)) {
            // Written in place at commit; a rename would replace the device or FIFO itself.
            if (::access(target_.c_str(), W_OK) != 0) refuse(errno_text(errno));
            in_place_ = true;
            return;
        }
        if (!S_ISREG(status.st_mode)) {
            refuse("it is " + std::string(S_ISDIR(status.st_mode)    ? "a directory"
                                          : S_ISSOCK(status.st_mode) ? "a socket"
                                          : S_ISBLK(status.st_mode)  ? "a block device"
                                                                     : "not a regular file") +
                   "; only a regular file, a new file, a character device or a FIFO can take the output");
        }
    } else if (errno != ENOENT) {
        refuse(errno_text(errno));
    }
    temporary_ = target_ + ".tmp.XXXXXX";
    std::vector<char> pattern(temporary_.begin(), temporary_.end());
    pattern.push_back('\0');
    fd_ = ::mkstemp(pattern.data());
    if (fd_ < 0) {
        const int error = errno;
        temporary_.clear();
        refuse("cannot create a file in its folder: " + errno_text(error));
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

void ReplacingFile::commit_in_place(const std::string& text) {
    auto fail = [&](const std::string& step, int error) {
        throw OutputError("cannot write the JSON file '" + path_ + "': " + step + ": " + errno_text(error));
    };
    // O_NONBLOCK for the open only: a FIFO without a reader fails (ENXIO) instead of hanging.
    const int fd = ::open(target_.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        const int error = errno;
        fail(error == ENXIO ? "open (a FIFO must have a reader)" : "open", error);
    }
    struct stat status {};
    if (::fstat(fd, &status) != 0 || !(S_ISCHR(status.st_mode) || S_ISFIFO(status.st_mode))) {
        ::close(fd);
        fail("open", EINVAL); // replaced by something else since the check
    }
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0) (void)::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    if (!write_all(fd, text)) {
        const int error = errno;
        ::close(fd);
        fail("write", error);
    }
    if (::close(fd) != 0) fail("close", errno);
}

void ReplacingFile::commit(const std::string& text) {
    if (in_place_) {
        commit_in_place(text);
        return;
    }
    auto fail = [&](const char* step) {
        const int error = errno;
        throw OutputError("cannot write the JSON file '" + path_ + "': " + step + ": " + errno_text(error));
    };
    if (!write_all(fd_, text)) fail("write");
    if (::fsync(fd_) != 0 && errno != EINVAL && errno != EROFS) fail("fsync");
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail("close");
    // Only a regular file (or nothing) may be replaced: check again, in case the path was
    // replaced by a device or a FIFO while the command ran.
    struct stat status {};
    if (::lstat(target_.c_str(), &status) == 0 && !S_ISREG(status.st_mode)) {
        errno = EEXIST;
        fail("rename (the path is no longer a regular file)");
    }
    if (::rename(temporary_.c_str(), target_.c_str()) != 0) fail("rename");
    temporary_.clear();
}

} // namespace gpucore::cli
