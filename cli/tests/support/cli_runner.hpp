// Runs the roofcast CLI (ROOFCAST_CLI) as a child process and compares its output with golden
// files in ROOFCAST_GOLDEN_DIR; regenerate them after an intended change with
// ROOFCAST_UPDATE_GOLDEN=1. Shared by the CLI tests.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace roofcast::test {

struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The binary under test: ROOFCAST_CLI, or $ROOFCAST_TEST_CLI when set (to run these tests
/// against another build, e.g. an earlier revision's, and see which of them it fails).
inline std::string cli_binary() {
  const char* other = std::getenv("ROOFCAST_TEST_CLI");
  return other != nullptr ? other : ROOFCAST_CLI;
}

/// `roofcast <arguments>` through the shell, after `environment` (e.g. "PATH=/nonexistent";
/// empty for none); stdout and stderr captured separately.
inline CliRun run_cli(const std::string& arguments, const std::string& environment = "") {
  namespace fs = std::filesystem;
  static int calls = 0;
  const fs::path dir = fs::temp_directory_path();
  const std::string tag = std::to_string(::getpid()) + "_" + std::to_string(++calls);
  const fs::path out = dir / ("roofcast_cli_out_" + tag);
  const fs::path err = dir / ("roofcast_cli_err_" + tag);
  const std::string command = (environment.empty() ? "" : "env " + environment + " ") + "'" +
                              cli_binary() + "' " + arguments + " >'" + out.string() + "' 2>'" +
                              err.string() + "' </dev/null";
  const int status = std::system(command.c_str());
  CliRun run;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = read_file(out);
  run.err = read_file(err);
  fs::remove(out);
  fs::remove(err);
  return run;
}

/// `text` as one shell word: single-quoted, ' written as '\'' (any bytes but NUL survive).
inline std::string shell_word(const std::string& text) {
  std::string out = "'";
  for (char ch : text) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

/// `roofcast ARGS...` with each argument passed exactly as given (quotes, newlines and all),
/// after `environment` (e.g. "PATH=/nonexistent"; empty for none).
inline CliRun run_cli_args(const std::vector<std::string>& args,
                           const std::string& environment = "") {
  std::string arguments;
  for (const std::string& arg : args) arguments += shell_word(arg) + " ";
  return run_cli(arguments, environment);
}

/// The command succeeds, prints nothing on stderr, and its stdout equals the golden file.
inline void expect_golden(const std::string& arguments, const std::string& golden_name) {
  SCOPED_TRACE("roofcast " + arguments);
  const CliRun run = run_cli(arguments);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err, "");
  const std::filesystem::path golden = std::filesystem::path(ROOFCAST_GOLDEN_DIR) / golden_name;
  if (std::getenv("ROOFCAST_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(golden, std::ios::binary) << run.out;
    std::printf("updated %s\n", golden.string().c_str());
    return;
  }
  ASSERT_TRUE(std::filesystem::exists(golden))
      << golden << " is missing; run with ROOFCAST_UPDATE_GOLDEN=1";
  EXPECT_EQ(run.out, read_file(golden)) << "output differs from " << golden;
}

/// The command fails with `exit_code`, prints nothing on stdout, and stderr contains `message`.
inline void expect_error(const std::string& arguments, int exit_code, const std::string& message) {
  SCOPED_TRACE("roofcast " + arguments);
  const CliRun run = run_cli(arguments);
  EXPECT_EQ(run.exit_code, exit_code);
  EXPECT_EQ(run.out, "") << "errors go to stderr only";
  EXPECT_NE(run.err.find(message), std::string::npos) << "stderr was: " << run.err;
}

}  // namespace roofcast::test
