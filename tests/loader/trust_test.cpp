// SPDX-License-Identifier: Apache-2.0
// The file trust rule (Kupsch and Miller's safefile): after symlinks are resolved, the file and
// every folder above it must be owned by root or the current user and not be writable by group or
// others, except that a sticky folder owned by root (like /tmp) is trusted sticky: a private folder
// in it is trusted, a file placed directly in it is not. Each test builds its layout inside a
// private 0700 scratch folder (whose own ancestry, the build tree, passes the rule), runs the
// probe, and checks that the candidate is skipped with a reason naming the offending path and the
// rule, and that the application still works. The same layouts load with
// GPUCORE_ALLOW_INSECURE_PLUGINS=1, which proves the refusal is the rule's doing.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

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
        EXPECT_THAT(c->reason, HasSubstr("file trust rule")) << describe(r);
        EXPECT_FALSE(r.backend("template")) << describe(r);
    }
    {
        const ProbeResult r = probe_path(plugin_path, true);
        const auto c = r.candidate(file_suffix);
        ASSERT_TRUE(c) << describe(r);
        EXPECT_EQ(c->outcome, "loaded") << describe(r);
    }
}

std::string octal(mode_t mode) {
    char text[8];
    std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode));
    return text;
}

// Expects the candidate ending in `file_suffix` to load.
void expect_loaded(const std::string& plugin_path, const std::string& file_suffix) {
    const ProbeResult r = probe_path(plugin_path);
    const auto c = r.candidate(file_suffix);
    ASSERT_TRUE(c) << describe(r);
    EXPECT_EQ(c->outcome, "loaded") << describe(r);
}

// A sticky, world-writable folder owned by root, as /tmp is. Running as root, the scratch folder
// serves; otherwise /tmp itself when it is one, or nothing (the caller skips).
std::string root_sticky_folder(const std::string& scratch) {
    if (::geteuid() == 0) return make_folder(scratch + "/sticky", 01777);
    struct stat status {};
    if (::stat("/tmp", &status) == 0 && status.st_uid == 0 && (status.st_mode & 01777) == 01777) return "/tmp";
    return {};
}

// A fresh private folder in `sticky` (mkdtemp: /tmp is shared with other users and runs).
std::string private_folder_in(const std::string& sticky, const char* tag, mode_t mode = 0755) {
    std::string pattern = sticky + "/gpucore-" + tag + "-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp " + pattern);
    if (::chmod(pattern.c_str(), mode) != 0) throw std::runtime_error("chmod " + pattern);
    return pattern;
}

// Removes what a test put in a shared sticky folder such as /tmp.
struct RemoveAtExit {
    std::vector<std::string> paths;
    ~RemoveAtExit() {
        for (const auto& p : paths) {
            std::error_code ignored;
            fs::remove_all(p, ignored);
        }
    }
};

TEST(PluginTrust, FileNamedDirectlyInAWorldWritableFolderIsSkipped) {
    const auto root = make_scratch_folder("trust-direct");
    for (const mode_t mode : {mode_t{0777}, mode_t{0775}, mode_t{0757}, mode_t{0722}}) {
        SCOPED_TRACE(mode);
        const auto open = make_folder(root + "/open-" + std::to_string(mode), mode);
        copy_file(GPUCORE_TEMPLATE_PLUGIN_PATH, open + "/evil.so");
        expect_untrusted(open + "/evil.so", "/evil.so", "folder " + open,
                         "is writable by group or others (mode " + octal(mode) + ")");
    }
}

TEST(PluginTrust, PrivateFolderInARootOwnedStickyFolderLoads) {
    RemoveAtExit cleanup;
    const auto sticky = root_sticky_folder(make_scratch_folder("trust-sticky"));
    if (sticky.empty()) GTEST_SKIP() << "no sticky folder owned by root to build in";
    const auto mine = private_folder_in(sticky, "trust");
    cleanup.paths.push_back(mine);
    copy_file(GPUCORE_TEMPLATE_PLUGIN_PATH, mine + "/libgpucore-template.so");
    expect_loaded(mine, "/libgpucore-template.so");
    // Deeper private folders, a nested sticky folder owned by root, and a link from a private
    // folder into them load too.
    if (::geteuid() == 0) {
        const auto nested = make_folder(mine + "/inner-sticky", 01777);
        const auto deep = make_folder(nested + "/deep", 0700);
        copy_file(GPUCORE_TEMPLATE_PLUGIN_PATH, deep + "/plugin.so", 0755);
        expect_loaded(deep + "/plugin.so", "/plugin.so");
        const auto links = make_folder(mine + "/links", 0755);
        fs::create_symlink(deep + "/plugin.so", links + "/libgpucore-template.so");
        expect_loaded(links, "/libgpucore-template.so");
    }
}

TEST(PluginTrust, FilePlacedDirectlyInAStickyFolderIsSkipped) {
    RemoveAtExit cleanup;
    const auto sticky = root_sticky_folder(make_scratch_folder("trust-sticky-file"));
    if (sticky.empty()) GTEST_SKIP() << "no sticky folder owned by root to build in";
    const auto private_dir = private_folder_in(sticky, "trust-file");
    cleanup.paths.push_back(private_dir);
    // A file name unique to this run, directly in the sticky folder.
    const std::string file = private_dir + ".so";
    cleanup.paths.push_back(file);
    copy_file(GPUCORE_TEMPLATE_PLUGIN_PATH, file, 0644);
    const std::string suffix = fs::path(file).filename().string();
    expect_untrusted(file, suffix, "file " + file, "is placed directly in the sticky folder " + sticky);
    // A link to it from a trusted folder is judged by where it leads.
    fs::create_symlink(file, private_dir + "/libgpucore-template.so");
    expect_untrusted(private_dir, "/libgpucore-template.so", "file " + file,
                     "is placed directly in the sticky folder " + sticky);
}

TEST(PluginTrust, UntrustedFoldersBelowAStickyFolderAreSkipped) {
    RemoveAtExit cleanup;
    const auto sticky = root_sticky_folder(make_scratch_folder("trust-sticky-below"));
    if (sticky.empty()) GTEST_SKIP() << "no sticky folder owned by root to build in";
    const auto mine = private_folder_in(sticky, "trust-below");
    cleanup.paths.push_back(mine);
    // A folder in the sticky one that others may write to: group- or world-writable, with or
    // without its own sticky bit when it is not root's.
    for (const mode_t mode : {mode_t{0777}, mode_t{0775}, mode_t{0770}, mode_t{0757}}) {
        SCOPED_TRACE(mode);
        const auto open = private_folder_in(sticky, "trust-open", mode);
        cleanup.paths.push_back(open);
        const auto inner = make_folder(open + "/plugins", 0755);
        copy_file(GPUCORE_TEMPLATE_PLUGIN_PATH, inner + "/libgpucore-template.so");
        expect_untrusted(inner, "/libgpucore-template.so", "folder " + open,
                         "is writable by group or others (mode " + octal(mode) + ")");
    }
    // A 0777 folder deeper down, under a private folder in the sticky one.
    const auto open_deep = make_folder(mine + "/shared", 0777);
    const auto plugins = make_folder(open_deep + "/plugins", 0755);
    copy_file(GPUCORE_TEMPLATE_PLUGIN_PATH, plugins + "/libgpucore-template.so");
    expect_untrusted(plugins, "/libgpucore-template.so", "folder " + open_deep,
                     "is writable by group or others (mode 0777)");
    // A symlink from a trusted folder into it.
    const auto links = make_folder(mine + "/links", 0755);
    fs::create_symlink(plugins + "/libgpucore-template.so", links + "/libgpucore-template.so");
    expect_untrusted(links, "/libgpucore-template.so", "folder " + open_deep,
                     "is writable by group or others (mode 0777)");
}

TEST(PluginTrust, StickyFolderOrFolderInItOwnedByAnotherUserIsSkipped) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a folder to another user (chown)";
    const auto root = make_scratch_folder("trust-sticky-owner");
    // A sticky world-writable folder that is not root's: its owner may remove or rename anything.
    const auto theirs = make_folder(root + "/theirs", 01777);
    ASSERT_EQ(::chown(theirs.c_str(), nobody, nobody), 0);
    const auto inside = make_folder(theirs + "/plugins", 0755);
    copy_file(GPUCORE_TEMPLATE_PLUGIN_PATH, inside + "/libgpucore-template.so");
    expect_untrusted(inside, "/libgpucore-template.so", "folder " + theirs,
                     "is owned by uid 65534, neither root nor the current user (uid 0)");
    // Another user's folder inside a root-owned sticky folder.
    const auto sticky = make_folder(root + "/sticky", 01777);
    const auto other = make_folder(sticky + "/other", 0755);
    copy_file(GPUCORE_TEMPLATE_PLUGIN_PATH, other + "/libgpucore-template.so");
    ASSERT_EQ(::chown(other.c_str(), nobody, nobody), 0);
    expect_untrusted(other, "/libgpucore-template.so", "folder " + other,
                     "is owned by uid 65534, neither root nor the current user (uid 0)");
    // The current user's own sticky world-writable folder (not root's) is not trusted sticky.
    ProbeOptions options;
    options.as_nobody = true;
    if (!setpriv_available()) return;
    const auto own_sticky = make_folder(root + "/own-sticky", 01777);
    ASSERT_EQ(::chown(own_sticky.c_str(), nobody, nobody), 0);
    const auto own = make_folder(own_sticky + "/plugins", 0755);
    copy_file(GPUCORE_TEMPLATE_PLUGIN_PATH, own + "/libgpucore-template.so");
    ASSERT_EQ(::chown(own.c_str(), nobody, nobody), 0);
    ASSERT_EQ(::chmod(root.c_str(), 0755), 0); // let nobody reach it
    options.environment = {{"GPUCORE_PLUGIN_PATH", own}, {"GPU_BACKEND", "cpu"}};
    const ProbeResult r = run_probe(options);
    const auto c = r.candidate("/libgpucore-template.so");
    ASSERT_TRUE(c) << describe(r);
    EXPECT_EQ(c->outcome, "skipped") << describe(r);
    EXPECT_THAT(c->reason, HasSubstr("folder " + own_sticky + " is writable by group or others (mode 1777) and is "
                                     "sticky but not owned by root")) << describe(r);
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
