// SPDX-License-Identifier: Apache-2.0
#include "text_table.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace gpucore::cli {
namespace {
// Right-align cells that read as numbers (figures line up), left-align the rest.
bool looks_numeric(const std::string& cell) {
    if (cell.empty()) return false;
    const unsigned char first = static_cast<unsigned char>(cell.front());
    return std::isdigit(first) || ((first == '-' || first == '+') && cell.size() > 1);
}
} // namespace

TextTable::TextTable(std::vector<std::string> header) : header_(std::move(header)) {}

void TextTable::add_row(std::vector<std::string> cells) {
    cells.resize(std::max(cells.size(), header_.size()));
    rows_.push_back(std::move(cells));
}

void TextTable::print(std::ostream& out) const {
    std::vector<std::size_t> width(header_.size(), 0);
    auto widen = [&](const std::vector<std::string>& row) {
        if (width.size() < row.size()) width.resize(row.size(), 0);
        for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
    };
    widen(header_);
    for (const auto& row : rows_) widen(row);
    auto print_row = [&](const std::vector<std::string>& row, bool header) {
        std::string line;
        for (std::size_t c = 0; c < width.size(); ++c) {
            const std::string cell = c < row.size() ? row[c] : std::string();
            const std::string pad(width[c] - cell.size(), ' ');
            line += (!header && looks_numeric(cell)) ? pad + cell : cell + pad;
            if (c + 1 < width.size()) line += "  ";
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out << line << '\n';
    };
    print_row(header_, true);
    for (const auto& row : rows_) print_row(row, false);
}

std::string fixed(double value, int digits) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", digits, value);
    return text;
}

} // namespace gpucore::cli
