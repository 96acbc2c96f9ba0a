#include "plugin_inspection.hpp"

#include <elf.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string_view>
#include <system_error>
#include <vector>

#include <boost/dll/library_info.hpp>

#include "gpucore/plugin.h"

namespace gpucore::detail {
namespace fs = std::filesystem;

namespace {

#if defined(__x86_64__)
constexpr std::uint16_t native_machine = EM_X86_64;
#elif defined(__aarch64__)
constexpr std::uint16_t native_machine = EM_AARCH64;
#elif defined(__powerpc64__)
constexpr std::uint16_t native_machine = EM_PPC64;
#else
#error "gpucore: add this architecture's ELF e_machine value"
#endif

std::string file_type_name(fs::file_type type) {
    switch (type) {
    case fs::file_type::directory: return "a directory";
    case fs::file_type::fifo: return "a fifo";
    case fs::file_type::socket: return "a socket";
    case fs::file_type::block: return "a block device";
    case fs::file_type::character: return "a character device";
    case fs::file_type::not_found: return "missing";
    default: return "not a regular file";
    }
}

std::string hex_bytes(const unsigned char* bytes, std::size_t count) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    for (std::size_t i = 0; i < count; ++i) {
        if (i) out += ' ';
        out += digits[bytes[i] >> 4];
        out += digits[bytes[i] & 0xf];
    }
    return out;
}

bool range_within(std::uint64_t offset, std::uint64_t size, std::uint64_t file_size) {
    return offset <= file_size && size <= file_size - offset;
}

// Validates the ELF structure that boost::dll::library_info trusts blindly (it seeks and sizes its
// buffers from header fields). Returns the reason the file is unusable, or empty when it is fine.
std::string check_elf_structure(std::ifstream& in, std::uint64_t file_size) {
    unsigned char ident[EI_NIDENT] = {};
    in.read(reinterpret_cast<char*>(ident), EI_NIDENT);
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got < 4 || std::memcmp(ident, ELFMAG, SELFMAG) != 0) {
        return "not an ELF file (first bytes: " + hex_bytes(ident, std::min<std::size_t>(got, 4)) +
               (got == 0 ? "empty file)" : ")");
    }
    if (file_size < sizeof(Elf64_Ehdr)) {
        return "truncated ELF file (" + std::to_string(file_size) + " bytes, shorter than an ELF header)";
    }
    if (ident[EI_CLASS] != ELFCLASS64) return "ELF file is not 64-bit (EI_CLASS " + std::to_string(ident[EI_CLASS]) + ")";
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (ident[EI_DATA] != ELFDATA2LSB) return "ELF file is not little-endian like this machine";
#else
    if (ident[EI_DATA] != ELFDATA2MSB) return "ELF file is not big-endian like this machine";
#endif
    Elf64_Ehdr header{};
    in.seekg(0);
    in.read(reinterpret_cast<char*>(&header), sizeof header);
    if (!in) return "cannot read the ELF header";
    if (header.e_type != ET_DYN) {
        return "not a shared object (ELF e_type " + std::to_string(header.e_type) + ")";
    }
    if (header.e_machine != native_machine) {
        return "built for another architecture (ELF e_machine " + std::to_string(header.e_machine) +
               ", this machine is " + std::to_string(native_machine) + ")";
    }
    if (header.e_shnum == 0 || header.e_shoff == 0) return "ELF file has no section headers";
    if (header.e_shentsize != sizeof(Elf64_Shdr)) {
        return "malformed ELF file (section header size " + std::to_string(header.e_shentsize) + ")";
    }
    if (header.e_shstrndx >= header.e_shnum) return "malformed ELF file (bad section name index)";
    const std::uint64_t table_bytes = std::uint64_t{header.e_shnum} * sizeof(Elf64_Shdr);
    if (!range_within(header.e_shoff, table_bytes, file_size)) {
        return "truncated ELF file (section headers at offset " + std::to_string(header.e_shoff) +
               ", " + std::to_string(table_bytes) + " bytes, file has " + std::to_string(file_size) +
               " bytes)";
    }
    in.seekg(static_cast<std::streamoff>(header.e_shoff));
    for (unsigned i = 0; i < header.e_shnum; ++i) {
        Elf64_Shdr section{};
        in.read(reinterpret_cast<char*>(&section), sizeof section);
        if (!in) return "cannot read ELF section header " + std::to_string(i);
        // library_info reads the section-name table at e_shstrndx whatever its type says (and sizes
        // a buffer from its sh_size), so that one is checked even when it claims to hold no bytes.
        const bool names_table = i == header.e_shstrndx;
        if (!names_table && (section.sh_type == SHT_NOBITS || section.sh_type == SHT_NULL)) continue;
        if (!range_within(section.sh_offset, section.sh_size, file_size)) {
            return "truncated ELF file (section " + std::to_string(i) + " at offset " +
                   std::to_string(section.sh_offset) + ", " + std::to_string(section.sh_size) +
                   " bytes, file has " + std::to_string(file_size) + " bytes)";
        }
        if ((section.sh_type == SHT_SYMTAB || section.sh_type == SHT_DYNSYM) &&
            section.sh_size % sizeof(Elf64_Sym) != 0) {
            return "malformed ELF file (symbol table size " + std::to_string(section.sh_size) + ")";
        }
    }
    return {};
}

// Parses "gpucore_plugin_entry_v<digits>" exactly; nullopt for anything else.
std::optional<unsigned> entry_symbol_major(std::string_view symbol) {
    constexpr std::string_view prefix = GPUCORE_PLUGIN_ENTRY_PREFIX;
    if (symbol.size() <= prefix.size() || symbol.substr(0, prefix.size()) != prefix) return std::nullopt;
    const auto digits = symbol.substr(prefix.size());
    if (digits.size() > 6) return std::nullopt;
    unsigned value = 0;
    for (char c : digits) {
        if (c < '0' || c > '9') return std::nullopt;
        value = value * 10 + static_cast<unsigned>(c - '0');
    }
    return value;
}

PluginInspection inspect(const fs::path& path) {
    PluginInspection result;
    std::error_code ec;
    const auto link_status = fs::symlink_status(path, ec);
    if (ec) {
        result.reason = "cannot stat: " + ec.message();
        return result;
    }
    if (fs::is_symlink(link_status)) {
        const auto target = fs::read_symlink(path, ec);
        result.symlink_note = ec ? std::string("symlink (target unreadable: ") + ec.message() + ")"
                                 : "symlink to " + target.string();
    }
    const auto status = fs::status(path, ec);
    if (ec) {
        // ELOOP: a symlink loop; ENOENT: a dangling symlink.
        result.reason = ec.value() == ELOOP ? "symlink loop (" + ec.message() + ")"
                        : ec.value() == ENOENT ? "dangling symlink (target does not exist)"
                                               : "cannot stat: " + ec.message();
        return result;
    }
    if (!fs::is_regular_file(status)) {
        result.reason = "is " + file_type_name(status.type()) + ", not a plugin file";
        return result;
    }
    const auto file_size = fs::file_size(path, ec);
    if (ec) {
        result.reason = "cannot read its size: " + ec.message();
        return result;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        result.reason = std::string("cannot be opened for reading: ") + std::strerror(errno);
        return result;
    }
    if (auto problem = check_elf_structure(in, file_size); !problem.empty()) {
        result.reason = std::move(problem);
        return result;
    }
    in.close();

    boost::dll::library_info info(path, true);
    const std::vector<std::string> symbols = info.symbols();
    std::vector<unsigned> majors;
    for (const auto& symbol : symbols) {
        if (auto major = entry_symbol_major(symbol)) majors.push_back(*major);
    }
    if (std::find(majors.begin(), majors.end(), unsigned{GPUCORE_PLUGIN_ABI_MAJOR}) != majors.end()) {
        result.acceptable = true;
        result.abi_major = GPUCORE_PLUGIN_ABI_MAJOR;
        return result;
    }
    if (!majors.empty()) {
        result.abi_major = majors.front();
        result.reason = "ABI major " + std::to_string(majors.front()) + ", this gpucore speaks " +
                        std::to_string(GPUCORE_PLUGIN_ABI_MAJOR) + " (exports " +
                        GPUCORE_PLUGIN_ENTRY_PREFIX + std::to_string(majors.front()) + ")";
        return result;
    }
    result.reason = std::string("does not export ") + GPUCORE_PLUGIN_ENTRY_NAME +
                    " (not a gpucore plugin)";
    return result;
}

} // namespace

PluginInspection inspect_plugin_file(const fs::path& path) {
    try {
        return inspect(path);
    } catch (const std::exception& e) {
        PluginInspection failed;
        failed.reason = std::string("unreadable as a shared object: ") + e.what();
        return failed;
    } catch (...) {
        PluginInspection failed;
        failed.reason = "unreadable as a shared object (unknown error)";
        return failed;
    }
}

} // namespace gpucore::detail
