// SPDX-License-Identifier: Apache-2.0
// What a plugin file can make the inspection cost, and what its entry symbol must be. The ELF files
// are crafted here at test time: small files whose tables make a naive reader allocate without
// bound (one string per symbol, each running to the end of a huge string table; a string table
// that claims 8 GiB of a sparse file). The probe must refuse or skip them within seconds and a
// bounded peak resident size (wait4's ru_maxrss of the child). Entry symbols that are look-alikes
// or data objects come from fixture plugins built by the test suite.
#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "probe_runner.hpp"

namespace gpucore::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string describe(const ProbeResult& r) { return "probe output:\n" + r.output; }

// Peak resident size allowed to a probe that inspects one crafted file. A probe that lists the
// cpu backend and runs a vector_add stays far below it (under sanitizers too).
constexpr long max_probe_rss_kb = 384 * 1024;

Elf64_Sym exported_function(std::uint32_t name_offset) {
    Elf64_Sym symbol{};
    symbol.st_name = name_offset;
    symbol.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
    symbol.st_other = STV_DEFAULT;
    symbol.st_shndx = 1;
    symbol.st_value = 0x1000;
    symbol.st_size = 16;
    return symbol;
}

void write_at(int fd, const void* data, std::size_t size, std::uint64_t offset) {
    if (::pwrite(fd, data, size, static_cast<off_t>(offset)) != static_cast<ssize_t>(size)) {
        throw std::runtime_error(std::string("pwrite: ") + std::strerror(errno));
    }
}

// Writes a 64-bit x86-64 shared object holding only section headers, a .dynsym with `symbols`, its
// .dynstr (the bytes `dynstr`, declared `dynstr_claim` bytes long; the file is extended sparsely
// to hold the claim) and .shstrtab. Section names are set, as a naive reader looks tables
// up by name.
void write_elf(const std::string& path, const std::vector<Elf64_Sym>& symbols, const std::string& dynstr,
               std::uint64_t dynstr_claim) {
    const std::string shstrtab = std::string("\0.dynsym\0.dynstr\0.shstrtab\0", 27);
    const std::uint64_t dynsym_offset = sizeof(Elf64_Ehdr);
    const std::uint64_t dynsym_size = symbols.size() * sizeof(Elf64_Sym);
    const std::uint64_t shstrtab_offset = dynsym_offset + dynsym_size;
    const std::uint64_t headers_offset = (shstrtab_offset + shstrtab.size() + 7) / 8 * 8;
    const std::uint64_t dynstr_offset = headers_offset + sizeof(Elf64_Shdr) * 4;

    Elf64_Shdr sections[4] = {};
    sections[1].sh_name = 1;
    sections[1].sh_type = SHT_DYNSYM;
    sections[1].sh_offset = dynsym_offset;
    sections[1].sh_size = dynsym_size;
    sections[1].sh_link = 2;
    sections[1].sh_entsize = sizeof(Elf64_Sym);
    sections[2].sh_name = 9;
    sections[2].sh_type = SHT_STRTAB;
    sections[2].sh_offset = dynstr_offset;
    sections[2].sh_size = dynstr_claim;
    sections[3].sh_name = 17;
    sections[3].sh_type = SHT_STRTAB;
    sections[3].sh_offset = shstrtab_offset;
    sections[3].sh_size = shstrtab.size();

    Elf64_Ehdr header{};
    std::memcpy(header.e_ident, ELFMAG, SELFMAG);
    header.e_ident[EI_CLASS] = ELFCLASS64;
    header.e_ident[EI_DATA] = ELFDATA2LSB;
    header.e_ident[EI_VERSION] = EV_CURRENT;
    header.e_type = ET_DYN;
    header.e_machine = EM_X86_64;
    header.e_version = EV_CURRENT;
    header.e_ehsize = sizeof(Elf64_Ehdr);
    header.e_shoff = headers_offset;
    header.e_shentsize = sizeof(Elf64_Shdr);
    header.e_shnum = 4;
    header.e_shstrndx = 3;

    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error("open " + path);
    write_at(fd, &header, sizeof header, 0);
    if (!symbols.empty()) write_at(fd, symbols.data(), dynsym_size, dynsym_offset);
    write_at(fd, shstrtab.data(), shstrtab.size(), shstrtab_offset);
    write_at(fd, sections, sizeof sections, headers_offset);
    write_at(fd, dynstr.data(), dynstr.size(), dynstr_offset);
    if (::ftruncate(fd, static_cast<off_t>(dynstr_offset + std::max<std::uint64_t>(dynstr_claim, dynstr.size()))) != 0) {
        ::close(fd);
        throw std::runtime_error("ftruncate " + path);
    }
    ::close(fd);
}

ProbeResult probe_file(const std::string& file) {
    ProbeOptions options;
    options.environment = {{"GPUCORE_PLUGIN_PATH", file}, {"GPU_BACKEND", "cpu"}};
    options.timeout_seconds = 60;
    ProbeResult r = run_probe(options);
    EXPECT_FALSE(r.timed_out) << describe(r);
    EXPECT_EQ(r.exit_status, 0) << describe(r);
    EXPECT_EQ(r.run, "ok cpu:0") << describe(r);
    return r;
}

TEST(InspectionBounds, SymbolsSharingOneHugeNameCostLittle) {
    // 666 KB: 2,750 exported functions whose names all start at offset 1 of a 600,000-byte string
    // table with no NUL before its end. Copying each name costs 2,750 * 600 KB = 1.6 GB.
    const auto dir = make_scratch_folder("huge-names");
    const std::string file = dir + "/libgpucore-names.so";
    const std::string dynstr = std::string(1, '\0') + std::string(600000, 'A') + std::string(1, '\0');
    write_elf(file, std::vector<Elf64_Sym>(2750, exported_function(1)), dynstr, dynstr.size());
    const ProbeResult r = probe_file(file);
    const auto c = r.candidate("/libgpucore-names.so");
    ASSERT_TRUE(c) << describe(r);
    EXPECT_EQ(c->outcome, "skipped");
    EXPECT_THAT(c->reason, HasSubstr("does not export gpucore_plugin_entry_v1")) << describe(r);
    EXPECT_LT(r.max_rss_kb, max_probe_rss_kb) << describe(r);
    EXPECT_LT(r.wall_seconds, 10.0) << describe(r);
}

TEST(InspectionBounds, SparseFileWhoseStringTableClaims8GiBIsRefusedQuickly) {
    const auto dir = make_scratch_folder("sparse");
    const std::string file = dir + "/libgpucore-sparse.so";
    const std::string dynstr = std::string("\0gpucore_plugin_entry_v1\0", 25);
    write_elf(file, {exported_function(1)}, dynstr, std::uint64_t{8} << 30);
    struct stat status {};
    ASSERT_EQ(::stat(file.c_str(), &status), 0);
    ASSERT_GT(static_cast<std::uint64_t>(status.st_size), std::uint64_t{8} << 30) << "the claim fits in the file";
    const ProbeResult r = probe_file(file);
    const auto c = r.candidate("/libgpucore-sparse.so");
    ASSERT_TRUE(c) << describe(r);
    EXPECT_EQ(c->outcome, "skipped");
    EXPECT_THAT(c->reason, HasSubstr("ELF dynamic string table of 8589934592 bytes is larger than the 16 MiB"))
        << describe(r);
    EXPECT_LT(r.max_rss_kb, max_probe_rss_kb) << describe(r);
    EXPECT_LT(r.wall_seconds, 10.0) << describe(r);
}

TEST(InspectionBounds, SameCraftedFileWithAReasonableTableIsInspected) {
    // Proves the crafted files above are read as ELF files: the same layout with a small string
    // table gets as far as the entry symbol (which then cannot be loaded: there is no code).
    const auto dir = make_scratch_folder("crafted-ok");
    const std::string file = dir + "/libgpucore-crafted.so";
    const std::string dynstr = std::string("\0gpucore_plugin_entry_v1\0", 25);
    write_elf(file, {exported_function(1)}, dynstr, dynstr.size());
    const ProbeResult r = probe_file(file);
    const auto c = r.candidate("/libgpucore-crafted.so");
    ASSERT_TRUE(c) << describe(r);
    EXPECT_EQ(c->outcome, "skipped");
    EXPECT_THAT(c->reason, HasSubstr("dlopen failed")) << describe(r);
}

TEST(EntrySymbol, DataObjectNamedLikeTheEntryIsRefusedNotCalled) {
    const ProbeResult r = probe_file(GPUCORE_FIXTURE_DATAENTRY_PATH);
    const auto c = r.candidate("libgpucore-fixture-dataentry.so");
    ASSERT_TRUE(c) << describe(r);
    EXPECT_EQ(c->outcome, "skipped");
    EXPECT_THAT(c->reason,
                HasSubstr("exports gpucore_plugin_entry_v1 as a data object (STT_OBJECT), not a function (STT_FUNC)"))
        << describe(r);
}

TEST(EntrySymbol, LookAlikeNamesAreNotEntryPointsAndNeverLoaded) {
    const auto dir = make_scratch_folder("look-alike");
    const struct {
        const char* path;
        const char* symbol;
    } cases[] = {{GPUCORE_FIXTURE_ENTRYV01_PATH, "gpucore_plugin_entry_v01"},
                 {GPUCORE_FIXTURE_ENTRYV1X_PATH, "gpucore_plugin_entry_v1x"}};
    for (const auto& look_alike : cases) {
        SCOPED_TRACE(look_alike.symbol);
        const std::string marker = dir + "/constructor-ran-" + look_alike.symbol;
        ProbeOptions options;
        options.environment = {{"GPUCORE_PLUGIN_PATH", look_alike.path},
                               {"GPU_BACKEND", "cpu"},
                               {"GPUCORE_FIXTURE_MARKER", marker}};
        const ProbeResult r = run_probe(options);
        EXPECT_EQ(r.run, "ok cpu:0") << describe(r);
        const auto c = r.candidate(std::filesystem::path(look_alike.path).filename().string());
        ASSERT_TRUE(c) << describe(r);
        EXPECT_EQ(c->outcome, "skipped");
        EXPECT_THAT(c->reason, HasSubstr(std::string("does not export gpucore_plugin_entry_v1 (not a gpucore plugin); "
                                                     "it exports ") +
                                         look_alike.symbol + ", which is not an entry point name"))
            << describe(r);
        EXPECT_THAT(c->reason, Not(HasSubstr("ABI major"))) << describe(r);
        EXPECT_FALSE(std::filesystem::exists(marker)) << "its static constructor ran: it was dlopened\n" << describe(r);
    }
}

} // namespace
} // namespace gpucore::test
