// SPDX-License-Identifier: Apache-2.0
// Plugin discovery and loading with real files. Each test prepares a private folder, runs the
// probe in a child process with GPUCORE_PLUGIN_PATH pointing at it, and checks the candidate's
// outcome and reason AND that the application still works (vector_add verified on cpu).
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "probe_runner.hpp"

namespace gpucore::test {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string describe(const ProbeResult& r) { return "probe output:\n" + r.output; }

// Runs the probe on `plugin_path` with GPU_BACKEND=cpu (plus `extra`), and checks that the
// application part still works: the probe exits 0, selects cpu:0 and verifies a vector_add.
ProbeResult probe_with(const std::string& plugin_path, std::map<std::string, std::string> extra = {}) {
    ProbeOptions options;
    options.environment = std::move(extra);
    options.environment.emplace("GPUCORE_PLUGIN_PATH", plugin_path);
    options.environment.emplace("GPU_BACKEND", "cpu");
    ProbeResult result = run_probe(options);
    EXPECT_EQ(result.exit_status, 0) << describe(result);
    if (options.environment["GPU_BACKEND"] == "cpu") {
        EXPECT_EQ(result.selected, "cpu:0") << describe(result);
        EXPECT_EQ(result.run, "ok cpu:0") << describe(result);
    }
    return result;
}

void write_text(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

void truncate_copy(const std::string& from, const std::string& to, std::uintmax_t bytes) {
    copy_file(from, to);
    fs::resize_file(to, bytes);
}

TEST(Loader, WithoutPluginPathCpuIsTheDefaultOrAGpuBackendWins) {
    ProbeOptions options; // GPUCORE_PLUGIN_PATH and GPU_BACKEND unset
    const ProbeResult r = run_probe(options);
    ASSERT_EQ(r.exit_status, 0) << describe(r);
    ASSERT_TRUE(r.backend("cpu")) << describe(r);
    EXPECT_TRUE(r.backend("cpu")->usable);
    EXPECT_EQ(r.backend("cpu")->source, "built-in");
    EXPECT_FALSE(r.backend("template")) << "the template plugin must not be discovered by default";
    // auto: cuda or hip when a device exists, else cpu.
    EXPECT_TRUE(r.selected == "cpu:0" || r.selected == "cuda:0" || r.selected == "hip:0") << describe(r);
    EXPECT_EQ(r.run, "ok " + r.selected) << describe(r);
}

TEST(Loader, TemplatePluginLoadsAndRuns) {
    ProbeOptions options;
    options.environment = {{"GPUCORE_PLUGIN_PATH", GPUCORE_TEMPLATE_PLUGIN_PATH}, {"GPU_BACKEND", "template"}};
    const ProbeResult r = run_probe(options);
    const auto c = r.candidate("libgpucore-template.so");
    ASSERT_TRUE(c) << describe(r);
    EXPECT_EQ(c->outcome, "loaded") << describe(r);
    EXPECT_EQ(c->backend, "template");
    ASSERT_TRUE(r.backend("template")) << describe(r);
    EXPECT_TRUE(r.backend("template")->usable);
    EXPECT_EQ(r.backend("template")->source, GPUCORE_TEMPLATE_PLUGIN_PATH);
    EXPECT_EQ(r.selected, "template:0") << describe(r);
    EXPECT_EQ(r.run, "ok template:0") << describe(r);
}

TEST(Loader, AutoPrefersAPluginDeviceOverCpu) {
    ProbeOptions options;
    options.environment = {{"GPUCORE_PLUGIN_PATH", GPUCORE_TEMPLATE_PLUGIN_PATH}};
    const ProbeResult r = run_probe(options);
    // Order: cuda, hip, other plugins, cpu.
    EXPECT_TRUE(r.selected == "template:0" || r.selected == "cuda:0" || r.selected == "hip:0") << describe(r);
    ASSERT_GE(r.backends.size(), 2u);
    EXPECT_EQ(r.backends.back().name, "cpu") << describe(r);
}

TEST(Loader, NotAnElfIsSkipped) {
    const auto dir = make_scratch_folder("not-elf");
    write_text(dir + "/libgpucore-junk.so", "#!/bin/sh\necho this is not a shared object\n");
    const ProbeResult r = probe_with(dir);
    const auto c = r.candidate("/libgpucore-junk.so");
    ASSERT_TRUE(c) << describe(r);
    EXPECT_EQ(c->outcome, "skipped");
    EXPECT_THAT(c->reason, HasSubstr("not an ELF file")) << describe(r);
}

TEST(Loader, EmptyFileIsSkipped) {
    const auto dir = make_scratch_folder("empty");
    write_text(dir + "/libgpucore-empty.so", "");
    const ProbeResult r = probe_with(dir);
    const auto c = r.candidate("/libgpucore-empty.so");
    ASSERT_TRUE(c) << describe(r);
    EXPECT_EQ(c->outcome, "skipped");
    EXPECT_THAT(c->reason, HasSubstr("not an ELF file")) << describe(r);
}

TEST(Loader, TruncatedSharedObjectIsSkipped) {
    const auto dir = make_scratch_folder("truncated");
    const auto size = fs::file_size(GPUCORE_TEMPLATE_PLUGIN_PATH);
    truncate_copy(GPUCORE_TEMPLATE_PLUGIN_PATH, dir + "/libgpucore-half.so", size / 2);
    truncate_copy(GPUCORE_TEMPLATE_PLUGIN_PATH, dir + "/libgpucore-header.so", 40);
    const ProbeResult r = probe_with(dir);
    for (const char* name : {"/libgpucore-half.so", "/libgpucore-header.so"}) {
        const auto c = r.candidate(name);
        ASSERT_TRUE(c) << name << "\n" << describe(r);
        EXPECT_EQ(c->outcome, "skipped") << name;
        EXPECT_THAT(c->reason, HasSubstr("truncated ELF file")) << name << "\n" << describe(r);
    }
}

TEST(Loader, SharedObjectWithoutEntrySymbolIsSkipped) {
    const ProbeResult r = probe_with(GPUCORE_FIXTURE_NOENTRY_PATH);
    const auto c = r.candidate("libgpucore-fixture-noentry.so");
    ASSERT_TRUE(c) << describe(r);
    EXPECT_EQ(c->outcome, "skipped");
    EXPECT_THAT(c->reason, HasSubstr("does not export gpucore_plugin_entry_v1")) << describe(r);
}

TEST(Loader, WrongAbiMajorIsSkippedBeforeLoading) {
    const ProbeResult r = probe_with(GPUCORE_FIXTURE_ABI2_PATH);
    const auto c = r.candidate("libgpucore-fixture-abi2.so");
    ASSERT_TRUE(c) << describe(r);
    EXPECT_EQ(c->outcome, "skipped");
    EXPECT_THAT(c->reason, HasSubstr("ABI major 2, this gpucore speaks 1")) << describe(r);
    EXPECT_FALSE(r.backend("fixture-abi2"));
}

TEST(Loader, EntryReturningNullIsSkippedWithItsMessage) {
    const ProbeResult r = probe_with(GPUCORE_FIXTURE_NULLENTRY_PATH);
    const auto c = r.candidate("libgpucore-fixture-nullentry.so");
    ASSERT_TRUE(c) << describe(r);
    EXPECT_EQ(c->outcome, "skipped");
    EXPECT_THAT(c->reason, HasSubstr("returned NULL")) << describe(r);
    EXPECT_THAT(c->reason, HasSubstr("fixture: no licence for this machine")) << describe(r);
}

TEST(Loader, TableWithNullRequiredSlotIsSkipped) {
    const ProbeResult r = probe_with(GPUCORE_FIXTURE_NULLSLOT_PATH);
    const auto c = r.candidate("libgpucore-fixture-nullslot.so");
    ASSERT_TRUE(c) << describe(r);
    EXPECT_EQ(c->outcome, "skipped");
    EXPECT_THAT(c->reason, HasSubstr("table slot 'fill' is NULL")) << describe(r);
    EXPECT_EQ(c->backend, "fixture-nullslot");
}

TEST(Loader, FailingInitIsReportedAndSelectingItExplainsWhy) {
    ProbeOptions options;
    options.environment = {{"GPUCORE_PLUGIN_PATH", GPUCORE_FIXTURE_INITFAILS_PATH},
                           {"GPU_BACKEND", "fixture-initfails"}};
    const ProbeResult r = run_probe(options);
    const auto c = r.candidate("libgpucore-fixture-initfails.so");
    ASSERT_TRUE(c) << describe(r);
    EXPECT_EQ(c->outcome, "skipped");
    EXPECT_THAT(c->reason, HasSubstr("init failed")) << describe(r);
    EXPECT_THAT(c->reason, HasSubstr("the vendor runtime refused to start (code 42)"));
    ASSERT_TRUE(r.backend("fixture-initfails")) << describe(r);
    EXPECT_FALSE(r.backend("fixture-initfails")->usable);
    EXPECT_EQ(r.error_code, "backend_unavailable") << describe(r);
    EXPECT_THAT(r.error_text, HasSubstr("refused to start (code 42)")) << describe(r);
    EXPECT_TRUE(r.selected.empty());
}

TEST(Loader, MissingDependencyIsSkippedNamingTheLibrary) {
    const ProbeResult r = probe_with(GPUCORE_FIXTURE_NEEDSDEP_PATH);
    const auto c = r.candidate("libgpucore-fixture-needsdep.so");
    ASSERT_TRUE(c) << describe(r);
    EXPECT_EQ(c->outcome, "skipped");
    EXPECT_THAT(c->reason, HasSubstr("dlopen failed")) << describe(r);
    EXPECT_THAT(c->reason, HasSubstr("libgpucore-fixture-dep.so")) << describe(r);
    EXPECT_THAT(c->reason, HasSubstr("cannot open shared object file")) << describe(r);
}

TEST(Loader, SameFixtureLoadsOnceItsDependencyIsFound) {
    // Proves the previous test fails for the reason it claims: with the dependency on the loader
    // path the very same file loads (and reports its 0 devices).
    const ProbeResult r = probe_with(GPUCORE_FIXTURE_NEEDSDEP_PATH, {{"LD_LIBRARY_PATH", GPUCORE_FIXTURE_DEP_DIR}});
    const auto c = r.candidate("libgpucore-fixture-needsdep.so");
    ASSERT_TRUE(c) << describe(r);
    EXPECT_EQ(c->outcome, "loaded") << describe(r);
    EXPECT_THAT(c->reason, HasSubstr("0 devices"));
}

TEST(Loader, SecondPluginWithTheSameNameIsSkipped) {
    const ProbeResult r = probe_with(std::string(GPUCORE_TEMPLATE_PLUGIN_PATH) + ":" + GPUCORE_TEMPLATE_TWIN_PATH);
    const auto first = r.candidate("/libgpucore-template.so");
    const auto second = r.candidate("/libgpucore-template-twin.so");
    ASSERT_TRUE(first && second) << describe(r);
    EXPECT_EQ(first->outcome, "loaded");
    EXPECT_EQ(second->outcome, "skipped");
    EXPECT_THAT(second->reason,
                HasSubstr(std::string("backend 'template' already provided by ") + GPUCORE_TEMPLATE_PLUGIN_PATH))
        << describe(r);
}

TEST(Loader, SameFileListedTwiceIsConsideredOnce) {
    const ProbeResult r = probe_with(std::string(GPUCORE_TEMPLATE_PLUGIN_PATH) + ":" + GPUCORE_TEMPLATE_PLUGIN_PATH);
    // Other candidates (a cuda plugin beside libgpucore) may come first: pick this file's records.
    std::vector<CandidateRecord> listed;
    for (const auto& c : r.candidates) {
        if (c.path == GPUCORE_TEMPLATE_PLUGIN_PATH) listed.push_back(c);
    }
    ASSERT_EQ(listed.size(), 2u) << describe(r);
    EXPECT_EQ(listed[0].outcome, "loaded");
    EXPECT_EQ(listed[1].outcome, "skipped");
    EXPECT_THAT(listed[1].reason, HasSubstr("same file as an earlier candidate"));
}

TEST(Loader, PluginUnderAnUnknownFileNameLoadsThroughPluginPath) {
    const auto dir = make_scratch_folder("any-name");
    copy_file(GPUCORE_TEMPLATE_PLUGIN_PATH, dir + "/my-accelerator.bin");
    ProbeOptions options;
    options.environment = {{"GPUCORE_PLUGIN_PATH", dir}, {"GPU_BACKEND", "template"}};
    const ProbeResult r = run_probe(options);
    const auto c = r.candidate("/my-accelerator.bin");
    ASSERT_TRUE(c) << describe(r);
    EXPECT_EQ(c->outcome, "loaded") << describe(r);
    EXPECT_EQ(c->backend, "template");
    EXPECT_EQ(r.selected, "template:0") << describe(r);
    EXPECT_EQ(r.run, "ok template:0") << describe(r);
}

TEST(Loader, FolderListsOnlyFilesThatLookLikeSharedObjects) {
    // A build folder on GPUCORE_PLUGIN_PATH: text files are not candidates; ELF files of any name
    // are, even when they are not plugins (with their reason); *.so names are, even when broken.
    const auto dir = make_scratch_folder("mixed-folder");
    write_text(dir + "/CMakeCache.txt", "# This is the CMakeCache file.\n");
    write_text(dir + "/notes", "a text file without an extension\n");
    write_text(dir + "/Makefile", "all:\n");
    copy_file(GPUCORE_TEMPLATE_PLUGIN_PATH, dir + "/accelerator.bin");
    copy_file(GPUCORE_FIXTURE_NOENTRY_PATH, dir + "/helper");
    write_text(dir + "/libgpucore-broken.so", "not an ELF file");
    const ProbeResult r = probe_with(dir);
    std::vector<std::string> listed;
    for (const auto& c : r.candidates) {
        if (c.path.rfind(dir + "/", 0) == 0) listed.push_back(c.path.substr(dir.size() + 1));
    }
    EXPECT_EQ(listed, (std::vector<std::string>{"accelerator.bin", "helper", "libgpucore-broken.so"})) << describe(r);
    ASSERT_TRUE(r.candidate("/accelerator.bin")) << describe(r);
    EXPECT_EQ(r.candidate("/accelerator.bin")->outcome, "loaded") << describe(r);
    ASSERT_TRUE(r.candidate("/helper")) << describe(r);
    EXPECT_THAT(r.candidate("/helper")->reason, HasSubstr("does not export gpucore_plugin_entry_v1")) << describe(r);
    ASSERT_TRUE(r.candidate("/libgpucore-broken.so")) << describe(r);
    EXPECT_THAT(r.candidate("/libgpucore-broken.so")->reason, HasSubstr("not an ELF file")) << describe(r);
}

TEST(Loader, GroupWritableFileIsSkippedUnlessAllowed) {
    const auto dir = make_scratch_folder("group-writable");
    copy_file(GPUCORE_TEMPLATE_PLUGIN_PATH, dir + "/libgpucore-template.so", 0664);
    {
        const ProbeResult r = probe_with(dir);
        const auto c = r.candidate("/libgpucore-template.so");
        ASSERT_TRUE(c) << describe(r);
        EXPECT_EQ(c->outcome, "skipped");
        EXPECT_THAT(c->reason, HasSubstr("writable by group or others (mode 0664)")) << describe(r);
        EXPECT_FALSE(r.backend("template"));
    }
    {
        const ProbeResult r = probe_with(dir, {{"GPUCORE_ALLOW_INSECURE_PLUGINS", "1"}});
        const auto c = r.candidate("/libgpucore-template.so");
        ASSERT_TRUE(c) << describe(r);
        EXPECT_EQ(c->outcome, "loaded") << describe(r);
    }
}

TEST(Loader, FilesInAWorldWritableFolderAreSkipped) {
    const auto dir = make_scratch_folder("world-writable");
    copy_file(GPUCORE_TEMPLATE_PLUGIN_PATH, dir + "/libgpucore-template.so");
    ASSERT_EQ(::chmod(dir.c_str(), 0777), 0);
    const ProbeResult r = probe_with(dir);
    const auto c = r.candidate("/libgpucore-template.so");
    ASSERT_TRUE(c) << describe(r);
    EXPECT_EQ(c->outcome, "skipped");
    EXPECT_THAT(c->reason, HasSubstr("is writable by group or others (mode 0777)")) << describe(r);
    ::chmod(dir.c_str(), 0700);
}

TEST(Loader, FolderNamedLikeAPluginIsSkipped) {
    const auto dir = make_scratch_folder("folder");
    fs::create_directory(dir + "/libgpucore-folder.so");
    const ProbeResult r = probe_with(dir);
    const auto c = r.candidate("/libgpucore-folder.so");
    ASSERT_TRUE(c) << describe(r);
    EXPECT_EQ(c->outcome, "skipped");
    EXPECT_THAT(c->reason, HasSubstr("is a directory")) << describe(r);
}

TEST(Loader, FifoNamedLikeAPluginIsSkippedWithoutBlocking) {
    const auto dir = make_scratch_folder("fifo");
    const std::string fifo = dir + "/libgpucore-fifo.so";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const ProbeResult r = probe_with(dir); // opening a fifo for reading would hang: it must not
    const auto c = r.candidate("/libgpucore-fifo.so");
    ASSERT_TRUE(c) << describe(r);
    EXPECT_EQ(c->outcome, "skipped");
    EXPECT_THAT(c->reason, HasSubstr("is a fifo")) << describe(r);
}

TEST(Loader, SymlinkIsReportedWithItsTarget) {
    const auto dir = make_scratch_folder("symlink");
    fs::create_symlink(GPUCORE_TEMPLATE_PLUGIN_PATH, dir + "/libgpucore-link.so");
    const ProbeResult r = probe_with(dir);
    const auto c = r.candidate("/libgpucore-link.so");
    ASSERT_TRUE(c) << describe(r);
    EXPECT_EQ(c->outcome, "loaded") << describe(r);
    EXPECT_THAT(c->reason, HasSubstr(std::string("symlink to ") + GPUCORE_TEMPLATE_PLUGIN_PATH));
}

TEST(Loader, DanglingSymlinkAndSymlinkLoopAreSkipped) {
    const auto dir = make_scratch_folder("bad-links");
    fs::create_symlink(dir + "/nowhere.so", dir + "/libgpucore-dangling.so");
    fs::create_symlink(dir + "/libgpucore-loop-b.so", dir + "/libgpucore-loop-a.so");
    fs::create_symlink(dir + "/libgpucore-loop-a.so", dir + "/libgpucore-loop-b.so");
    const ProbeResult r = probe_with(dir);
    const auto dangling = r.candidate("/libgpucore-dangling.so");
    const auto loop = r.candidate("/libgpucore-loop-a.so");
    ASSERT_TRUE(dangling && loop) << describe(r);
    EXPECT_EQ(dangling->outcome, "skipped");
    EXPECT_THAT(dangling->reason, HasSubstr("dangling symlink")) << describe(r);
    EXPECT_EQ(loop->outcome, "skipped");
    EXPECT_THAT(loop->reason, HasSubstr("symlink loop")) << describe(r);
}

TEST(Loader, UnreadableFileIsSkipped) {
    const bool root = ::geteuid() == 0;
    if (root && !setpriv_available()) GTEST_SKIP() << "running as root without setpriv to drop privileges";
    const auto dir = make_scratch_folder("unreadable");
    ASSERT_EQ(::chmod(dir.c_str(), 0755), 0); // listable by the unprivileged probe
    copy_file(GPUCORE_TEMPLATE_PLUGIN_PATH, dir + "/libgpucore-secret.so", 0000);
    ProbeOptions options;
    options.environment = {{"GPUCORE_PLUGIN_PATH", dir}, {"GPU_BACKEND", "cpu"}};
    options.as_nobody = root; // root reads every file: run the probe as nobody instead
    const ProbeResult r = run_probe(options);
    EXPECT_EQ(r.run, "ok cpu:0") << describe(r);
    const auto c = r.candidate("/libgpucore-secret.so");
    ASSERT_TRUE(c) << describe(r);
    EXPECT_EQ(c->outcome, "skipped");
    EXPECT_THAT(c->reason, HasSubstr("cannot be opened for reading")) << describe(r);
}

TEST(Loader, CurrentDirectoryIsNeverSearchedImplicitly) {
    const auto dir = make_scratch_folder("cwd");
    copy_file(GPUCORE_TEMPLATE_PLUGIN_PATH, dir + "/libgpucore-template.so");
    ProbeOptions options;
    options.working_directory = dir;
    options.environment = {{"GPUCORE_PLUGIN_PATH", "::"}, {"GPU_BACKEND", "cpu"}}; // empty entries
    const ProbeResult r = run_probe(options);
    EXPECT_FALSE(r.candidate("/libgpucore-template.so")) << describe(r);
    EXPECT_FALSE(r.backend("template")) << describe(r);
    EXPECT_EQ(r.run, "ok cpu:0") << describe(r);
}

TEST(Loader, RelativeEntryIsResolvedAndReported) {
    const auto dir = make_scratch_folder("relative");
    fs::create_directory(dir + "/plugins");
    ::chmod((dir + "/plugins").c_str(), 0755);
    copy_file(GPUCORE_TEMPLATE_PLUGIN_PATH, dir + "/plugins/libgpucore-template.so");
    ProbeOptions options;
    options.working_directory = dir;
    options.environment = {{"GPUCORE_PLUGIN_PATH", "plugins"}, {"GPU_BACKEND", "template"}};
    const ProbeResult r = run_probe(options);
    const auto c = r.candidate(dir + "/plugins/libgpucore-template.so");
    ASSERT_TRUE(c) << describe(r);
    EXPECT_EQ(c->outcome, "loaded");
    EXPECT_THAT(c->reason, HasSubstr("relative GPUCORE_PLUGIN_PATH entry 'plugins' resolved to")) << describe(r);
    EXPECT_EQ(r.run, "ok template:0") << describe(r);
}

TEST(Loader, MissingPluginPathEntryIsReported) {
    const auto dir = make_scratch_folder("missing");
    const ProbeResult r = probe_with(dir + "/no-such-folder");
    const auto c = r.candidate("/no-such-folder");
    ASSERT_TRUE(c) << describe(r);
    EXPECT_EQ(c->outcome, "skipped");
    EXPECT_THAT(c->reason, HasSubstr("does not exist"));
}

TEST(Loader, ExplicitlySelectedPluginThatWasSkippedCarriesItsReason) {
    const auto dir = make_scratch_folder("explicit");
    // The backend name is read from the file name, since the file never got as far as its table.
    write_text(dir + "/libgpucore-accel.so", "not really a plugin");
    ProbeOptions options;
    options.environment = {{"GPUCORE_PLUGIN_PATH", dir}, {"GPU_BACKEND", "accel"}};
    const ProbeResult r = run_probe(options);
    EXPECT_EQ(r.error_code, "backend_unavailable") << describe(r);
    EXPECT_THAT(r.error_text, HasSubstr(dir + "/libgpucore-accel.so was skipped: not an ELF file")) << describe(r);
    // The cause reaches the caller once, as the Error: it is not logged at error level besides.
    EXPECT_THAT(r.output, ::testing::Not(HasSubstr("[error]"))) << describe(r);
    std::size_t mentions = 0;
    for (auto pos = r.output.find("was skipped: not an ELF file"); pos != std::string::npos;
         pos = r.output.find("was skipped: not an ELF file", pos + 1)) {
        ++mentions;
    }
    EXPECT_EQ(mentions, 1u) << describe(r);
}

TEST(Loader, SelectingABackendWhoseFileWasSkippedUnderAnyNameNamesTheFileAndWhy) {
    // Files refused before their table was read (untrusted, wrong ABI major) under names that do
    // not say which backend they are: selecting the backend names each of them and its reason.
    std::mt19937 random(2207);
    for (int round = 0; round < 4; ++round) {
        const auto dir = make_scratch_folder("skipped-any-name");
        const auto open = dir + "/shared";
        fs::create_directory(open);
        ASSERT_EQ(::chmod(open.c_str(), 0777), 0);
        std::string untrusted_name = "plugin ", abi_name = "accel-";
        for (int i = 0; i < 6; ++i) {
            untrusted_name += static_cast<char>('a' + random() % 26);
            abi_name += static_cast<char>('0' + random() % 10);
        }
        untrusted_name += round % 2 ? ".so" : ".so.1";
        const std::string untrusted = open + "/" + untrusted_name, wrong_abi = dir + "/" + abi_name + ".so";
        copy_file(GPUCORE_TEMPLATE_PLUGIN_PATH, untrusted);
        copy_file(GPUCORE_FIXTURE_ABI2_PATH, wrong_abi);
        // A loaded backend, the backend of the wrong-ABI file, and a backend no file provides.
        for (const std::string& backend : {std::string("template"), std::string("fixture-abi2"),
                                           std::string("vendor-x")}) {
            SCOPED_TRACE(backend + " " + untrusted);
            ProbeOptions options;
            options.environment = {{"GPUCORE_PLUGIN_PATH", untrusted + ":" + wrong_abi}, {"GPU_BACKEND", backend}};
            const ProbeResult r = run_probe(options);
            EXPECT_FALSE(r.error_code.empty()) << describe(r);
            EXPECT_THAT(r.error_text, HasSubstr(untrusted + " was skipped: untrusted: folder " + open)) << describe(r);
            EXPECT_THAT(r.error_text, HasSubstr("file trust rule")) << describe(r);
            EXPECT_THAT(r.error_text, HasSubstr(wrong_abi + " was skipped: ")) << describe(r);
            EXPECT_THAT(r.error_text, HasSubstr("ABI")) << describe(r);
        }
    }
}

TEST(Loader, DiscoveryRacedFromManyThreadsRunsOnce) {
    ProbeOptions options;
    options.environment = {{"GPUCORE_PLUGIN_PATH", std::string(GPUCORE_TEMPLATE_PLUGIN_PATH) + ":" +
                                                       GPUCORE_FIXTURE_NULLENTRY_PATH},
                           {"GPUCORE_LOG_LEVEL", "debug"}};
    options.race_threads = 16;
    const ProbeResult r = run_probe(options);
    EXPECT_EQ(r.exit_status, 0) << describe(r);
    EXPECT_THAT(r.race, ::testing::StartsWith("ok 16 threads")) << describe(r);
    // Each candidate is logged once per discovery: twice would mean discovery ran twice.
    std::size_t logged = 0;
    for (std::size_t pos = r.output.find("plugin candidate "); pos != std::string::npos;
         pos = r.output.find("plugin candidate ", pos + 1)) {
        ++logged;
    }
    EXPECT_EQ(logged, r.candidates.size()) << describe(r);
    EXPECT_GE(r.candidates.size(), 2u);
}

} // namespace
} // namespace gpucore::test
