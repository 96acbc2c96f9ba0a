// SPDX-License-Identifier: Apache-2.0
// Opening a file that gpucore loads as code (a plugin, a kernel module) under the file trust rule,
// so that the file that is checked is the file that is inspected and loaded.
//
// The rule is Kupsch and Miller's (safefile, "How to Open a File and Not Get Hacked"): after
// symlinks are resolved, the file and every folder above it up to / must be owned by root or by
// the current effective user, and must not be writable by group or others. One exception: a
// sticky folder owned by root (such as /tmp, mode 1777) is "trusted sticky": others may create
// entries in it but cannot rename or remove ours, so a folder in it that passes the rule is
// trusted. A non-folder placed directly in a sticky folder is not: another user can hard-link any
// old file at that name. The caller's override (GPUCORE_ALLOW_INSECURE_PLUGINS=1) turns the
// ownership and mode checks off; the file is still opened the same way.
#pragma once

#include <sys/stat.h>

#include <filesystem>
#include <string>

namespace gpucore::detail {

// Owns one file descriptor; closes it when destroyed.
class FileDescriptor {
public:
    FileDescriptor() = default;
    explicit FileDescriptor(int fd) noexcept : fd_(fd) {}
    FileDescriptor(FileDescriptor&& other) noexcept : fd_(other.release()) {}
    FileDescriptor& operator=(FileDescriptor&& other) noexcept;
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    ~FileDescriptor();

    int get() const noexcept { return fd_; }
    bool valid() const noexcept { return fd_ >= 0; }
    int release() noexcept {
        const int fd = fd_;
        fd_ = -1;
        return fd;
    }

private:
    int fd_ = -1;
};

// The words of the rule, quoted in every refusal.
extern const char* const file_trust_rule;

// How a folder on the way to a file stands under the rule.
struct FolderTrust {
    enum Kind { trusted, trusted_sticky, untrusted };
    Kind kind = trusted;
    std::string problem; // for `untrusted`: "folder <where> is ...", naming the folder
};

// Judges the folder `where` from its status. Never throws except std::bad_alloc.
FolderTrust folder_trust(const std::string& where, const struct stat& status);

// What is wrong with the non-folder `file` whose containing folder `folder` was judged
// `folder_status`; empty when it is trusted. Never throws except std::bad_alloc.
std::string file_trust_problem(const std::string& file, const struct stat& status, const std::string& folder,
                               const FolderTrust& folder_status);

struct OpenedCandidate {
    FileDescriptor file;                // open for reading when `reason` is empty
    std::filesystem::path resolved;     // the path with every symlink resolved (realpath)
    struct stat status {};              // fstat of `file`
    std::string reason;                 // non-empty: refused, nothing was opened
    std::string symlink_note;           // "symlink to <target>" when `path` is a symlink
};

// Resolves `path`, walks from / to the file one component at a time through descriptors
// (openat with O_NOFOLLOW, so a component swapped for a symlink meanwhile is refused instead of
// followed), checks each folder and the file against the rule (unless `allow_insecure`), and opens
// the file (O_RDONLY | O_CLOEXEC | O_NONBLOCK: a fifo never blocks). Non-regular files, dangling
// links, link loops and unreadable files are refused with their reason. Never throws except
// std::bad_alloc. Thread-safe.
OpenedCandidate open_candidate(const std::filesystem::path& path, bool allow_insecure);

// True when `a` and `b` describe the same file (device and inode).
inline bool same_file(const struct stat& a, const struct stat& b) noexcept {
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// "a directory", "a fifo", ...: what a non-regular file is, for a candidate's reason.
std::string file_type_name(mode_t mode);

} // namespace gpucore::detail
