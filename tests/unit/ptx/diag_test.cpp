// Bad PTX input: every kind of error has an exact message at an exact line:col, and the CLI
// prints `file:line:col: error: ...`, the offending line and a caret, and exits with status 1.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "ptx_test_util.h"

namespace simtlab::ptx {
namespace {

namespace fs = std::filesystem;

// Lines 1-8 of every case; the line under test is line 9.
const std::string kPrologue = std::string(testing::kHeader) +
                              ".visible .entry k(.param .u64 k_p)\n"  // 4
                              "{\n"                                   // 5
                              "\t.reg .b32 %r<4>;\n"                  // 6
                              "\t.reg .pred %p<2>;\n"                 // 7
                              "\t.reg .b64 %rd<2>;\n";                // 8

std::string with_line(const std::string& line9) { return kPrologue + line9 + "\n\tret;\n}\n"; }
std::string diag9(const std::string& line9) { return testing::diag(with_line(line9)); }

TEST(PtxDiag, UnknownOpcode) {
  EXPECT_EQ(diag9("\tfoo.u32 %r1, %r2;"), "9:2: unknown opcode 'foo'");
  EXPECT_EQ(diag9("\t@%p1 frob %r1;"), "9:7: unknown opcode 'frob'");
}

TEST(PtxDiag, UnknownModifier) {
  EXPECT_EQ(diag9("\tadd.zz.u32 %r1, %r2, %r3;"), "9:5: unknown modifier '.zz' for 'add'");
  EXPECT_EQ(diag9("\tadd.global.u32 %r1, %r2, %r3;"),
            "9:5: modifier '.global' is not valid for 'add'");
  EXPECT_EQ(diag9("\tadd.u32.wide %r1, %r2, %r3;"), "9:9: modifier '.wide' is not valid for 'add'");
}

TEST(PtxDiag, UndeclaredRegister) {
  EXPECT_EQ(diag9("\tadd.u32 %r1, %r9, %r3;"), "9:15: undeclared register '%r9'");
  EXPECT_EQ(diag9("\t@%p7 ret;"), "9:3: undeclared predicate '%p7'");
  EXPECT_EQ(diag9("\tld.global.u32 %r1, [%rd9];"), "9:22: undeclared identifier '%rd9' in address");
}

TEST(PtxDiag, TypeMismatch) {
  EXPECT_EQ(diag9("\tadd.u32 %r1, %rd1, %r3;"),
            "9:15: type mismatch: register '%rd1' is .b64 but 'add.u32' expects a 32-bit operand");
  EXPECT_EQ(diag9("\tadd.u32 %r1, %p1, %r3;"),
            "9:15: predicate '%p1' used where a .u32 value is expected");
  EXPECT_EQ(diag9("\t@%r1 ret;"), "9:3: '%r1' is not a predicate register");
  EXPECT_EQ(diag9("\tadd.s32 %r1, %r2, 1.5;"),
            "9:20: floating-point literal where an integer is expected");
}

TEST(PtxDiag, BadLabel) {
  EXPECT_EQ(diag9("\tbra $L_nowhere;"), "9:6: undefined label '$L_nowhere'");
  EXPECT_EQ(diag9("L1:\nL1:"), "10:1: label 'L1' is defined twice");
  EXPECT_EQ(diag9("\tbra %r1;"), "9:2: bra needs a label");
}

TEST(PtxDiag, MissingSemicolon) {
  // Reported right after the last token of the line, not at the next statement.
  EXPECT_EQ(diag9("\tadd.u32 %r1, %r2, %r3"), "9:23: expected ';' after 'add' instruction");
  EXPECT_EQ(testing::diag(std::string(testing::kHeader) + ".global .u32 x\n.global .u32 y;\n"),
            "4:15: expected ';' after variable declaration");
  EXPECT_EQ(diag9("\t.reg .b32 %x"), "9:14: expected ';' after .reg declaration");
}

TEST(PtxDiag, TruncatedFile) {
  EXPECT_EQ(testing::diag(kPrologue + "\tadd.u32 %r1,"),
            "9:14: expected an operand, got end of input (unexpected end of input)");
  EXPECT_EQ(testing::diag(kPrologue + "\tadd.u32 %r1, %r2, %r3;\n"),
            "9:24: missing '}' at end of function body (unexpected end of input)");
  EXPECT_EQ(testing::diag(kPrologue + "\tadd.u32 %"), "9:10: stray '%'");
  EXPECT_EQ(testing::diag(std::string(testing::kHeader) + ".visible .entry k(.param .u64 a,"),
            "4:33: expected .param, got end of input (unexpected end of input)");
  EXPECT_EQ(testing::diag(".version"),
            "1:9: expected a version number like 9.0 (unexpected end of input)");
  EXPECT_EQ(testing::diag(kPrologue + "/* never closed\n"), "9:1: unterminated /* comment");
  EXPECT_EQ(testing::diag(std::string(testing::kHeader) + ".file 1 \"abc"),
            "4:9: unterminated string");
}

TEST(PtxDiag, BinaryJunk) {
  EXPECT_EQ(diag9(std::string("\t\x01\x02 junk")), "9:2: unexpected byte 0x01 (not PTX text)");
  EXPECT_EQ(diag9(std::string("\tadd.u32 %r1, %r2, \xff;")),
            "9:20: unexpected byte 0xff (not PTX text)");
  EXPECT_EQ(diag9(std::string("\tret;\0", 6)),
            "9:6: unexpected NUL byte (\\x00); PTX must be plain text");
  EXPECT_EQ(testing::diag(std::string("\x7f"
                                      "ELF\x02\x01\x01",
                                      7)),
            "1:1: unexpected byte 0x7f (not PTX text)");
  // The diagnostic's copy of the line is printable.
  try {
    parse_module(with_line("\t\x01\xc3\xa9"), "t.ptx");
    FAIL();
  } catch (const DiagError& e) {
    EXPECT_THAT(e.what(), ::testing::EndsWith("\n  \t???\n  \t^"));
  }
}

TEST(PtxDiag, WrongOperandCount) {
  EXPECT_EQ(diag9("\tadd.u32 %r1, %r2;"), "9:2: 'add.u32' takes 3 operands, got 2");
  EXPECT_EQ(diag9("\tmad.lo.s32 %r1, %r2, %r3, %r1, %r2;"),
            "9:2: 'mad.lo.s32' takes 4 operands, got 5");
  EXPECT_EQ(diag9("\tret %r1;"), "9:2: 'ret' takes 0 operands, got 1");
  EXPECT_EQ(diag9("\tsetp.eq.s32 %p1, %r1;"),
            "9:2: 'setp.eq.s32' has the wrong number of operands");
}

TEST(PtxDiag, ImmediateAsDestination) {
  EXPECT_EQ(diag9("\tadd.u32 5, %r2, %r3;"), "9:10: an immediate cannot be a destination");
  EXPECT_EQ(diag9("\tmov.u32 0f3F800000, %r2;"), "9:10: an immediate cannot be a destination");
  EXPECT_EQ(diag9("\tmov.u32 %tid.x, %r1;"),
            "9:10: destination operand 1 of 'mov' must be a register");
  EXPECT_EQ(diag9("\tld.global.v2.u32 {%r1, 3}, [%rd1];"),
            "9:19: destination of 'ld' must be registers");
}

TEST(PtxDiag, OtherStructuralErrors) {
  EXPECT_EQ(testing::diag(std::string(testing::kHeader) + "add.u32 %r1, %r2, %r3;\n"),
            "4:1: expected a directive, got 'add'");
  EXPECT_EQ(testing::diag(std::string(testing::kHeader) + ".frobnicate 3;\n"),
            "4:1: unknown or misplaced directive '.frobnicate'");
  EXPECT_EQ(diag9("\tmov.u32 %r1, 0f3F80;"),
            "9:15: f32 literal needs exactly 8 hex digits after 0f");
  EXPECT_EQ(diag9("\tmov.u32 %r1, 99999999999999999999;"),
            "9:15: integer literal does not fit in 64 bits");
  EXPECT_EQ(testing::diag(std::string(testing::kHeader) + ".global .u32 a[9999999999];\n"
                                                          ".global .u32 b[65536][65536][65536];\n"),
            "5:14: array too large");
  EXPECT_EQ(testing::diag(std::string(testing::kHeader) +
                          ".visible .entry k()\n{\n\tret;\n}\n.visible .entry k()\n{\n\tret;\n}\n"),
            "8:17: function 'k' is defined twice");
  EXPECT_EQ(diag9("\tcall.uni nothing, ();"), "9:11: undeclared identifier 'nothing'");
}

// ---- the CLI ----------------------------------------------------------------------------

struct CliResult {
  int status = -1;
  std::string out, err;
};

CliResult run_cli(const std::string& args, const std::string& file_name, const std::string& text) {
  const fs::path dir =
      fs::temp_directory_path() / ("simtlab_ptx_cli_" + std::to_string(::getpid()) + "_" +
                                   ::testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::create_directories(dir);
  {
    std::ofstream f(dir / file_name, std::ios::binary);
    f << text;
  }
  const std::string cmd =
      "cd '" + dir.string() + "' && '" + SIMTLAB_BIN + "' " + args + " >out.txt 2>err.txt";
  const int rc = std::system(cmd.c_str());
  CliResult r;
  r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  r.out = testing::read_text((dir / "out.txt").string());
  r.err = testing::read_text((dir / "err.txt").string());
  fs::remove_all(dir);
  return r;
}

TEST(PtxCli, CheckReportsErrorWithLineAndCaret) {
  CliResult r = run_cli("ptx check bad.ptx", "bad.ptx", with_line("\tadd.u32 %r1, %r2, %r3"));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "bad.ptx:9:23: error: expected ';' after 'add' instruction\n"
            "  \tadd.u32 %r1, %r2, %r3\n"
            "  \t                     ^\n");
}

TEST(PtxCli, EveryErrorKindExitsWithStatusOne) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"\tfoo.u32 %r1, %r2;",
       "t.ptx:9:2: error: unknown opcode 'foo'\n  \tfoo.u32 %r1, %r2;\n  \t^\n"},
      {"\tadd.u32 5, %r2, %r3;",
       "t.ptx:9:10: error: an immediate cannot be a destination\n  \tadd.u32 5, %r2, %r3;\n  \t    "
       "    ^\n"},
      {"\tbra NOWHERE;",
       "t.ptx:9:6: error: undefined label 'NOWHERE'\n  \tbra NOWHERE;\n  \t    ^\n"},
      {"\t\x01", "t.ptx:9:2: error: unexpected byte 0x01 (not PTX text)\n  \t?\n  \t^\n"},
  };
  for (const auto& [line, want] : cases) {
    CliResult r = run_cli("ptx check t.ptx", "t.ptx", with_line(line));
    EXPECT_EQ(r.status, 1) << line;
    EXPECT_EQ(r.err, want) << line;
  }
  CliResult cfg = run_cli("ptx cfg t.ptx --kernel k", "t.ptx", with_line("\tmov.u32 %r1, %r9;"));
  EXPECT_EQ(cfg.status, 1);
  EXPECT_THAT(cfg.err, ::testing::StartsWith("t.ptx:9:15: error: undeclared register '%r9'\n"));
  CliResult dump = run_cli("ptx dump t.ptx", "t.ptx", kPrologue + "\tret;\n");
  EXPECT_EQ(dump.status, 1);
  EXPECT_EQ(dump.err,
            "t.ptx:9:6: error: missing '}' at end of function body (unexpected end of input)\n"
            "  \tret;\n"
            "  \t    ^\n");
}

TEST(PtxCli, EmptyAndBinaryFilesFail) {
  // Issue #10: an empty file used to exit 0 ("PTX ISA 0.0, target ?").
  CliResult empty = run_cli("ptx check empty.ptx", "empty.ptx", "");
  EXPECT_EQ(empty.status, 1);
  EXPECT_EQ(empty.out, "");
  EXPECT_EQ(empty.err,
            "empty.ptx:1:1: error: empty PTX module: no .version directive (PTX starts with "
            ".version, .target)\n");
  CliResult nul = run_cli("ptx check nul.ptx", "nul.ptx",
                          std::string(testing::kHeader) + std::string(".\0\n", 3));
  EXPECT_EQ(nul.status, 1);
  EXPECT_EQ(
      nul.err,
      "nul.ptx:4:2: error: unexpected NUL byte (\\x00); PTX must be plain text\n  .?\n   ^\n");
}

TEST(PtxCli, GoodInputExitsZero) {
  CliResult r = run_cli("ptx check ok.ptx", "ok.ptx", with_line("\tadd.u32 %r1, %r2, %r3;"));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::HasSubstr("kernel k\n"));
  CliResult cfg = run_cli("ptx cfg ok.ptx --kernel nope", "ok.ptx", with_line("\tret;"));
  EXPECT_EQ(cfg.status, 1);
  EXPECT_EQ(cfg.err, "simtlab: error: no function 'nope' in ok.ptx (defined: k)\n");
}

}  // namespace
}  // namespace simtlab::ptx
