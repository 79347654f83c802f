// Small helpers shared by `simtlab suite` and `simtlab sweep`: child processes, the workload
// manifest's location and binaries, stats-tree lookups and CSV formatting.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/manifest.h"

namespace simtlab::tools {

/// The manifest to use: `given`, else $SIMTLAB_WORKLOADS/manifest.yaml, else the one installed
/// or in the source tree next to the simtlab binary. Fails with a hint when there is none.
std::string find_manifest(const std::string& given);
/// Where the workload binaries are built by default: build/workloads next to build/bin.
std::string default_bin_dir();
/// `$env` if set (env may be null), else the first executable `name` on PATH ("" if none).
std::string find_tool(const std::string& name, const char* env = nullptr);
/// nvcc from $NVCC, PATH or /usr/local/cuda/bin ("" if none).
std::string find_nvcc();
/// Start argv[0] (a path) with stdin from /dev/null and stdout/stderr truncated to
/// the given files; returns the pid. With `own_group` the child leads a new process group (its
/// pgid is its pid), so kill(-pid, sig) reaches it and everything it starts. Fails (UserError)
/// when it cannot start.
pid_t spawn(const std::vector<std::string>& argv, const std::string& out_file,
            const std::string& err_file, bool own_group = false);
/// The last non-empty line of a text file ("" if none or unreadable).
std::string last_line(const std::string& file);
/// The last `n` lines of a text file, joined with newlines.
std::string tail_lines(const std::string& file, size_t n);
/// Compile (nvcc, with the source's `// nvcc-flags:` lines) every selected workload whose
/// binary in `bin_dir` is missing or older than workloads/src/<binary>.cu or common/wl.h.
void build_stale(const Manifest& m, const std::vector<const Workload*>& sel,
                 const std::string& bin_dir, bool no_build);
/// A number from a stats tree by dotted path ("mem.l2_total.misses": its total or value);
/// NaN when absent.
double stat_of(const nlohmann::json& gpu, const std::string& path);
/// "12s", "3m05s", "1h02m".
std::string fmt_secs(double s);
/// A CSV field, quoted when it holds a comma, quote or newline.
std::string csv_field(const std::string& s);
std::string join(const std::vector<std::string>& v, const char* sep);
/// An integer-valued double without decimals, others with 6 significant digits, NaN as "".
std::string num(double v);
/// Create `dir` if needed and check it is a writable directory; errors start with `what`.
void check_out_dir(const std::string& what, const std::string& dir);
/// Write `text` to `path` through a temporary file and rename (readers never see half a file).
void write_file_atomic(const std::string& path, const std::string& text);

/// An exclusive flock(2) on a file. The kernel drops it when the last descriptor of the open
/// file is closed, so a holder that dies (SIGKILL included) never leaves a stale lock; a
/// descriptor inherited by child processes (`inherit`) keeps it held while any of them lives.
/// Released by the destructor (or when the process and its inheritors end).
class FileLock {
 public:
  FileLock() = default;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock();
  /// Try to take the lock on `path` (created if missing). True: taken, and "<pid> <host>" written
  /// into the file. False: another process holds it; *holder describes it ("pid 123 on host",
  /// or "another process" when it wrote nothing yet); call again to retry. Fails (UserError)
  /// when the file cannot be opened or locked for another reason.
  bool try_lock(const std::string& path, bool inherit, std::string* holder);
  /// Whether the lock is held.
  bool held() const { return held_; }

 private:
  void write_holder();
  int fd_ = -1;
  bool held_ = false;
};

/// The holder of a lock file as FileLock writes it ("pid 123 on host"); "" when the file is
/// missing or not locked by anyone.
std::string lock_holder(const std::string& path);

}  // namespace simtlab::tools
