// SPDX-License-Identifier: Apache-2.0
#include "result_table.hpp"

#include <algorithm>
#include <iomanip>

namespace conformance {
namespace {

// "Devices/Reduce" -> "Reduce": every parameterized suite is instantiated as "Devices".
std::string suite_label(std::string suite) {
    const std::string prefix = "Devices/";
    if (suite.compare(0, prefix.size(), prefix) == 0) suite.erase(0, prefix.size());
    return suite;
}

} // namespace

ResultTable::ResultTable(std::ostream& out,
                         std::vector<std::pair<std::string, std::string>> device_names)
    : out_(out), device_names_(std::move(device_names)) {}

// A parameterized test's name ends in "/<device prefix>_<case>" ("MatchesReference/mine_0_f32_n33").
std::string ResultTable::device_of(const std::string& test_name) const {
    const auto slash = test_name.rfind('/');
    if (slash == std::string::npos) return "-";
    const std::string param = test_name.substr(slash + 1);
    for (const auto& [prefix, shown] : device_names_) {
        const bool matches = param.compare(0, prefix.size(), prefix) == 0 &&
                             (param.size() == prefix.size() || param[prefix.size()] == '_');
        if (matches) return shown;
    }
    return "-";
}

void ResultTable::OnTestEnd(const testing::TestInfo& info) {
    const testing::TestResult* result = info.result();
    Counts& counts = rows_[{suite_label(info.test_suite_name()), device_of(info.name())}];
    if (result->Skipped()) {
        ++counts.skipped;
    } else if (result->Failed()) {
        ++counts.failed;
        failed_.push_back(std::string(info.test_suite_name()) + "." + info.name());
    } else {
        ++counts.passed;
    }
}

void ResultTable::OnTestProgramEnd(const testing::UnitTest&) {
    std::size_t suite_width = 5, device_width = 6;
    for (const auto& [key, counts] : rows_) {
        suite_width = std::max(suite_width, key.first.size());
        device_width = std::max(device_width, key.second.size());
    }
    auto row = [&](const std::string& suite, const std::string& device, const std::string& passed,
                   const std::string& failed, const std::string& skipped, const std::string& verdict) {
        out_ << std::left << std::setw(static_cast<int>(suite_width)) << suite << "  "
             << std::setw(static_cast<int>(device_width)) << device << "  " << std::right
             << std::setw(7) << passed << "  " << std::setw(7) << failed << "  " << std::setw(7)
             << skipped << "  " << verdict << "\n";
    };
    Counts total;
    out_ << "\n";
    row("suite", "device", "passed", "failed", "skipped", "result");
    for (const auto& [key, counts] : rows_) {
        row(key.first, key.second, std::to_string(counts.passed), std::to_string(counts.failed),
            std::to_string(counts.skipped), counts.failed == 0 ? "PASS" : "FAIL");
        total.passed += counts.passed;
        total.failed += counts.failed;
        total.skipped += counts.skipped;
    }
    row("total", "", std::to_string(total.passed), std::to_string(total.failed),
        std::to_string(total.skipped), total.failed == 0 ? "PASS" : "FAIL");
    if (!failed_.empty()) {
        out_ << "\nfailed tests (rerun one with --gtest_filter=<name>):\n";
        for (const auto& name : failed_) out_ << "  " << name << "\n";
    }
    out_ << std::flush;
}

} // namespace conformance
