// Where simtlab finds its pieces relative to the running binary (build/bin/simtlab):
// libcudart.so.13 in ../lib, presets in ../share/simtlab/configs or the source tree's configs/.
#pragma once

#include <string>
#include <vector>

namespace simtlab::tools {

std::string exe_dir();
std::string library_dir();
/// $SIMTLAB_PRESET_DIRS (colon-separated) followed by the built-in preset directory.
std::vector<std::string> preset_dirs();

}  // namespace simtlab::tools
