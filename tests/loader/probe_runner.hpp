// SPDX-License-Identifier: Apache-2.0
// Runs plugin_probe in a child process with a controlled environment and parses its records.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpucore::test {

struct CandidateRecord {
    std::string outcome; // "loaded" / "skipped"
    std::string backend;
    std::string path;
    std::string reason;
};

struct BackendRecord {
    std::string name;
    bool usable = false;
    int device_count = 0;
    std::string source;
    std::string reason;
    std::string version;
};

struct ProbeResult {
    int exit_status = -1;   // the probe's exit code; -1 when it did not exit normally
    std::string output;     // stdout and stderr, interleaved, for failure messages
    std::vector<CandidateRecord> candidates;
    std::vector<BackendRecord> backends;
    std::string selected;   // "cpu:0" when default_device() succeeded
    std::string error_code; // ErrorCode name when it threw
    std::string error_text;
    std::string run;        // "ok <device>" or "FAILED <detail>" (with --run)
    std::string race;       // "ok <detail>" or "FAILED <detail>" (with race_threads)
    // With exercise: each step's outcome, "ok", "Error <code> <what>" or "exception <what>".
    std::map<std::string, std::string> steps;
    bool timed_out = false;   // killed after ProbeOptions::timeout_seconds
    long max_rss_kb = 0;      // the child's peak resident size (wait4)
    double wall_seconds = 0;  // from spawn to exit

    // The candidate whose path ends with `suffix` (a file name or a full path); nullopt if none.
    std::optional<CandidateRecord> candidate(const std::string& suffix) const;
    std::optional<BackendRecord> backend(const std::string& name) const;
};

struct ProbeOptions {
    std::map<std::string, std::string> environment; // the child's ENTIRE environment besides PATH
    std::string working_directory;                  // empty: inherit
    bool run_vector_add = true;
    int race_threads = 0; // > 0: start the runtime from this many threads at once (--race N)
    // --exercise: after the listing, run a fixed sequence of calls on the selected device (allocate,
    // fill, stream, event, allocate again, devices) and report each step (replaces --run).
    bool exercise = false;
    int timeout_seconds = 60; // the probe is killed (SIGKILL) after this long: a hang is a failure
    // Run the probe as user/group 65534 (nobody) through setpriv: lets a test running as root
    // check what an ordinary user cannot read. Callers skip when setpriv_available() is false.
    bool as_nobody = false;
};

bool setpriv_available();

// Spawns GPUCORE_PROBE_PATH with posix_spawn and waits for it (output read through a pipe).
ProbeResult run_probe(const ProbeOptions& options);

// A fresh private (0700) folder under the build tree's scratch folder.
std::string make_scratch_folder(const std::string& tag);

// Copies `from` to `to` and sets its mode.
void copy_file(const std::string& from, const std::string& to, unsigned mode = 0644);

} // namespace gpucore::test
