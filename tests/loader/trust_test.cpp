// SPDX-License-Identifier: Apache-2.0
// The plugin trust rule: after symlinks are resolved, the file and every folder above it must be
// owned by root or the current user and not be writable by group or others (a sticky folder like
// /tmp included). Each test builds its layout inside a private 0700 scratch folder (whose own
// ancestry, the build tree, passes the rule), runs the probe, and checks that the candidate is
// skipped with a reason naming the offending path and the rule, and that the application still
// works. The same layouts load with GPUCORE_ALLOW_INSECURE_PLUGINS=1, which proves the refusal is
// the rule's doing.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "probe_runner.hpp"

namespace gpucore::test {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr unsigned nobody = 65534;

std::string describe(const ProbeResult& r) { return "probe output:\n" + r.output; }

ProbeResult probe_path(const std::string& plugin_path, bool allow_insecure = false) {
    ProbeOptions options;
    options.environment = {{"GPUCORE_PLUGIN_PATH", plugin_path}, {"GPU_BACKEND", "cpu"}};
    if (allow_insecure) options.environment.emplace("GPUCORE_ALLOW_INSECURE_PLUGINS", "1");
    ProbeResult r = run_probe(options);
    EXPECT_EQ(r.exit_status, 0) << describe(r);
    EXPECT_EQ(r.run, "ok cpu:0") << describe(r);
    return r;
}

std::string make_folder(const std::string& path, mode_t mode) {
    fs::create_directory(path);
    if (::chmod(path.c_str(), mode) != 0) throw std::runtime_error("chmod " + path);
    return path;
}

// Checks that `file_suffix` was skipped under the rule, naming `offender`, and that it loads when
// insecure plugins are allowed.
void expect_untrusted(const std::string& plugin_path, const std::string& file_suffix, const std::string& offender,
                      const std::string& problem) {
    {
        const ProbeResult r = probe_path(plugin_path);
        const auto c = r.candidate(file_suffix);
        ASSERT_TRUE(c) << describe(r);
        EXPECT_EQ(c->outcome, "skipped") << describe(r);
        EXPECT_THAT(c->reason, HasSubstr("untrusted: " + offender + " " + problem)) << describe(r);
        EXPECT_THAT(c->reason, HasSubstr("plugin trust rule")) << describe(r);
        EXPECT_FALSE(r.backend("template")) << describe(r);
    }
    {
        const ProbeResult r = probe_path(plugin_path, true);
        const auto c = r.candidate(file_suffix);
        ASSERT_TRUE(c) << describe(r);
        EXPECT_EQ(c->outcome, "loaded") << describe(r);
    }
}

TEST(PluginTrust, FileNamedDirectlyInAWorldWritableFolderIsSkipped) {
    const auto root = make_scratch_folder("trust-direct");
    for (const mode_t mode : {mode_t{0777}, mode_t{01777}, mode_t{0775}}) {
        SCOPED_TRACE(mode);
        const auto open = make_folder(root + "/open-" + std::to_string(mode), mode);
        copy_file(GPUCORE_TEMPLATE_PLUGIN_PATH, open + "/evil.so");
        char octal[8];
        std::snprintf(octal, sizeof octal, "%04o", static_cast<unsigned>(mode));
        expect_untrusted(open + "/evil.so", "/evil.so", "folder " + open,
                         std::string("is writable by group or others (mode ") + octal + ")");
    }
}

TEST(PluginTrust, SymlinkInASafeFolderPointingIntoAWorldWritableOneIsSkipped) {
    const auto root = make_scratch_folder("trust-link");
    const auto safe = make_folder(root + "/safe", 0755);
    const auto open = make_folder(root + "/open", 0777);
    copy_file(GPUCORE_TEMPLATE_PLUGIN_PATH, open + "/real.so");
    fs::create_symlink(open + "/real.so", safe + "/libgpucore-template.so");
    expect_untrusted(safe, "/libgpucore-template.so", "folder " + open,
                     "is writable by group or others (mode 0777)");
    // The reason also says where the link led.
    const ProbeResult r = probe_path(safe);
    EXPECT_THAT(r.candidate("/libgpucore-template.so")->reason, HasSubstr("symlink to " + open + "/real.so"));
}

TEST(PluginTrust, FolderWhoseParentIsWorldWritableIsSkipped) {
    const auto root = make_scratch_folder("trust-parent");
    const auto parent = make_folder(root + "/shared", 0777);
    const auto plugins = make_folder(parent + "/plugins", 0755);
    copy_file(GPUCORE_TEMPLATE_PLUGIN_PATH, plugins + "/libgpucore-template.so");
    expect_untrusted(plugins, "/libgpucore-template.so", "folder " + parent,
                     "is writable by group or others (mode 0777)");
}

TEST(PluginTrust, FileOwnedByAnotherUserIsSkipped) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a file to another user (chown)";
    const auto root = make_scratch_folder("trust-owner");
    const auto plugins = make_folder(root + "/plugins", 0755);
    const std::string file = plugins + "/libgpucore-template.so";
    copy_file(GPUCORE_TEMPLATE_PLUGIN_PATH, file);
    ASSERT_EQ(::chown(file.c_str(), nobody, nobody), 0);
    expect_untrusted(plugins, "/libgpucore-template.so", "file " + file,
                     "is owned by uid 65534, neither root nor the current user (uid 0)");
}

TEST(PluginTrust, FolderOwnedByAnotherUserIsSkipped) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a folder to another user (chown)";
    const auto root = make_scratch_folder("trust-folder-owner");
    const auto plugins = make_folder(root + "/plugins", 0755);
    copy_file(GPUCORE_TEMPLATE_PLUGIN_PATH, plugins + "/libgpucore-template.so");
    ASSERT_EQ(::chown(plugins.c_str(), nobody, nobody), 0);
    expect_untrusted(plugins + "/libgpucore-template.so", "/libgpucore-template.so", "folder " + plugins,
                     "is owned by uid 65534, neither root nor the current user (uid 0)");
}

TEST(PluginTrust, SafeLayoutWithSymlinksLoads) {
    // A symlinked folder and a symlinked file whose targets are all trusted pass the rule.
    const auto root = make_scratch_folder("trust-safe");
    const auto real = make_folder(root + "/real", 0755);
    copy_file(GPUCORE_TEMPLATE_PLUGIN_PATH, real + "/plugin.so");
    fs::create_symlink(real, root + "/linked-folder");
    const auto links = make_folder(root + "/links", 0755);
    fs::create_symlink(real + "/plugin.so", links + "/libgpucore-template.so");
    const ProbeResult r = probe_path(links);
    const auto c = r.candidate("/libgpucore-template.so");
    ASSERT_TRUE(c) << describe(r);
    EXPECT_EQ(c->outcome, "loaded") << describe(r);
    const ProbeResult via_folder = probe_path(root + "/linked-folder/plugin.so");
    ASSERT_TRUE(via_folder.candidate("/plugin.so")) << describe(via_folder);
    EXPECT_EQ(via_folder.candidate("/plugin.so")->outcome, "loaded") << describe(via_folder);
}

} // namespace
} // namespace gpucore::test
