#include "timing/mem/set_index.h"

#include "base/bits.h"
#include "base/error.h"

namespace simtlab::timing {

std::vector<std::string> set_index_names() { return {"linear", "xor", "fermi"}; }

SetIndexFn parse_set_index(const std::string& name) {
  if (name == "linear") return SetIndexFn::linear;
  if (name == "xor") return SetIndexFn::xor_fold;
  if (name == "fermi") return SetIndexFn::fermi;
  panic(__FILE__, __LINE__, "unknown set index function '" + name + "'");
}

std::string set_index_check(SetIndexFn fn, uint32_t sets) {
  switch (fn) {
    case SetIndexFn::linear:
      return {};
    case SetIndexFn::xor_fold:
      return is_pow2(sets) ? std::string() : "the xor set index needs a power-of-two set count";
    case SetIndexFn::fermi:
      return sets == 32 || sets == 64 ? std::string() : "the fermi set index needs 32 or 64 sets";
  }
  return {};
}

uint32_t set_index(SetIndexFn fn, uint64_t line, uint32_t sets) {
  switch (fn) {
    case SetIndexFn::linear:
      return uint32_t(line % sets);
    case SetIndexFn::xor_fold:
      return uint32_t((line & (sets - 1)) ^ ((line / sets) & (sets - 1)));
    case SetIndexFn::fermi: {
      const auto bit = [line](unsigned i) { return uint32_t(line >> i) & 1u; };
      const uint32_t low = uint32_t(line) & 31u;
      const uint32_t mix = bit(6) | bit(7) << 1 | bit(8) << 2 | bit(10) << 3 | bit(12) << 4;
      return ((low ^ mix) + 32u * bit(5)) % sets;
    }
  }
  return 0;
}

}  // namespace simtlab::timing
