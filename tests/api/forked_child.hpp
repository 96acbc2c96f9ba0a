// SPDX-License-Identifier: Apache-2.0
// Runs a test's body in a forked child with an alarm, and checks in the parent how it ended: a hang
// is a SIGALRM, an exit(1) from inside a runtime library is exit status 1.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <functional>

#include <gtest/gtest.h>

namespace gpucore::test {

// Exit statuses of the child bodies.
constexpr int kChildPassed = 0;
constexpr int kChildSkipped = 77; // a precondition (e.g. dropping root) is not available here
// Anything else: the number of the check that failed.

struct ChildOutcome {
    bool exited = false;
    int status = -1; // exit status, or the signal number when !exited
};

// Runs body() in a forked child that has `seconds` to finish; body returns the exit status.
inline ChildOutcome run_in_child(unsigned seconds, const std::function<int()>& body) {
    const pid_t pid = fork();
    if (pid < 0) {
        ADD_FAILURE() << "fork failed";
        return {};
    }
    if (pid == 0) {
        alarm(seconds);
        int status = 100;
        try {
            status = body();
        } catch (...) {
            status = 101; // an exception the body did not expect
        }
        _exit(status);
    }
    int raw = 0;
    while (waitpid(pid, &raw, 0) < 0 && errno == EINTR) {
    }
    ChildOutcome outcome;
    outcome.exited = WIFEXITED(raw);
    outcome.status = outcome.exited ? WEXITSTATUS(raw) : (WIFSIGNALED(raw) ? WTERMSIG(raw) : -1);
    return outcome;
}

inline void expect_passed(const ChildOutcome& outcome) {
    if (outcome.exited && outcome.status == kChildSkipped) GTEST_SKIP() << "the child could not set up its case";
    EXPECT_TRUE(outcome.exited) << "the child was killed by signal " << outcome.status
                                << (outcome.status == SIGALRM ? " (SIGALRM: it hung)" : "");
    EXPECT_EQ(outcome.status, kChildPassed) << "the child's check number " << outcome.status << " failed";
}

} // namespace gpucore::test
