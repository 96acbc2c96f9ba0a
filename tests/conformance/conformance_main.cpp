// SPDX-License-Identifier: Apache-2.0
// The conformance suite's program: gpucore_conformance in the build (ctest runs it on every device
// found) and, installed, gpucore-conformance for plugin authors:
//
//   gpucore-conformance --plugin ./libmine.so [--large] [GoogleTest flags]
//
// loads that plugin file, runs every case on its devices only and prints a pass/fail table.
// Without --plugin it runs on every device gpucore finds. Exit status: 0 all passed, 1 a test
// failed or the plugin cannot be tested (not loaded, no device), 2 usage error.
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "conformance_devices.hpp"
#include "gpucore/version.hpp"
#include "plugin_under_test.hpp"
#include "result_table.hpp"

namespace {

const char* const usage =
    "usage: gpucore-conformance [--plugin FILE] [--large] [GoogleTest flags, e.g. --gtest_filter=...]\n"
    "  --plugin FILE  test the backend plugin in FILE: load it (besides the plugins gpucore finds\n"
    "                 anyway), run the conformance cases on its devices only, print a table\n"
    "  --large        with --plugin: include the cases over 2^31 elements (several GiB of memory)\n"
    "  --version      print gpucore's version\n"
    "Without --plugin every device gpucore finds is tested. GPUCORE_TEST_SEED=N draws new random\n"
    "inputs; a failure prints the seed that reproduces it.\n";

struct Options {
    std::string plugin;
    bool large = false;
    bool user_filter = false;
    std::vector<char*> gtest_args; // argv[0] and everything this program does not consume
};

// Returns 0 to go on, else the exit status.
int parse(int argc, char** argv, Options& options) {
    options.gtest_args.push_back(argv[0]);
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--plugin" || arg.rfind("--plugin=", 0) == 0) {
            if (arg == "--plugin") {
                if (i + 1 >= argc) {
                    std::cerr << "gpucore-conformance: --plugin needs a file\n" << usage;
                    return 2;
                }
                options.plugin = argv[++i];
            } else {
                options.plugin = arg.substr(std::strlen("--plugin="));
            }
        } else if (arg == "--large") {
            options.large = true;
        } else if (arg == "--help" || arg == "-h") {
            std::cout << usage;
            return -1;
        } else if (arg == "--version") {
            std::cout << "gpucore-conformance " << gpucore::version().string << "\n";
            return -1;
        } else {
            if (arg.rfind("--gtest_filter", 0) == 0) options.user_filter = true;
            options.gtest_args.push_back(argv[i]);
        }
    }
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    Options options;
    if (const int status = parse(argc, argv, options); status != 0) return status < 0 ? 0 : status;
    const char* env_filter = std::getenv("GTEST_FILTER");
    if (env_filter != nullptr && *env_filter != '\0') options.user_filter = true;

    if (!options.plugin.empty()) {
        const auto plugin = conformance::load_plugin_under_test(options.plugin);
        if (!plugin.problem.empty()) {
            std::cerr << "gpucore-conformance: cannot test " << plugin.path << ": " << plugin.problem
                      << "\n";
            return 1;
        }
        std::cout << "gpucore-conformance " << gpucore::version().string << ": plugin "
                  << plugin.path << ", backend '" << plugin.backend << "' (" << plugin.version
                  << "), " << plugin.device_count << " device(s)\n";
        conformance::restrict_to_backend(plugin.backend);
    }

    int gtest_argc = static_cast<int>(options.gtest_args.size());
    options.gtest_args.push_back(nullptr);
    testing::InitGoogleTest(&gtest_argc, options.gtest_args.data());
    if (gtest_argc > 1) {
        std::cerr << "gpucore-conformance: unknown argument '" << options.gtest_args[1] << "'\n"
                  << usage;
        return 2;
    }

    if (!options.plugin.empty()) {
        // The check that the built-in cpu device is listed is about gpucore, not the plugin.
        std::string filter = "-DeviceEnumeration.ListsTheCpuDevice";
        if (!options.large) filter += ":*Large*";
        if (!options.user_filter) testing::GTEST_FLAG(filter) = filter;

        std::vector<std::pair<std::string, std::string>> device_names;
        for (const auto& device : conformance::conformance_devices())
            device_names.emplace_back(conformance::device_test_name(device), device.to_string());
        testing::UnitTest::GetInstance()->listeners().Append(
            new conformance::ResultTable(std::cout, std::move(device_names)));
    }

    const int status = RUN_ALL_TESTS();
    if (!options.plugin.empty() && testing::UnitTest::GetInstance()->test_to_run_count() == 0) {
        std::cerr << "gpucore-conformance: no test ran (check --gtest_filter)\n";
        return 1;
    }
    return status;
}
