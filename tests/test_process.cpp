// run_program (harness/core/process.hpp): the one way the harness runs another program.
#include "harness/core/process.hpp"

#include <gtest/gtest.h>

#include <string>

TEST(RunProgram, KeepsStandardOutputAndErrorAndTheExitStatus) {
  occbench::ProgramRun run = occbench::run_program({"sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_EQ(run.status, 3);
  EXPECT_EQ(run.output, "out\nerr\n");
}

TEST(RunProgram, AProgramThatDoesNotRunHasStatusMinusOne) {
  occbench::ProgramRun run = occbench::run_program({"/nonexistent/occbench-no-such-program", "--version"});
  EXPECT_EQ(run.status, -1);
  EXPECT_EQ(run.output, "");
  EXPECT_EQ(occbench::run_program({}).status, -1);
}

TEST(RunProgram, ASignalledProgramHasStatusMinusOne) {
  EXPECT_EQ(occbench::run_program({"sh", "-c", "kill -9 $$"}).status, -1);
}

// A program printing more than a pipe holds (64 KiB) is read whole, not blocked.
TEST(RunProgram, ReadsLongOutputWhole) {
  occbench::ProgramRun run = occbench::run_program({"sh", "-c", "head -c 1000000 /dev/zero | tr '\\0' x"});
  EXPECT_EQ(run.status, 0);
  EXPECT_EQ(run.output, std::string(1000000, 'x'));
}
