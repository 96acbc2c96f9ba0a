// SPDX-License-Identifier: Apache-2.0
// Where `--json FILE` goes (ReplacingFile, apps/gpucore/output.hpp): a regular file or a new path
// is replaced by a rename once complete; a character device or a FIFO is written in place and
// stays what it was; a directory, a socket, a block device and a dangling link are refused, and
// left as they were.
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <string>

#include <gtest/gtest.h>

#include "exit_codes.hpp"
#include "output.hpp"

namespace gpucore::cli {
namespace {

namespace fs = std::filesystem;

struct Folder {
    Folder() {
        std::string pattern = (fs::temp_directory_path() / "gpucore-output-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp");
        path = pattern;
    }
    ~Folder() {
        std::error_code ignored;
        fs::remove_all(path, ignored);
    }
    std::string operator/(const std::string& name) const { return (path / name).string(); }
    // Entries other than `keep`: a temporary file left behind shows here.
    std::size_t entries() const {
        std::size_t n = 0;
        for (const auto& entry : fs::directory_iterator(path)) (void)entry, ++n;
        return n;
    }
    fs::path path;
};

std::string read_all(int fd) {
    std::string text;
    char buffer[4096];
    for (ssize_t got; (got = ::read(fd, buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(got));
    return text;
}

mode_t type_of(const std::string& path) {
    struct stat status {};
    return ::lstat(path.c_str(), &status) == 0 ? (status.st_mode & S_IFMT) : 0;
}

TEST(OutputFile, RegularFileAndNewPathAreReplacedWhole) {
    Folder folder;
    const std::string file = folder / "results.json";
    {
        ReplacingFile out(file);
        out.commit("first\n");
    }
    {
        ReplacingFile out(file);
        out.commit("second\n");
    }
    const int fd = ::open(file.c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    EXPECT_EQ(read_all(fd), "second\n");
    ::close(fd);
    EXPECT_EQ(folder.entries(), 1u) << "a temporary file was left behind";
}

TEST(OutputFile, SymlinkToARegularFileStaysALink) {
    Folder folder;
    const std::string file = folder / "real.json", link = folder / "link.json";
    { ReplacingFile(file).commit("old\n"); }
    fs::create_symlink(file, link);
    { ReplacingFile(link).commit("new\n"); }
    EXPECT_EQ(type_of(link), S_IFLNK);
    const int fd = ::open(file.c_str(), O_RDONLY);
    EXPECT_EQ(read_all(fd), "new\n");
    ::close(fd);
}

TEST(OutputFile, CharacterDeviceIsWrittenInPlaceNotReplaced) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to make a device node (mknod)";
    Folder folder;
    // Copies of /dev/null (1,3) and /dev/full (1,7), so the test never touches the real ones.
    const std::string null = folder / "null", full = folder / "full";
    ASSERT_EQ(::mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
    ASSERT_EQ(::mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)), 0);
    { ReplacingFile(null).commit("{}\n"); }
    EXPECT_EQ(type_of(null), S_IFCHR);
    try {
        ReplacingFile(full).commit("{}\n");
        ADD_FAILURE() << "writing to a full device succeeded";
    } catch (const OutputError& e) {
        EXPECT_NE(std::string(e.what()).find("No space left on device"), std::string::npos) << e.what();
    }
    EXPECT_EQ(type_of(full), S_IFCHR);
    // Through a symlink too.
    const std::string link = folder / "link";
    fs::create_symlink(null, link);
    { ReplacingFile(link).commit("{}\n"); }
    EXPECT_EQ(type_of(null), S_IFCHR);
    EXPECT_EQ(type_of(link), S_IFLNK);
    EXPECT_EQ(folder.entries(), 3u);
}

TEST(OutputFile, FifoIsWrittenInPlaceForItsReader) {
    Folder folder;
    const std::string fifo = folder / "fifo";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    ReplacingFile out(fifo); // nothing is opened yet: the reader may come later
    auto reader = std::async(std::launch::async, [&] {
        const int fd = ::open(fifo.c_str(), O_RDONLY);
        std::string text = read_all(fd);
        ::close(fd);
        return text;
    });
    // The reader opens the FIFO at some point; commit retries until it has.
    for (int attempt = 0;; ++attempt) {
        try {
            out.commit("{\"results\": []}\n");
            break;
        } catch (const OutputError& e) {
            ASSERT_LT(attempt, 500) << e.what();
            ::usleep(10000);
        }
    }
    EXPECT_EQ(reader.get(), "{\"results\": []}\n");
    EXPECT_EQ(type_of(fifo), S_IFIFO);
}

TEST(OutputFile, FifoWithoutReaderIsRefusedNotWaitedFor) {
    Folder folder;
    const std::string fifo = folder / "fifo";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    try {
        ReplacingFile(fifo).commit("{}\n");
        ADD_FAILURE() << "a FIFO without a reader took the output";
    } catch (const OutputError& e) {
        EXPECT_NE(std::string(e.what()).find("a FIFO must have a reader"), std::string::npos) << e.what();
    }
    EXPECT_EQ(type_of(fifo), S_IFIFO);
    EXPECT_EQ(folder.entries(), 1u);
}

TEST(OutputFile, DirectorySocketAndDanglingLinkAreRefusedAndLeftAlone) {
    Folder folder;
    const std::string directory = folder / "dir", socket_path = folder / "sock", dangling = folder / "dangling";
    fs::create_directory(directory);
    const int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
    ASSERT_GE(sock, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    ASSERT_LT(socket_path.size(), sizeof address.sun_path);
    std::snprintf(address.sun_path, sizeof address.sun_path, "%s", socket_path.c_str());
    ASSERT_EQ(::bind(sock, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    fs::create_symlink(folder / "nowhere", dangling);
    const std::pair<std::string, std::string> cases[] = {
        {directory, "is a directory"}, {socket_path, "is a socket"}, {dangling, "symbolic link"}};
    for (const auto& [path, why] : cases) {
        SCOPED_TRACE(path);
        const mode_t before = type_of(path);
        try {
            ReplacingFile out(path);
            out.commit("{}\n");
            ADD_FAILURE() << "took the output";
        } catch (const OutputError& e) {
            EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
        }
        EXPECT_EQ(type_of(path), before);
    }
    if (::geteuid() == 0) {
        const std::string block = folder / "block";
        ASSERT_EQ(::mknod(block.c_str(), S_IFBLK | 0600, makedev(7, 200)), 0); // a loop device number
        EXPECT_THROW(ReplacingFile(block).commit("{}\n"), OutputError);
        EXPECT_EQ(type_of(block), S_IFBLK);
    }
    ::close(sock);
    EXPECT_EQ(folder.entries(), 3u + (::geteuid() == 0 ? 1u : 0u)) << "a temporary file was left behind";
}

} // namespace
} // namespace gpucore::cli
