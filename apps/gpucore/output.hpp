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

// A file written under a temporary name in its folder and renamed over `path` by commit(): an
// existing file is replaced only by a complete new one, never truncated by a run that fails.
// Without commit(), the destructor removes the temporary file.
class ReplacingFile {
public:
    // Creates the temporary file now, so an unwritable path fails before any work (OutputError).
    explicit ReplacingFile(std::string path);
    ~ReplacingFile();
    ReplacingFile(const ReplacingFile&) = delete;
    ReplacingFile& operator=(const ReplacingFile&) = delete;

    // Writes `text`, flushes it to disk and renames the file to the path; OutputError on failure.
    void commit(const std::string& text);

private:
    std::string path_;
    std::string temporary_;
    int fd_ = -1;
};

} // namespace gpucore::cli
