// GREENER compile-time analysis (Jatala thesis ch. 4, §4.2.1-4.2.2; spec
// resource-sharing-relssp-greener.md §3.3-3.4). No timing here.
//
// Per instruction S and architectural register R:
//   Dist(IN(S),R)  = 1 if S reads or writes R, else INC(Dist(OUT(S),R))
//   INC(x)         = INF if x == W or x == INF, else x + 1          (saturating at W)
//   Dist(OUT(S),R) = INF if S is an exit, else MAX over successors SS of Dist(IN(SS),R)
//   SleepOff(p,R)  = Dist(p,R) == INF
//   isLive(p,R)    = some path from p reads R before writing it (a guarded write does not kill)
// Table 4.1: near -> ON; far and live -> SLEEP; far and dead -> OFF.
// Solved as a least fixpoint (Dist initialised to 1, the bottom for the MAX confluence) over
// the instruction-level CFG with values {1..W, INF}.
//
// Encoding (§4.2.2): each instruction carries Power(OUT(S),R) for its first `enc_dst`
// destination operands and first `enc_src` source operands (distinct operands, in operand
// order); every other operand register is set to SLEEP after its access. [ours] One state per
// operand: a 64-bit operand (an aligned register pair, one operand name in SASS) carries one
// state for both halves, the most powered of theirs (ON > SLEEP > OFF).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace simtlab::func {
struct Program;
struct ArchRegMap;
}  // namespace simtlab::func

namespace simtlab::ext::greener {

enum class PState : uint8_t { on, sleep, off };
const char* pstate_name(PState s);

inline constexpr uint8_t kDistInf = 0xff;

/// An instruction of the analysed graph: the architectural registers it reads and writes
/// (32-bit register numbers), grouped in operands, and its successors.
struct Operand {
  uint16_t reg = 0;
  uint8_t width = 1;
};
struct Node {
  std::vector<Operand> src, dst;  // operand order
  bool guarded = false;           // a guarded write does not kill liveness
  bool exit = false;              // ret/exit: Dist(OUT) = INF, nothing live after
  std::vector<uint32_t> succ;
};
struct Graph {
  uint32_t nregs = 0;  // architectural registers R0..nregs-1
  std::vector<Node> nodes;
};

struct Analysis {
  uint32_t W = 3, nregs = 0;
  // Per node, per register (node * nregs + reg): Dist(OUT(S),R) (kDistInf = INF), liveness at
  // OUT(S), and Power(OUT(S),R) by Table 4.1.
  std::vector<uint8_t> dist_out;
  std::vector<uint8_t> live_out;
  std::vector<PState> power_out;
  uint32_t iterations = 0;
  uint8_t dist(uint32_t n, uint32_t r) const { return dist_out[size_t(n) * nregs + r]; }
  bool live(uint32_t n, uint32_t r) const { return live_out[size_t(n) * nregs + r]; }
  PState power(uint32_t n, uint32_t r) const { return power_out[size_t(n) * nregs + r]; }
};

Analysis analyze(const Graph& g, uint32_t W);

/// Table 4.1.
constexpr PState table41(bool live, bool sleep_off) {
  return !sleep_off ? PState::on : live ? PState::sleep : PState::off;
}

/// The states an instruction carries (§4.2.2) and applies: per source operand (at read
/// operands) and per destination operand (at write-back), in the node's operand order.
struct Encoded {
  std::vector<PState> src, dst;
};
/// Encoded states of node `n`: the first `enc_src` distinct source operands and the first
/// `enc_dst` destination operands carry their analysed state, the others SLEEP.
Encoded encode(const Graph& g, const Analysis& a, uint32_t n, uint32_t enc_src, uint32_t enc_dst);

// ---- On a decoded program (architectural numbering of func::build_arch_map) ----

/// Per Program::code PC: the states its source/destination operands (ArchPc::src / dst order)
/// are set to. Built per (W, enc_src, enc_dst).
struct PcStates {
  std::vector<uint8_t> nsrc, ndst;
  std::vector<PState> src;  // pc * 8 + i
  std::vector<PState> dst;  // pc * 4 + i
  PState src_state(uint32_t pc, unsigned i) const { return src[size_t(pc) * 8 + i]; }
  PState dst_state(uint32_t pc, unsigned i) const { return dst[size_t(pc) * 4 + i]; }
};

/// The instruction graph of every function of `p` over its architectural registers (`am`):
/// node index = PC. A function's `end` pseudo instruction and calls end the analysis (calls:
/// [ours] a callee's accesses are not seen, the call is treated as an exit).
Graph program_graph(const func::Program& p, const func::ArchRegMap& am);

std::shared_ptr<const PcStates> program_states(const func::Program& p, const func::ArchRegMap& am,
                                               uint32_t W, uint32_t enc_src, uint32_t enc_dst);

/// `simtlab ptx greener`: per instruction of the kernel, its PTX text, the architectural
/// registers it reads/writes and the states encoded for them (e.g. "R4:ON R2:SLEEP").
std::string annotate(const func::Program& p, const func::ArchRegMap& am, uint32_t W,
                     uint32_t enc_src = 2, uint32_t enc_dst = 1);

}  // namespace simtlab::ext::greener
