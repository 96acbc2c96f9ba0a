// SPDX-License-Identifier: Apache-2.0
// A GoogleTest listener that counts results per suite and device and prints them as a table at the
// end of the run (gpucore-conformance --plugin), followed by the names of the failed tests.
#pragma once

#include <cstddef>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace conformance {

class ResultTable : public testing::EmptyTestEventListener {
public:
    // device_names: the devices' test-name prefixes ("mine_0") and how to show them ("mine:0").
    ResultTable(std::ostream& out, std::vector<std::pair<std::string, std::string>> device_names);

    void OnTestEnd(const testing::TestInfo& info) override;
    void OnTestProgramEnd(const testing::UnitTest& unit_test) override;

private:
    struct Counts {
        std::size_t passed = 0;
        std::size_t failed = 0;
        std::size_t skipped = 0;
    };
    std::string device_of(const std::string& test_name) const;

    std::ostream& out_;
    std::vector<std::pair<std::string, std::string>> device_names_;
    std::map<std::pair<std::string, std::string>, Counts> rows_; // (suite, device) -> counts
    std::vector<std::string> failed_;
};

} // namespace conformance
