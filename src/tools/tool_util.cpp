#include "tools/tool_util.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "base/error.h"
#include "tools/paths.h"

extern char** environ;

namespace simtlab::tools {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::string default_bin_dir() {
  return (fs::path(exe_dir()) / ".." / "workloads").lexically_normal().string();
}

std::string tail_lines(const std::string& file, size_t n) {
  std::ifstream f(file);
  std::deque<std::string> lines;
  std::string line;
  while (std::getline(f, line)) {
    lines.push_back(line);
    if (lines.size() > n) lines.pop_front();
  }
  std::string out;
  for (const auto& l : lines) out += (out.empty() ? "" : "\n") + l;
  return out;
}

void write_file_atomic(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << text;
    if (!f) fatal("cannot write {}", tmp);
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) fatal("cannot rename {} to {}: {}", tmp, path, ec.message());
}

std::string find_manifest(const std::string& given) {
  if (!given.empty()) return given;
  if (const char* e = std::getenv("SIMTLAB_WORKLOADS"); e && *e)
    return (fs::path(e) / "manifest.yaml").string();
  const fs::path bin = exe_dir();
  for (const fs::path& p : {bin / ".." / "share" / "simtlab" / "workloads" / "manifest.yaml",
                            bin / ".." / ".." / "workloads" / "manifest.yaml"})
    if (fs::exists(p)) return fs::weakly_canonical(p).string();
  fatal(
      "simtlab: cannot find workloads/manifest.yaml next to simtlab; give --manifest FILE "
      "or set SIMTLAB_WORKLOADS=DIR");
}

std::string find_tool(const std::string& name, const char* env) {
  if (env)
    if (const char* e = std::getenv(env); e && *e) return e;
  const char* p = std::getenv("PATH");
  const std::string path = p ? p : "";
  size_t b = 0;
  while (b <= path.size()) {
    size_t e = path.find(':', b);
    if (e == std::string::npos) e = path.size();
    // An empty PATH entry is the current directory (as the shell reads PATH).
    const fs::path cand = fs::path(b == e ? std::string(".") : path.substr(b, e - b)) / name;
    if (access(cand.c_str(), X_OK) == 0) return cand.string();
    b = e + 1;
  }
  return {};
}

std::string find_nvcc() {
  if (std::string n = find_tool("nvcc", "NVCC"); !n.empty()) return n;
  for (const char* c : {"/usr/local/cuda/bin/nvcc", "/usr/local/cuda-13/bin/nvcc"})
    if (access(c, X_OK) == 0) return c;
  return {};
}

/// Start argv with stdout/stderr redirected to the given files (truncated). Returns the pid.
pid_t spawn(const std::vector<std::string>& argv, const std::string& out_file,
            const std::string& err_file, bool own_group) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> av;
  for (const auto& a : argv) av.push_back(const_cast<char*>(a.c_str()));
  av.push_back(nullptr);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  if (own_group) {
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
  }
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, av[0], &fa, &attr, av.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) fatal("simtlab suite: cannot start {}: {}", argv[0], std::strerror(rc));
  return pid;
}

std::string last_line(const std::string& file) {
  std::ifstream f(file);
  std::string line, last;
  while (std::getline(f, line))
    if (!line.empty()) last = line;
  return last;
}

/// Build the workloads' binaries that are missing or older than their sources.
void build_stale(const Manifest& m, const std::vector<const Workload*>& sel,
                 const std::string& bin_dir, bool no_build) {
  const fs::path src_dir = fs::path(m.path).parent_path() / "src";
  const fs::path common = fs::path(m.path).parent_path() / "common";
  // The repository's include/ (simtlab/d2ma.h, simtlab/xfer.h), as workloads/CMakeLists.txt.
  const fs::path include = fs::path(m.path).parent_path().parent_path() / "include";
  std::set<std::string> done;
  std::string nvcc;
  for (const Workload* w : sel) {
    if (!done.insert(w->binary).second) continue;
    const fs::path src = src_dir / (w->binary + ".cu");
    const fs::path bin = fs::path(bin_dir) / w->binary;
    std::error_code ec;
    const bool have_src = fs::exists(src, ec);
    bool stale = !fs::exists(bin, ec);
    if (!stale && have_src) {
      const auto bt = fs::last_write_time(bin, ec);
      stale = fs::last_write_time(src, ec) > bt ||
              (fs::exists(common / "wl.h") && fs::last_write_time(common / "wl.h", ec) > bt);
    }
    if (!stale) continue;
    if (no_build || !have_src) {
      if (fs::exists(bin, ec)) continue;  // no source to compare with: use what is there
      fatal("simtlab suite: workload binary {} is missing{}", bin.string(),
            have_src ? " (--no-build)" : fmt::format(" and so is its source {}", src.string()));
    }
    if (nvcc.empty()) nvcc = find_nvcc();
    if (nvcc.empty())
      fatal("simtlab suite: {} needs building but nvcc is not on PATH (or set NVCC=...)",
            w->binary);
    fs::create_directories(bin_dir, ec);
    std::vector<std::string> argv = {nvcc, "-cudart", "shared", "-I" + common.string()};
    if (fs::exists(include, ec)) argv.push_back("-I" + include.string());
    std::ifstream f(src);
    std::string line;
    while (std::getline(f, line))
      if (line.rfind("// nvcc-flags:", 0) == 0) {
        std::istringstream is(line.substr(14));
        std::string flag;
        while (is >> flag) argv.push_back(flag);
      }
    argv.insert(argv.end(), {"-o", bin.string(), src.string()});
    std::fprintf(stderr, "simtlab suite: building %s\n", w->binary.c_str());
    const std::string log = bin.string() + ".build.log";
    const pid_t pid = spawn(argv, log, log + ".err");
    int st = 0;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
      std::ifstream e(log + ".err");
      std::stringstream ss;
      ss << e.rdbuf();
      fatal("simtlab suite: building {} failed:\n{}", w->binary, ss.str());
    }
  }
}

double stat_of(const json& gpu, const std::string& path) {
  const json* cur = &gpu;
  size_t b = 0;
  while (b <= path.size()) {
    size_t e = path.find('.', b);
    if (e == std::string::npos) e = path.size();
    const std::string key = path.substr(b, e - b);
    if (!cur->is_object() || !cur->contains(key)) return std::nan("");
    cur = &(*cur)[key];
    b = e + 1;
  }
  for (const char* k : {"total", "value"})
    if (cur->is_object() && cur->contains(k) && (*cur)[k].is_number())
      return (*cur)[k].get<double>();
  return cur->is_number() ? cur->get<double>() : std::nan("");
}

std::string fmt_secs(double s) {
  if (s < 60) return fmt::format("{:.0f}s", s);
  if (s < 3600) return fmt::format("{}m{:02d}s", int(s / 60), int(s) % 60);
  return fmt::format("{}h{:02d}m", int(s / 3600), (int(s) / 60) % 60);
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

std::string num(double v) {
  if (std::isnan(v)) return "";
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{:.0f}", v);
  return fmt::format("{:.6g}", v);
}

void check_out_dir(const std::string& what, const std::string& out) {
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec || !fs::is_directory(out))
    fatal("{}: cannot create the directory {}{}", what, out, ec ? ": " + ec.message() : "");
  if (access(out.c_str(), W_OK | X_OK) != 0)
    fatal("{}: directory {} is not writable: {}", what, out, std::strerror(errno));
}

namespace {

/// "pid 123 on host" from a lock file's "<pid> <host>" text ("another process" if empty).
std::string describe_holder(const std::string& text) {
  std::istringstream is(text);
  std::string pid, host;
  is >> pid >> host;
  if (pid.empty()) return "another process";
  return "pid " + pid + (host.empty() ? "" : " on " + host);
}

std::string read_small_file(int fd) {
  char buf[256];
  const ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
  return n > 0 ? std::string(buf, size_t(n)) : std::string();
}

}  // namespace

FileLock::~FileLock() {
  if (fd_ >= 0) close(fd_);
}

void FileLock::write_holder() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  const std::string text = fmt::format("{} {}\n", getpid(), host);
  if (ftruncate(fd_, 0) != 0 || pwrite(fd_, text.data(), text.size(), 0) != ssize_t(text.size()))
    return;  // the lock itself is what matters; the text only names the holder
}

bool FileLock::try_lock(const std::string& path, bool inherit, std::string* holder) {
  if (fd_ < 0) {
    fd_ = open(path.c_str(), O_RDWR | O_CREAT | (inherit ? 0 : O_CLOEXEC), 0644);
    if (fd_ < 0) fatal("cannot open the lock file {}: {}", path, std::strerror(errno));
  }
  while (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK) fatal("cannot lock {}: {}", path, std::strerror(errno));
    if (holder) *holder = describe_holder(read_small_file(fd_));
    return false;
  }
  held_ = true;
  write_holder();
  return true;
}

std::string lock_holder(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string who;
  if (flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK)
    who = describe_holder(read_small_file(fd));
  close(fd);  // also drops the shared lock, if it was taken
  return who;
}

}  // namespace simtlab::tools
