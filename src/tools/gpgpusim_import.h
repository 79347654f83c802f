// Import of GPGPU-Sim `gpgpusim.config` files (`simtlab run --gpu path/to/gpgpusim.config`).
// Every option simtlab models becomes a `--set`-style override on top of the fermi-gtx480
// preset; every other option is reported (once, in one warning) as ignored. Option meanings:
// GPGPU-Sim manual and the option descriptions in its gpgpu-sim/gpu-sim.cc (facts only).
#pragma once

#include <string>
#include <vector>

#include "config/schema.h"

namespace simtlab::tools {

struct GpgpusimImport {
  std::vector<std::string> overrides;  // "path=value"
  std::vector<std::string> origins;    // parallel to overrides: "file:line: -option"
  std::vector<std::string> ignored;    // option names (without the leading '-')
  std::vector<std::string> notes;      // options imported with an adjustment
};

/// Why simtlab does not import GPGPU-Sim option `name` (without the leading '-'), or a setting
/// of it: either why ignoring it is safe (no timing effect, or GPGPU-Sim's setting is what
/// simtlab always does) or which mechanism simtlab lacks. Empty for an option simtlab has no
/// entry for. Covers every option of the shipped GTX480 and QV100 configurations that is not
/// imported (tests/unit/config/gpgpusim_import_test.cpp checks it).
std::string ignore_reason(const std::string& name);

/// True when `path` names an existing file that looks like a gpgpusim.config (by name or by
/// content: lines starting with "-gpgpu_" or "-ptx_").
bool is_gpgpusim_config(const std::string& path);

/// Parse the file. Options whose mapped parameter does not exist in `schema` are ignored too.
/// Throws UserError "file:line: ..." for a line that is not an option, and
/// "file:line: -option: ..." for a malformed value of a modelled option (including values of
/// the wrong type or outside the parameter's rules).
GpgpusimImport import_gpgpusim_config(const std::string& path, const config::Schema& schema);

}  // namespace simtlab::tools
