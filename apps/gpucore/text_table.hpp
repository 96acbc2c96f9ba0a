// SPDX-License-Identifier: Apache-2.0
// TextTable: rows of cells printed as aligned columns (text left, numbers right).
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace gpucore::cli {

class TextTable {
public:
    explicit TextTable(std::vector<std::string> header);
    // Adds a row; it may have fewer cells than the header (the rest print empty).
    void add_row(std::vector<std::string> cells);
    void print(std::ostream& out) const;

private:
    std::vector<std::string> header_;
    std::vector<std::vector<std::string>> rows_;
};

// printf-style "%.<digits>f" of value.
std::string fixed(double value, int digits);

} // namespace gpucore::cli
