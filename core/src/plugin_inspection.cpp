// SPDX-License-Identifier: Apache-2.0
#include "plugin_inspection.hpp"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <vector>

#include "gpucore/plugin.h"
#include "plugin_trust.hpp"

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

// Symbols are read in batches of this many entries, so the symbol table is never held whole.
constexpr std::size_t symbols_per_batch = 4096;

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

// Reads exactly `size` bytes at `offset`; false on a short read or an error.
bool read_at(int fd, void* buffer, std::size_t size, std::uint64_t offset) {
    auto* out = static_cast<char*>(buffer);
    while (size > 0) {
        const ssize_t got = ::pread(fd, out, size, static_cast<off_t>(offset));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        out += got;
        size -= static_cast<std::size_t>(got);
        offset += static_cast<std::uint64_t>(got);
    }
    return true;
}

std::string mib(std::uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

// What a symbol name is to the loader.
enum class EntryName { unrelated, exact, other_major, look_alike };

// `name` is NUL-free. "gpucore_plugin_entry_v1" is exact; "..._v<canonical decimal>" names another
// ABI major (returned in `major`); any other "gpucore_plugin_entry_v..." (v01, v1x, v) is a
// look-alike, which is NOT an entry point whatever digits it starts with.
EntryName classify(std::string_view name, const EntryPoint& entry, unsigned& major) {
    const std::string_view prefix = entry.prefix;
    if (name.substr(0, prefix.size()) != prefix) return EntryName::unrelated;
    const auto digits = name.substr(prefix.size());
    if (digits == std::to_string(entry.major)) return EntryName::exact;
    const bool canonical = !digits.empty() && digits.size() <= 6 && (digits[0] != '0' || digits.size() == 1) &&
                           std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!canonical) return EntryName::look_alike;
    major = 0;
    for (char c : digits) major = major * 10 + static_cast<unsigned>(c - '0');
    return EntryName::other_major;
}

std::string symbol_type_name(unsigned type) {
    switch (type) {
    case STT_NOTYPE: return "an untyped symbol (STT_NOTYPE)";
    case STT_OBJECT: return "a data object (STT_OBJECT)";
    case STT_TLS: return "a thread-local object (STT_TLS)";
    case STT_GNU_IFUNC: return "an indirect function (STT_GNU_IFUNC)";
    case STT_SECTION: return "a section symbol (STT_SECTION)";
    default: return "a symbol of type " + std::to_string(type);
    }
}

// A symbol another object can bind to: defined here, global or weak, visible.
bool exported(const Elf64_Sym& symbol) {
    const unsigned bind = ELF64_ST_BIND(symbol.st_info);
    const unsigned visibility = ELF64_ST_VISIBILITY(symbol.st_other);
    return symbol.st_shndx != SHN_UNDEF && (bind == STB_GLOBAL || bind == STB_WEAK || bind == STB_GNU_UNIQUE) &&
           (visibility == STV_DEFAULT || visibility == STV_PROTECTED);
}

class Inspector {
public:
    Inspector(int fd, std::uint64_t file_size, const EntryPoint& entry)
        : fd_(fd), file_size_(file_size), entry_(entry), entry_name_(entry.prefix + std::to_string(entry.major)) {}

    PluginInspection run() {
        PluginInspection result;
        if (auto problem = read_headers(); !problem.empty()) {
            result.reason = std::move(problem);
            return result;
        }
        if (auto problem = scan_symbols(); !problem.empty()) {
            result.reason = std::move(problem);
            return result;
        }
        result = verdict();
        if (result.acceptable && entry_.manifest_section != nullptr) {
            if (auto problem = read_manifest(result.manifest); !problem.empty()) {
                result.acceptable = false;
                result.reason = std::move(problem);
            }
        }
        return result;
    }

private:
    // The ELF header and the section header table, every section's range checked against the file.
    std::string read_headers() {
        unsigned char ident[EI_NIDENT] = {};
        const std::size_t got = static_cast<std::size_t>(std::min<std::uint64_t>(file_size_, EI_NIDENT));
        if (got > 0 && !read_at(fd_, ident, got, 0)) return std::string("cannot read the file: ") + std::strerror(errno);
        if (got < SELFMAG || std::memcmp(ident, ELFMAG, SELFMAG) != 0) {
            return "not an ELF file (first bytes: " + hex_bytes(ident, std::min<std::size_t>(got, 4)) +
                   (got == 0 ? "empty file)" : ")");
        }
        if (file_size_ < sizeof(Elf64_Ehdr)) {
            return "truncated ELF file (" + std::to_string(file_size_) + " bytes, shorter than an ELF header)";
        }
        if (ident[EI_CLASS] != ELFCLASS64) return "ELF file is not 64-bit (EI_CLASS " + std::to_string(ident[EI_CLASS]) + ")";
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        if (ident[EI_DATA] != ELFDATA2LSB) return "ELF file is not little-endian like this machine";
#else
        if (ident[EI_DATA] != ELFDATA2MSB) return "ELF file is not big-endian like this machine";
#endif
        Elf64_Ehdr header{};
        if (!read_at(fd_, &header, sizeof header, 0)) return "cannot read the ELF header";
        if (header.e_type != ET_DYN) return "not a shared object (ELF e_type " + std::to_string(header.e_type) + ")";
        if (header.e_machine != native_machine) {
            return "built for another architecture (ELF e_machine " + std::to_string(header.e_machine) +
                   ", this machine is " + std::to_string(native_machine) + ")";
        }
        if (header.e_shnum == 0 || header.e_shoff == 0) return "ELF file has no section headers";
        if (header.e_shentsize != sizeof(Elf64_Shdr)) {
            return "malformed ELF file (section header size " + std::to_string(header.e_shentsize) + ")";
        }
        if (header.e_shstrndx >= header.e_shnum) return "malformed ELF file (bad section name index)";
        // At most 65535 headers of 64 bytes (e_shnum is 16 bits), and only if the file holds them.
        const std::uint64_t table_bytes = std::uint64_t{header.e_shnum} * sizeof(Elf64_Shdr);
        if (!range_within(header.e_shoff, table_bytes, file_size_)) {
            return "truncated ELF file (section headers at offset " + std::to_string(header.e_shoff) + ", " +
                   std::to_string(table_bytes) + " bytes, file has " + std::to_string(file_size_) + " bytes)";
        }
        header_shstrndx_ = header.e_shstrndx;
        sections_.resize(header.e_shnum);
        if (!read_at(fd_, sections_.data(), table_bytes, header.e_shoff)) return "cannot read the ELF section headers";
        for (std::size_t i = 0; i < sections_.size(); ++i) {
            const Elf64_Shdr& section = sections_[i];
            if (section.sh_type == SHT_NOBITS || section.sh_type == SHT_NULL) continue;
            if (!range_within(section.sh_offset, section.sh_size, file_size_)) {
                return "truncated ELF file (section " + std::to_string(i) + " at offset " +
                       std::to_string(section.sh_offset) + ", " + std::to_string(section.sh_size) +
                       " bytes, file has " + std::to_string(file_size_) + " bytes)";
            }
            if ((section.sh_type == SHT_SYMTAB || section.sh_type == SHT_DYNSYM) &&
                section.sh_size % sizeof(Elf64_Sym) != 0) {
                return "malformed ELF file (symbol table size " + std::to_string(section.sh_size) + ")";
            }
        }
        return {};
    }

    // The text of the manifest section: present, at most manifest_capacity bytes, NUL-terminated.
    std::string read_manifest(std::string& text) {
        if (section_names_.empty()) {
            const Elf64_Shdr& names = sections_[header_shstrndx_];
            if (names.sh_type != SHT_STRTAB || names.sh_size > max_inspected_table_bytes) {
                return "malformed ELF file (the section name table is missing or too large)";
            }
            section_names_.resize(static_cast<std::size_t>(names.sh_size));
            if (!section_names_.empty() && !read_at(fd_, section_names_.data(), section_names_.size(), names.sh_offset)) {
                return "cannot read the ELF section names";
            }
        }
        const std::string_view wanted = entry_.manifest_section;
        for (const Elf64_Shdr& section : sections_) {
            if (section.sh_name >= section_names_.size()) continue;
            const char* begin = section_names_.data() + section.sh_name;
            const std::size_t room = section_names_.size() - section.sh_name;
            if (strnlen(begin, room) != wanted.size() || std::string_view(begin, wanted.size()) != wanted) continue;
            if (section.sh_type == SHT_NOBITS || section.sh_size == 0) return "its manifest section is empty";
            if (section.sh_size > entry_.manifest_capacity) {
                return "its manifest section holds " + std::to_string(section.sh_size) + " bytes, more than the " +
                       std::to_string(entry_.manifest_capacity) + " gpucore reads";
            }
            std::string bytes(static_cast<std::size_t>(section.sh_size), '\0');
            if (!read_at(fd_, bytes.data(), bytes.size(), section.sh_offset)) return "cannot read its manifest section";
            const auto end = bytes.find('\0');
            if (end == std::string::npos) return "its manifest section is not NUL-terminated";
            bytes.resize(end);
            text = std::move(bytes);
            return {};
        }
        return std::string("has no manifest section (") + entry_.manifest_section + "): not built by gpucore_add_kernel_module";
    }

    // Reads the dynamic symbol table (what dlsym searches) and notes every entry-like name.
    std::string scan_symbols() {
        const auto dynsym = std::find_if(sections_.begin(), sections_.end(),
                                         [](const Elf64_Shdr& s) { return s.sh_type == SHT_DYNSYM; });
        if (dynsym == sections_.end()) return {}; // exports nothing: verdict() says so
        if (dynsym->sh_entsize != 0 && dynsym->sh_entsize != sizeof(Elf64_Sym)) {
            return "malformed ELF file (dynamic symbol size " + std::to_string(dynsym->sh_entsize) + ")";
        }
        if (dynsym->sh_link >= sections_.size() || sections_[dynsym->sh_link].sh_type != SHT_STRTAB) {
            return "malformed ELF file (the dynamic symbol table's string table, section " +
                   std::to_string(dynsym->sh_link) + ", is not a string table)";
        }
        const Elf64_Shdr& strtab = sections_[dynsym->sh_link];
        const Elf64_Shdr* const tables[] = {&*dynsym, &strtab};
        for (const Elf64_Shdr* table : tables) {
            if (table->sh_size > max_inspected_table_bytes) {
                return "ELF dynamic " + std::string(table == &strtab ? "string" : "symbol") + " table of " +
                       std::to_string(table->sh_size) + " bytes is larger than the " +
                       mib(max_inspected_table_bytes) + " gpucore reads from a plugin file";
            }
        }
        names_.resize(static_cast<std::size_t>(strtab.sh_size));
        if (!names_.empty() && !read_at(fd_, names_.data(), names_.size(), strtab.sh_offset)) {
            return "cannot read the ELF dynamic string table";
        }
        const std::size_t count = static_cast<std::size_t>(dynsym->sh_size / sizeof(Elf64_Sym));
        std::vector<Elf64_Sym> batch;
        for (std::size_t first = 0; first < count; first += symbols_per_batch) {
            batch.resize(std::min(symbols_per_batch, count - first));
            if (!read_at(fd_, batch.data(), batch.size() * sizeof(Elf64_Sym),
                         dynsym->sh_offset + first * sizeof(Elf64_Sym))) {
                return "cannot read the ELF dynamic symbol table";
            }
            for (const Elf64_Sym& symbol : batch) note_symbol(symbol);
        }
        return {};
    }

    void note_symbol(const Elf64_Sym& symbol) {
        if (!exported(symbol) || symbol.st_name >= names_.size()) return;
        // An entry name is short: look at most this far for its end.
        constexpr std::size_t window = 64;
        const char* begin = names_.data() + symbol.st_name;
        const std::size_t available = std::min(window, names_.size() - symbol.st_name);
        const char* end = static_cast<const char*>(std::memchr(begin, '\0', available));
        const std::string_view name(begin, end != nullptr ? static_cast<std::size_t>(end - begin) : available);
        unsigned major = 0;
        switch (classify(name, entry_, major)) {
        case EntryName::unrelated: break;
        case EntryName::exact:
            if (ELF64_ST_TYPE(symbol.st_info) == STT_FUNC) {
                entry_is_function_ = true;
            } else if (!entry_type_) {
                entry_type_ = ELF64_ST_TYPE(symbol.st_info);
            }
            break;
        case EntryName::other_major:
            if (!other_major_) other_major_ = major;
            break;
        case EntryName::look_alike:
            if (look_alike_.empty()) {
                // Quoted in reasons and JSON output: printable ASCII only.
                for (char c : name) look_alike_ += (c >= 0x20 && c < 0x7f) ? c : '?';
                if (end == nullptr) look_alike_ += "...";
            }
            break;
        }
    }

    PluginInspection verdict() const {
        PluginInspection result;
        if (entry_is_function_) {
            result.acceptable = true;
            result.abi_major = entry_.major;
            return result;
        }
        if (entry_type_) {
            result.abi_major = entry_.major;
            result.reason = "exports " + entry_name_ + " as " + symbol_type_name(*entry_type_) +
                            ", not a function (STT_FUNC): it cannot be called";
            return result;
        }
        if (other_major_) {
            result.abi_major = *other_major_;
            result.reason = "ABI major " + std::to_string(*other_major_) + ", this gpucore speaks " +
                            std::to_string(entry_.major) + " (exports " + entry_.prefix +
                            std::to_string(*other_major_) + ")";
            return result;
        }
        result.reason = "does not export " + entry_name_ + " (not a gpucore " +
                        (entry_.manifest_section != nullptr ? "kernel module" : "plugin") + ")";
        if (!look_alike_.empty()) {
            result.reason += "; it exports " + look_alike_ + ", which is not an entry point name";
        }
        return result;
    }

    int fd_;
    std::uint64_t file_size_;
    const EntryPoint& entry_;
    std::string entry_name_;
    std::size_t header_shstrndx_ = 0;
    std::vector<char> section_names_;
    std::vector<Elf64_Shdr> sections_;
    std::vector<char> names_;
    bool entry_is_function_ = false;
    std::optional<unsigned> entry_type_; // the exact entry name, exported with another type
    std::optional<unsigned> other_major_;
    std::string look_alike_;
};

} // namespace

const EntryPoint plugin_entry_point{GPUCORE_PLUGIN_ENTRY_PREFIX, GPUCORE_PLUGIN_ABI_MAJOR};

PluginInspection inspect_plugin_descriptor(int fd, std::uint64_t file_size) {
    return inspect_shared_object(fd, file_size, plugin_entry_point);
}

PluginInspection inspect_shared_object(int fd, std::uint64_t file_size, const EntryPoint& entry) {
    try {
        return Inspector(fd, file_size, entry).run();
    } catch (const std::bad_alloc&) {
        throw;
    } catch (const std::exception& e) {
        PluginInspection failed;
        failed.reason = std::string("unreadable as a shared object: ") + e.what();
        return failed;
    }
}

PluginInspection inspect_plugin_file(const fs::path& path) {
    PluginInspection result;
    struct stat status {};
    if (::stat(path.c_str(), &status) != 0) {
        result.reason = std::string("cannot stat: ") + std::strerror(errno);
        return result;
    }
    if (!S_ISREG(status.st_mode)) {
        result.reason = "is " + file_type_name(status.st_mode) + ", not a plugin file";
        return result;
    }
    FileDescriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
    if (!file.valid() || ::fstat(file.get(), &status) != 0) {
        result.reason = std::string("cannot be opened for reading: ") + std::strerror(errno);
        return result;
    }
    return inspect_plugin_descriptor(file.get(), static_cast<std::uint64_t>(status.st_size));
}

} // namespace gpucore::detail
