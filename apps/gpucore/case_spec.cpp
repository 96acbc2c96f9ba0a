// SPDX-License-Identifier: Apache-2.0
#include "case_spec.hpp"

#include <cctype>
#include <limits>

#include "operation.hpp"

namespace gpucore::cli {

std::optional<DType> parse_dtype(const std::string& name) {
    for (DType t : gpucore::all_dtypes)
        if (name == gpucore::to_string(t)) return t;
    return std::nullopt;
}

std::vector<std::string> dtype_names() {
    std::vector<std::string> names;
    for (DType t : gpucore::all_dtypes) names.emplace_back(gpucore::to_string(t));
    return names;
}

std::optional<ReduceOp> parse_reduce_op(const std::string& name) {
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::min, ReduceOp::max, ReduceOp::prod})
        if (name == gpucore::to_string(op)) return op;
    return std::nullopt;
}

std::size_t CaseSpec::reduction_length() const noexcept { return is_reduction() ? cols : 0; }

bool CaseSpec::is_reduction() const noexcept { return op->takes_reduce_op; }

std::size_t CaseSpec::input_elements() const noexcept { return elements(); }

std::size_t CaseSpec::output_elements() const noexcept { return op->output_elements(rows, cols); }

double CaseSpec::bytes_moved() const noexcept { return op->bytes_moved(size_of(dtype), rows, cols); }

std::vector<std::size_t> CaseSpec::shape() const {
    if (op->is_matrix()) return {rows, cols};
    return {elements()};
}

std::string CaseSpec::shape_text() const {
    if (op->is_matrix()) return std::to_string(rows) + "x" + std::to_string(cols);
    return count_text(elements());
}

std::string CaseSpec::op_text() const {
    std::string text = op->name;
    if (is_reduction()) text += std::string(" ") + gpucore::to_string(reduce_op);
    return text;
}

std::string CaseSpec::name() const {
    return op_text() + " " + gpucore::to_string(dtype) + " " + shape_text();
}

bool elements_fit(std::size_t rows, std::size_t cols, DType dtype) noexcept {
    constexpr std::size_t max = std::numeric_limits<std::size_t>::max();
    if (rows != 0 && cols > max / rows) return false;
    const std::size_t n = rows * cols;
    // Two input buffers of n elements must be addressable in bytes.
    return n <= max / (2 * size_of(dtype));
}

std::string count_text(std::size_t n) {
    if (n >= 1024 && (n & (n - 1)) == 0) {
        int k = 0;
        while ((std::size_t{1} << k) != n) ++k;
        return "2^" + std::to_string(k);
    }
    return std::to_string(n);
}

namespace {
std::optional<std::size_t> parse_decimal(const std::string& text) {
    if (text.empty() || text.size() > 20) return std::nullopt;
    std::size_t value = 0;
    for (char ch : text) {
        if (!std::isdigit(static_cast<unsigned char>(ch))) return std::nullopt;
        const auto digit = static_cast<std::size_t>(ch - '0');
        if (value > (std::numeric_limits<std::size_t>::max() - digit) / 10) return std::nullopt;
        value = value * 10 + digit;
    }
    return value;
}
} // namespace

std::optional<std::uint64_t> parse_unsigned(const std::string& text) {
    static_assert(sizeof(std::size_t) == sizeof(std::uint64_t), "parse_decimal reads 64-bit values");
    return parse_decimal(text);
}

std::optional<std::size_t> parse_count(const std::string& text) {
    for (const char* prefix : {"2^", "1<<"}) {
        const std::string p = prefix;
        if (text.compare(0, p.size(), p) == 0) {
            const auto exponent = parse_decimal(text.substr(p.size()));
            if (!exponent || *exponent >= std::numeric_limits<std::size_t>::digits)
                return std::nullopt;
            return std::size_t{1} << *exponent;
        }
    }
    return parse_decimal(text);
}

} // namespace gpucore::cli
