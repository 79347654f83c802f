#include "tools/paths.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace simtlab::tools {

namespace fs = std::filesystem;

std::string exe_dir() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : p.parent_path().string();
}

std::string library_dir() {
  const fs::path bin = exe_dir();
  for (const fs::path& d : {bin / ".." / "lib", bin})
    if (fs::exists(d / "libcudart.so.13")) return fs::weakly_canonical(d).string();
  return {};
}

std::vector<std::string> preset_dirs() {
  std::vector<std::string> dirs;
  if (const char* e = std::getenv("SIMTLAB_PRESET_DIRS")) {
    std::string s = e;
    size_t b = 0;
    while (b <= s.size()) {
      size_t n = s.find(':', b);
      if (n == std::string::npos) n = s.size();
      if (n > b) dirs.push_back(s.substr(b, n - b));
      b = n + 1;
    }
  }
  const fs::path bin = exe_dir();
  for (const fs::path& d :
       {bin / ".." / "share" / "simtlab" / "configs", bin / ".." / ".." / "configs"})
    if (fs::is_directory(d)) {
      dirs.push_back(fs::weakly_canonical(d).string());
      break;
    }
  return dirs;
}

}  // namespace simtlab::tools
