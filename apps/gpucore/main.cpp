// SPDX-License-Identifier: Apache-2.0
// The `gpucore` command: parses the command line (CLI11) and hands over to one subcommand.
// Exit codes: 0 success, 1 verification failed, 2 usage error, 3 gpucore error, 4 output error.
#include <exception>
#include <iostream>
#include <new>
#include <string>

#include <CLI/CLI.hpp>

#include "bench_command.hpp"
#include "exit_codes.hpp"
#include "gpucore/error.hpp"
#include "gpucore/version.hpp"
#include "info_command.hpp"
#include "output.hpp"
#include "run_command.hpp"

namespace {

using namespace gpucore::cli;

const char* const main_usage =
    "gpucore info|run|bench [OPTIONS] (gpucore --help for more; gpucore --version)";

std::string usage_of(const CLI::App* subcommand) {
    if (subcommand == nullptr) return main_usage;
    const std::string name = subcommand->get_name();
    if (name == "info") return info_usage;
    if (name == "run") return run_usage();
    if (name == "bench") return bench_usage;
    return main_usage;
}

int usage_error(const std::string& message, const CLI::App* subcommand) {
    std::cerr << "gpucore: error: " << message << "\n"
              << "usage: " << usage_of(subcommand) << "\n";
    if (subcommand) std::cerr << "Run 'gpucore " << subcommand->get_name() << " --help' for details.\n";
    return exit_usage;
}

} // namespace

int main(int argc, char** argv) try {
    CLI::App app{"gpucore: run, verify and measure GPU work on CUDA, HIP or the CPU.\n"
                 "The backend comes from --device or GPU_BACKEND (auto, cpu, cuda, hip, a "
                 "plugin's name; ':N' picks a device).",
                 "gpucore"};
    app.require_subcommand(1);
    // The release of the libgpucore this command runs with (it may be newer than the command).
    app.set_version_flag("--version", std::string("gpucore ") + gpucore::version().string,
                         "Print the version of gpucore and exit");
    app.footer("Exit codes: 0 success, 1 a result failed verification, 2 usage error, "
               "3 gpucore error (e.g. backend unavailable, not enough memory), 4 the output could "
               "not be written.\n"
               "Environment: GPU_BACKEND, GPUCORE_PLUGIN_PATH, GPUCORE_LOG_LEVEL.\n");

    InfoOptions info;
    RunOptions run;
    BenchOptions bench;
    CLI::App* info_cmd = add_info_command(app, info);
    CLI::App* run_cmd = add_run_command(app, run);
    CLI::App* bench_cmd = add_bench_command(app, bench);

    // CLI11 reports a misspelt command only as "A subcommand is required"; name it instead.
    const std::string first = argc > 1 ? argv[1] : "";
    if (!first.empty() && first[0] != '-' && first != "info" && first != "run" && first != "bench")
        return usage_error(std::string("unknown command '") + argv[1] + "'", nullptr);

    const CLI::App* chosen = nullptr;
    try {
        try {
            app.parse(argc, argv);
        } catch (const CLI::CallForHelp& e) {
            return app.exit(e);
        } catch (const CLI::CallForAllHelp& e) {
            return app.exit(e);
        } catch (const CLI::CallForVersion& e) {
            return app.exit(e);
        } catch (const CLI::ParseError& e) {
            const auto selected = app.get_subcommands();
            return usage_error(e.what(), selected.empty() ? nullptr : selected.front());
        }
        int status = exit_success;
        if (info_cmd->parsed()) {
            chosen = info_cmd;
            status = info_command(info);
        } else if (run_cmd->parsed()) {
            chosen = run_cmd;
            status = run_command(run);
        } else {
            chosen = bench_cmd;
            status = bench_command(bench);
        }
        finish_standard_output(); // results that never reached their reader are not a success
        return status;
    } catch (const UsageError& e) {
        return usage_error(e.what(), chosen);
    } catch (const OutputError& e) {
        std::cerr << "gpucore: error: " << e.what() << "\n";
        return exit_output_error;
    } catch (const ResourceError& e) {
        std::cerr << "gpucore: error: " << e.what() << "\n";
        return exit_gpucore_error;
    } catch (const gpucore::Error& e) {
        std::cerr << "gpucore: " << e.what() << "\n";
        return exit_gpucore_error;
    } catch (const std::bad_alloc&) {
        std::cerr << "gpucore: error: out of host memory (std::bad_alloc) while preparing or checking the "
                     "run; use smaller sizes\n";
        return exit_gpucore_error;
    } catch (const std::exception& e) {
        std::cerr << "gpucore: " << e.what() << "\n";
        return exit_gpucore_error;
    }
} catch (const std::exception& e) { // building the parser failed: a bug here, reported, not aborted
    std::cerr << "gpucore: internal error: " << e.what() << "\n";
    return exit_gpucore_error;
}
