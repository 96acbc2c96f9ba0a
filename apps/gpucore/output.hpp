// SPDX-License-Identifier: Apache-2.0
// Where the command's results go, checked: JSON text that is valid whatever bytes the strings hold,
// standard output whose write errors are reported (a full disk is not success), and result files
// that replace an existing file only once complete.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace gpucore::cli {

// The JSON text of `value`, indented by 2. Strings that are not valid UTF-8 (a path, a plugin's
// version or a device name may hold any bytes) have each invalid byte replaced by U+FFFD, so the
// output is always well-formed JSON.
std::string json_text(const nlohmann::json& value);

// Flushes standard output and throws OutputError naming the cause when anything written to it
// was lost (e.g. ENOSPC on a full device, EPIPE).
void finish_standard_output();

// The file a command's results go to. What `path` names decides how it is written:
//  - a regular file, or nothing yet: written under a temporary name in its folder and renamed over
//    `path` by commit(), so an existing file is replaced only by a complete new one, never
//    truncated by a run that fails (through a symlink: the file it leads to, the link stays);
//  - a character device (/dev/null, a terminal) or a FIFO: written in place by commit(), never
//    replaced (a rename would put a regular file where the device or the FIFO was);
//  - anything else (a directory, a socket, a block device, a dangling symlink): refused.
// Without commit(), nothing is written and the destructor removes the temporary file.
class ReplacingFile {
public:
    // Decides how `path` is written and checks that it can be, so that an unwritable or refused
    // path fails before any work (OutputError): the temporary file is created now; a device or
    // FIFO must be writable now.
    explicit ReplacingFile(std::string path);
    ~ReplacingFile();
    ReplacingFile(const ReplacingFile&) = delete;
    ReplacingFile& operator=(const ReplacingFile&) = delete;

    // Writes `text` and, for a regular file, flushes it to disk and renames it to the path;
    // OutputError on failure (a FIFO nobody reads is refused rather than waited for).
    void commit(const std::string& text);

private:
    void commit_in_place(const std::string& text);

    std::string path_;      // as the user gave it, for messages
    std::string target_;    // the path written: `path_` with its symlinks resolved
    std::string temporary_; // empty when writing in place
    int fd_ = -1;
    bool in_place_ = false;
};

} // namespace gpucore::cli
