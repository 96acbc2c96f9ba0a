// SPDX-License-Identifier: Apache-2.0
#include "probe_runner.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace gpucore::test {

namespace {

std::vector<std::string> split_tabs(const std::string& line) {
    std::vector<std::string> fields;
    std::string::size_type begin = 0;
    while (true) {
        const auto tab = line.find('\t', begin);
        fields.push_back(line.substr(begin, tab == std::string::npos ? std::string::npos : tab - begin));
        if (tab == std::string::npos) break;
        begin = tab + 1;
    }
    return fields;
}

bool ends_with(const std::string& text, const std::string& suffix) {
    return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void parse(ProbeResult& result) {
    std::istringstream lines(result.output);
    std::string line;
    while (std::getline(lines, line)) {
        const auto f = split_tabs(line);
        if (f[0] == "candidate" && f.size() >= 5) {
            result.candidates.push_back({f[1], f[2], f[3], f[4]});
        } else if (f[0] == "backend" && f.size() >= 6) {
            result.backends.push_back({f[1], f[2] == "usable", std::stoi(f[3]), f[4], f[5], f.size() > 6 ? f[6] : ""});
        } else if (f[0] == "selected" && f.size() >= 2) {
            result.selected = f[1];
        } else if (f[0] == "error" && f.size() >= 3) {
            result.error_code = f[1];
            result.error_text = f[2];
        } else if (f[0] == "run" && f.size() >= 2) {
            result.run = f[1] + (f.size() > 2 ? " " + f[2] : "");
        } else if (f[0] == "race" && f.size() >= 2) {
            result.race = f[1] + (f.size() > 2 ? " " + f[2] : "");
        } else if (f[0] == "step" && f.size() >= 3) {
            result.steps[f[1]] = f[2] + (f.size() > 3 ? " " + f[3] : "");
        }
    }
}

// Removes the scratch folders when the test program ends (after restoring write permission).
struct ScratchCleanup {
    std::vector<std::string> folders;
    ~ScratchCleanup() {
        for (const auto& folder : folders) {
            std::error_code ec;
            ::chmod(folder.c_str(), 0700);
            std::filesystem::remove_all(folder, ec);
        }
    }
};
ScratchCleanup scratch_cleanup;

constexpr const char* setpriv_path = "/usr/bin/setpriv";

} // namespace

std::optional<CandidateRecord> ProbeResult::candidate(const std::string& suffix) const {
    for (const auto& c : candidates) {
        if (ends_with(c.path, suffix)) return c;
    }
    return std::nullopt;
}

std::optional<BackendRecord> ProbeResult::backend(const std::string& name) const {
    for (const auto& b : backends) {
        if (b.name == name) return b;
    }
    return std::nullopt;
}

ProbeResult run_probe(const ProbeOptions& options) {
    std::vector<std::string> env_strings = {"PATH=/usr/bin:/bin"};
    for (const auto& [name, value] : options.environment) env_strings.push_back(name + "=" + value);
    std::vector<char*> envp;
    for (auto& s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);

    std::string probe = GPUCORE_PROBE_PATH;
    std::string run_flag = "--run";
    std::string setpriv = setpriv_path;
    std::string setpriv_uid = "--reuid=65534", setpriv_gid = "--regid=65534", setpriv_groups = "--clear-groups";
    std::vector<char*> argv;
    if (options.as_nobody) {
        argv = {setpriv.data(), setpriv_uid.data(), setpriv_gid.data(), setpriv_groups.data()};
    }
    argv.push_back(probe.data());
    std::string race_flag = "--race", race_count = std::to_string(options.race_threads);
    std::string exercise_flag = "--exercise";
    if (options.exercise) {
        argv.push_back(exercise_flag.data());
    } else if (options.race_threads > 0) {
        argv.push_back(race_flag.data());
        argv.push_back(race_count.data());
    } else if (options.run_vector_add) {
        argv.push_back(run_flag.data());
    }
    argv.push_back(nullptr);
    const std::string program = options.as_nobody ? setpriv : probe;

    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
    if (!options.working_directory.empty()) {
        posix_spawn_file_actions_addchdir_np(&actions, options.working_directory.c_str());
    }
    pid_t pid = 0;
    const int spawn_error = ::posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    ::close(pipe_fds[1]);
    if (spawn_error != 0) {
        ::close(pipe_fds[0]);
        throw std::runtime_error("posix_spawn(" + program + "): " + std::strerror(spawn_error));
    }
    ProbeResult result;
    const auto started = std::chrono::steady_clock::now();
    const auto deadline = started + std::chrono::seconds(options.timeout_seconds);
    char buffer[4096];
    while (true) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        pollfd readable{pipe_fds[0], POLLIN, 0};
        const int ready = left.count() > 0 ? ::poll(&readable, 1, static_cast<int>(left.count())) : 0;
        if (ready < 0 && errno == EINTR) continue;
        if (ready == 0) { // the probe hangs (e.g. a deadlock): kill it, report what it wrote
            result.timed_out = true;
            ::kill(pid, SIGKILL);
            break;
        }
        const ssize_t got = ::read(pipe_fds[0], buffer, sizeof buffer);
        if (got > 0) {
            result.output.append(buffer, static_cast<std::size_t>(got));
        } else if (got == 0 || errno != EINTR) {
            break;
        }
    }
    ::close(pipe_fds[0]);
    int status = 0;
    struct rusage usage {};
    while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
    }
    result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    result.max_rss_kb = usage.ru_maxrss;
    result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (result.timed_out) {
        result.output += "\n[probe killed after " + std::to_string(options.timeout_seconds) + " s]\n";
    }
    parse(result);
    return result;
}

bool setpriv_available() { return ::access(setpriv_path, X_OK) == 0; }

std::string make_scratch_folder(const std::string& tag) {
    std::filesystem::create_directories(GPUCORE_TEST_SCRATCH_DIR);
    // Plugins in scratch folders must pass the trust rule whatever the umask.
    ::chmod(GPUCORE_TEST_SCRATCH_DIR, 0755);
    std::string pattern = std::string(GPUCORE_TEST_SCRATCH_DIR) + "/" + tag + "-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
        throw std::runtime_error("mkdtemp(" + pattern + "): " + std::strerror(errno));
    }
    scratch_cleanup.folders.push_back(pattern);
    return pattern;
}

void copy_file(const std::string& from, const std::string& to, unsigned mode) {
    std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
    if (::chmod(to.c_str(), static_cast<mode_t>(mode)) != 0) {
        throw std::runtime_error("chmod(" + to + "): " + std::strerror(errno));
    }
}

} // namespace gpucore::test
