// SPDX-License-Identifier: Apache-2.0
// A setuid program ignores every gpucore environment variable (they are read with secure_getenv),
// so nobody can steer a privileged program into loading their plugin, choosing their backend,
// changing its logging or setting the cpu backend's thread count (OMP_NUM_THREADS). Runs
// tests/loader's plugin_probe twice with the same environment: as an ordinary program (the
// variables take effect: the control) and as a setuid copy owned by nobody (they must not).
// Needs root, to hand the copy to another user; skipped otherwise.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace gpucore::stress {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif

struct ProgramRun {
    int status = -1;
    std::string output; // stdout and stderr together
};

// Runs `program` with exactly `environment`, collecting its output.
ProgramRun run_program(const std::string& program, const std::vector<std::string>& environment) {
    ProgramRun run;
    int pipe_fds[2];
    if (::pipe(pipe_fds) != 0) return run;
    const pid_t child = ::fork();
    if (child == 0) {
        ::dup2(pipe_fds[1], STDOUT_FILENO);
        ::dup2(pipe_fds[1], STDERR_FILENO);
        ::close(pipe_fds[0]);
        ::close(pipe_fds[1]);
        std::vector<char*> envp;
        for (const auto& entry : environment) envp.push_back(const_cast<char*>(entry.c_str()));
        envp.push_back(nullptr);
        char* argv[] = {const_cast<char*>(program.c_str()), nullptr};
        ::execve(program.c_str(), argv, envp.data());
        ::_exit(127);
    }
    ::close(pipe_fds[1]);
    char buffer[4096];
    for (ssize_t got; (got = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) {
        run.output.append(buffer, static_cast<std::size_t>(got));
    }
    ::close(pipe_fds[0]);
    int status = 0;
    if (child > 0 && ::waitpid(child, &status, 0) == child && WIFEXITED(status)) run.status = WEXITSTATUS(status);
    return run;
}

// A setuid copy of the probe, owned by nobody, in the fresh scratch folder `name` (readable by
// all); skips the calling test where none can be made (not root, a nosuid mount).
void make_setuid_probe(const std::string& name, fs::path& folder, fs::path& setuid_probe) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a setuid copy of the probe to another user";
    folder = fs::path(GPUCORE_STRESS_SCRATCH_DIR) / name;
    fs::remove_all(folder);
    fs::create_directories(folder);
    struct statvfs mount {};
    ASSERT_EQ(::statvfs(folder.c_str(), &mount), 0);
    if ((mount.f_flag & ST_NOSUID) != 0) GTEST_SKIP() << folder << " is on a nosuid mount";
    fs::permissions(folder, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                fs::perms::others_read | fs::perms::others_exec);
    setuid_probe = folder / "plugin_probe";
    fs::copy_file(GPUCORE_PROBE_PATH, setuid_probe);
    ASSERT_EQ(::chown(setuid_probe.c_str(), 65534, 65534), 0); // nobody
    ASSERT_EQ(::chmod(setuid_probe.c_str(), 04755), 0);
}

TEST(SecureEnvironment, SetuidProgramIgnoresEveryGpucoreVariable) {
    fs::path folder, setuid_probe;
    make_setuid_probe("setuid", folder, setuid_probe);
    if (IsSkipped() || HasFatalFailure()) return;

    const std::vector<std::string> environment = {
        "PATH=/usr/bin:/bin",
        std::string("GPUCORE_PLUGIN_PATH=") + GPUCORE_TEMPLATE_PLUGIN_DIR,
        "GPU_BACKEND=template",
        "GPUCORE_LOG_LEVEL=debug",
        "GPUCORE_ALLOW_INSECURE_PLUGINS=1",
    };

    // Control: an ordinary program honours the variables.
    const ProgramRun plain = run_program(GPUCORE_PROBE_PATH, environment);
    ASSERT_EQ(plain.status, 0) << plain.output;
    EXPECT_THAT(plain.output, HasSubstr("selected\ttemplate:0")) << plain.output;
    EXPECT_THAT(plain.output, HasSubstr("libgpucore-template.so")) << plain.output;
    EXPECT_THAT(plain.output, HasSubstr("[debug]")) << plain.output;

    // Setuid (effective user nobody, real user root): the kernel marks it AT_SECURE and
    // secure_getenv returns nothing for every variable.
    const ProgramRun privileged = run_program(setuid_probe.string(), environment);
    if (kAddressSanitizer && privileged.status != 0) {
        // LeakSanitizer stops the process with ptrace at exit, which a setuid (non-dumpable)
        // process refuses, and cannot read its options from /proc/self/environ there either. It
        // fails after the probe printed everything; the control run checked the same probe's leaks.
        EXPECT_THAT(privileged.output, HasSubstr("LeakSanitizer has encountered a fatal error")) << privileged.output;
    } else {
        ASSERT_EQ(privileged.status, 0) << privileged.output;
    }
    EXPECT_THAT(privileged.output, Not(HasSubstr("template"))) << "GPUCORE_PLUGIN_PATH or GPU_BACKEND was honoured:\n"
                                                               << privileged.output;
    EXPECT_THAT(privileged.output, Not(HasSubstr("[debug]"))) << "GPUCORE_LOG_LEVEL was honoured:\n"
                                                              << privileged.output;
    EXPECT_THAT(privileged.output, HasSubstr("selected\t")) << privileged.output;
    fs::remove_all(folder);
}

// The value after "compute_units\t" in the probe's output (the cpu device's thread count); -1 if none.
// The cpu backend's thread count as the probe prints it. A setuid program ignores GPU_BACKEND too
// (secure_getenv), so its selected device may be a GPU: the probe prints the cpu's count apart.
int compute_units(const std::string& output) {
    const std::string key = "cpu_threads\t";
    const auto at = output.find(key);
    return at == std::string::npos ? -1 : std::atoi(output.c_str() + at + key.size());
}

TEST(SecureEnvironment, SetuidProgramIgnoresOmpNumThreads) {
    fs::path folder, setuid_probe;
    make_setuid_probe("setuid-threads", folder, setuid_probe);
    if (IsSkipped() || HasFatalFailure()) return;

    // Without the variable: the threads the process may run on.
    const std::vector<std::string> plain_environment = {"PATH=/usr/bin:/bin", "GPU_BACKEND=cpu"};
    const int default_threads = compute_units(run_program(GPUCORE_PROBE_PATH, plain_environment).output);
    ASSERT_GT(default_threads, 0);
    const int asked = default_threads == 61 ? 67 : 61;
    std::vector<std::string> environment = plain_environment;
    environment.push_back("OMP_NUM_THREADS=" + std::to_string(asked));

    const ProgramRun plain = run_program(GPUCORE_PROBE_PATH, environment);
    ASSERT_EQ(plain.status, 0) << plain.output;
    EXPECT_EQ(compute_units(plain.output), asked) << plain.output; // the control: honoured
    const ProgramRun privileged = run_program(setuid_probe.string(), environment);
    EXPECT_EQ(compute_units(privileged.output), default_threads)
        << "OMP_NUM_THREADS was honoured by a setuid program:\n" << privileged.output;
    fs::remove_all(folder);
}

} // namespace
} // namespace gpucore::stress
