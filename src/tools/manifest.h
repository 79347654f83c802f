// The workload manifest (workloads/manifest.yaml): which self-checking workload programs exist,
// how to run them, what each is an analog of, the named sets the seeds evaluate on, and each
// kernel's target resource profile. Read by `simtlab suite`.
//
// Format (every key is checked; an error names the file and the key path):
//   sets:                             # the named sets and the configuration each is meant for
//     thesis-ch2-set1: {description: "...", gpu: fermi-c2050, set: []}
//   workloads:
//     - name: hotspot                 # unique, [a-z0-9_]+
//       binary: hotspot               # workloads/src/<binary>.cu -> <bin dir>/<binary>
//       args: []                      # default arguments (small: seconds in timing mode)
//       scaled_args: ["1024"]         # a larger run
//       analog: {suite: Rodinia, app: hotspot}
//       source: "..."                 # where the profile numbers come from
//       check: "..."                  # how the program checks its results
//       notes: "..."                  # optional
//       kernels:
//         - kernel: calculate_temp    # base name of the kernel function in the program
//           analog_of: calculate_temp # the original kernel
//           label: null               # the seed's notation (NW1, MR2, ...)
//           sets: [thesis-ch2-set1]   # names from `sets`
//           threads: 256              # threads per block      } of the kernel's main launch;
//           shared_bytes: 3072        # static + dynamic bytes } other shapes are only listed
//           regs: 36                  # registers/thread the seed lists (null: none listed)
//           regs_measured: 36         # what ptxas reports for the default target
//           resident_blocks: 3        # baseline CTAs/SM the seed reports under the
//                                     # configuration of the first of `sets` (null: none)
//           limited_by: registers     # registers | scratchpad | threads | blocks | null
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace simtlab::tools {

/// A named set of workloads and the GPU configuration the seed evaluates it under.
struct WorkloadSet {
  std::string name, description;
  std::string gpu;                // preset name
  std::vector<std::string> sets;  // --set overrides ("sm.shared_bytes=16K")
};

struct ManifestKernel {
  std::string kernel;     // base name of the kernel function
  std::string analog_of;  // the original kernel's name
  std::string label;      // the seed's notation, "" if none
  std::vector<std::string> sets;
  uint32_t threads = 0;       // threads per block
  uint32_t shared_bytes = 0;  // static + dynamic shared bytes per block
  std::optional<uint32_t> regs, regs_measured, resident_blocks;
  std::string limited_by;  // "" if the seed says nothing
};

struct Workload {
  std::string name, binary;
  std::vector<std::string> args, scaled_args;
  std::string suite, app, source, check, notes;
  std::vector<ManifestKernel> kernels;
  /// Union of the kernels' sets, in first-seen order.
  std::vector<std::string> sets() const;
  bool in_set(const std::string& set) const;
};

struct Manifest {
  std::string path;
  std::map<std::string, WorkloadSet> sets;
  std::vector<Workload> workloads;
  const Workload* find(const std::string& name) const;
};

/// Parse and validate `path`. Throws UserError "<path>: <key path>: <what>" on any problem
/// (unknown key, wrong type, duplicate name, undefined set, ...).
Manifest load_manifest(const std::string& path);

/// The kernel function's base name from its (Itanium-mangled) symbol: "_Z14calculate_tempiPf"
/// -> "calculate_temp", "_ZN2ns3fooEv" -> "foo", templates included; an unmangled (extern "C")
/// name is returned unchanged.
std::string kernel_base_name(const std::string& symbol);

}  // namespace simtlab::tools
