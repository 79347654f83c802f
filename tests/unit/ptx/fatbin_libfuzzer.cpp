// libFuzzer entry point for the fatbin reader, the cubin/ELF reader and registration (built as
// the target fatbin_libfuzzer only with -DSIMTLAB_LIBFUZZER=ON and clang; see
// tests/unit/CMakeLists.txt). It is also linked into test_fatbin_fuzz, which runs it on the seeds
// in every build. Run e.g. (after `mkdir -p /tmp/fb_corpus`)
//   build-fuzz/bin/fatbin_libfuzzer -max_total_time=300 /tmp/fb_corpus tests/data/fatbin
// Any exception other than simtlab::UserError escapes and is reported as a crash, as are
// sanitizer errors and SIMTLAB_ASSERT failures.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "fatbin_fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // libFuzzer's buffer is exactly sized already; copy anyway for callers that pass a larger one.
  std::unique_ptr<uint8_t[]> copy(new uint8_t[size ? size : 1]);
  if (size) std::memcpy(copy.get(), data, size);
  (void)simtlab::ptx::fatbin::fuzz::exercise(copy.get(), size);
  return 0;
}
