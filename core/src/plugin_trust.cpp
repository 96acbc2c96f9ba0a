// SPDX-License-Identifier: Apache-2.0
#include "plugin_trust.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>

namespace gpucore::detail {
namespace fs = std::filesystem;

const char* const file_trust_rule =
    "file trust rule: after symlinks are resolved, the file and every folder above it must be owned by root or "
    "the current user and not be writable by group or others; a sticky folder owned by root (such as /tmp) "
    "may be writable by others, and then only a folder in it is trusted, never a file placed directly in it";

FileDescriptor& FileDescriptor::operator=(FileDescriptor&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = other.release();
    }
    return *this;
}

FileDescriptor::~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
}

namespace {

std::string octal_mode(mode_t mode) {
    char text[8];
    std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
    return text;
}

bool trusted_owner(uid_t owner) noexcept { return owner == 0 || owner == ::geteuid(); }

std::string owner_problem(const std::string& what, uid_t owner) {
    return what + " is owned by uid " + std::to_string(owner) + ", neither root nor the current user (uid " +
           std::to_string(::geteuid()) + ")";
}

} // namespace

FolderTrust folder_trust(const std::string& where, const struct stat& status) {
    if (!trusted_owner(status.st_uid)) return {FolderTrust::untrusted, owner_problem("folder " + where, status.st_uid)};
    if ((status.st_mode & (S_IWGRP | S_IWOTH)) == 0) return {FolderTrust::trusted, {}};
    // Kupsch and Miller's "trusted sticky" folder: others may create entries in it but cannot
    // rename or remove the entries of root or of the current user.
    if ((status.st_mode & S_ISVTX) != 0 && status.st_uid == 0) return {FolderTrust::trusted_sticky, {}};
    std::string problem = "folder " + where + " is writable by group or others (mode " + octal_mode(status.st_mode) + ")";
    if ((status.st_mode & S_ISVTX) != 0) problem += " and is sticky but not owned by root";
    return {FolderTrust::untrusted, std::move(problem)};
}

std::string file_trust_problem(const std::string& file, const struct stat& status, const std::string& folder,
                               const FolderTrust& folder_status) {
    if (!trusted_owner(status.st_uid)) return owner_problem("file " + file, status.st_uid);
    if ((status.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
        return "file " + file + " is writable by group or others (mode " + octal_mode(status.st_mode) + ")";
    }
    if (folder_status.kind == FolderTrust::trusted_sticky) {
        // Another user can hard-link any old file of ours (or root's) at a name in a sticky folder.
        return "file " + file + " is placed directly in the sticky folder " + folder +
               ", which others may write to; a file is trusted only inside a private folder there";
    }
    return {};
}

namespace {

std::string untrusted(const std::string& problem) {
    return "untrusted: " + problem + " (" + file_trust_rule +
           "); set GPUCORE_ALLOW_INSECURE_PLUGINS=1 to load it anyway";
}

std::string changed_while_checked(const fs::path& where, int error) {
    return "the path changed while it was being checked (" + where.string() + ": " + std::strerror(error) + ")";
}

} // namespace

std::string file_type_name(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a fifo";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISCHR(mode)) return "a character device";
    return "not a regular file";
}

OpenedCandidate open_candidate(const fs::path& path, bool allow_insecure) {
    OpenedCandidate result;
    struct stat link_status {};
    const bool is_link = ::lstat(path.c_str(), &link_status) == 0 && S_ISLNK(link_status.st_mode);
    if (is_link) {
        std::error_code ec;
        const auto target = fs::read_symlink(path, ec);
        result.symlink_note = ec ? "symlink (target unreadable: " + ec.message() + ")"
                                 : "symlink to " + target.string();
    }

    std::unique_ptr<char, decltype(&std::free)> real(::realpath(path.c_str(), nullptr), &std::free);
    if (!real) {
        const int error = errno;
        if (error == ELOOP) {
            result.reason = std::string("symlink loop (") + std::strerror(error) + ")";
        } else if (error == ENOENT) {
            result.reason = is_link ? "dangling symlink (target does not exist)" : "does not exist";
        } else {
            result.reason = std::string("cannot resolve the path: ") + std::strerror(error);
        }
        return result;
    }
    result.resolved = real.get();

    // Walk from / down to the file's folder through descriptors, checking each folder.
    FileDescriptor folder(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!folder.valid()) {
        result.reason = changed_while_checked("/", errno);
        return result;
    }
    fs::path walked = "/";
    const fs::path parent = result.resolved.parent_path();
    const std::string name = result.resolved.filename().string();
    FolderTrust parent_trust;
    auto check_folder = [&](const fs::path& where) {
        struct stat status {};
        if (::fstat(folder.get(), &status) != 0) return changed_while_checked(where, errno);
        if (allow_insecure) return std::string();
        parent_trust = folder_trust(where.string(), status);
        return parent_trust.kind == FolderTrust::untrusted ? untrusted(parent_trust.problem) : std::string();
    };
    if (auto problem = check_folder(walked); !problem.empty()) {
        result.reason = std::move(problem);
        return result;
    }
    for (const auto& component : parent.relative_path()) {
        walked /= component;
        FileDescriptor next(::openat(folder.get(), component.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (!next.valid()) {
            result.reason = changed_while_checked(walked, errno);
            return result;
        }
        folder = std::move(next);
        if (auto problem = check_folder(walked); !problem.empty()) {
            result.reason = std::move(problem);
            return result;
        }
    }
    if (name.empty()) {
        result.reason = "is a directory, not a plugin file";
        return result;
    }

    // The type first, without opening: opening a device can have side effects.
    struct stat entry {};
    if (::fstatat(folder.get(), name.c_str(), &entry, AT_SYMLINK_NOFOLLOW) != 0) {
        result.reason = changed_while_checked(result.resolved, errno);
        return result;
    }
    if (!S_ISREG(entry.st_mode)) {
        result.reason = "is " + file_type_name(entry.st_mode) + ", not a plugin file";
        return result;
    }
    FileDescriptor file(::openat(folder.get(), name.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY));
    if (!file.valid()) {
        result.reason = std::string("cannot be opened for reading: ") + std::strerror(errno);
        return result;
    }
    if (::fstat(file.get(), &result.status) != 0) {
        result.reason = changed_while_checked(result.resolved, errno);
        return result;
    }
    if (!S_ISREG(result.status.st_mode) || !same_file(result.status, entry)) {
        result.reason = "the path changed while it was being checked (" + result.resolved.string() +
                        " was replaced by another file)";
        return result;
    }
    if (!allow_insecure) {
        if (auto problem = file_trust_problem(result.resolved.string(), result.status, parent.string(), parent_trust);
            !problem.empty()) {
            result.reason = untrusted(problem);
            return result;
        }
    }
    result.file = std::move(file);
    return result;
}

} // namespace gpucore::detail
