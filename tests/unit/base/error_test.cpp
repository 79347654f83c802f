#include "base/error.h"
#include "base/bits.h"

#include <gtest/gtest.h>

namespace simtlab {

TEST(DiagError, FormatsFileLineColAndCaret) {
  DiagError e(SourceLoc{"k.ptx", 3, 5}, "unknown opcode 'foo'", "\tfoo.u32 %r1;");
  EXPECT_EQ(std::string(e.what()),
            "k.ptx:3:5: error: unknown opcode 'foo'\n  \tfoo.u32 %r1;\n  \t   ^");
}

TEST(Bits, SignExtend) {
  EXPECT_EQ(sext(0xff, 8), -1);
  EXPECT_EQ(sext(0x7f, 8), 127);
  EXPECT_EQ(sext(0x80000000u, 32), -2147483648LL);
  EXPECT_EQ(low_mask(64), ~uint64_t(0));
  EXPECT_EQ(align_up(257, 256), 512u);
}

}  // namespace simtlab
