"""`simtlab annotate` on a large stats file (tens of MB of per-instruction statistics over many
kernels, synthesised in simtlab's layout) stays under 2x the file's size in peak memory over the
interpreter's baseline, where json.load of the same file alone takes more. Standard library
only: /usr/bin/python3 tests/python/test_annotate_memory.py"""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PYDIR = os.path.normpath(os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, HERE)
import synth  # noqa: E402

# Peak RSS growth (bytes) of `simtlab annotate` (or json.load) in a fresh interpreter over its
# peak once the modules are imported. VmHWM of /proc/self/status is the peak RSS of this
# process's own address space; getrusage's ru_maxrss would not do: it starts at the parent's
# RSS when the child is created (Linux keeps the high-water mark across fork and exec).
PROBE = """
import contextlib, json, os, sys
sys.path.insert(0, {pydir!r})
from simtlab import annotate
def hwm():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmHWM:"))
base = hwm()
if sys.argv[1] == "json":
    with open(sys.argv[2]) as f:
        d = json.load(f)
else:
    with open(os.devnull, "w") as null, contextlib.redirect_stdout(null):
        annotate.main(sys.argv[2:])
print(hwm() - base)
"""


def growth(what, *args):
    p = subprocess.run([sys.executable, "-c", PROBE.format(pydir=PYDIR), what, *args],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise AssertionError(p.stderr)
    return int(p.stdout.split()[-1])


class AnnotateMemory(unittest.TestCase):
    def test_peak_memory_under_twice_the_file(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "big.json")
            # 4 distinct kernels (with and without source lines), 24 launches: ~30 MB.
            texts = [synth.kernel_text(synth.kernel(i, 2000, lineinfo=i % 2 == 0))
                     for i in range(4)]
            size = synth.write_stats(path, [texts[i % 4] for i in range(24)])
            self.assertGreater(size, 25e6)
            loaded = growth("json", path)
            streamed = growth("annotate", path, "--top", "3")
            ptx = growth("annotate", path, "--ptx")
            print(f"\nstats file {size / 1e6:.1f} MB: json.load +{loaded / 1e6:.0f} MB "
                  f"({loaded / size:.2f}x), annotate +{streamed / 1e6:.1f} MB "
                  f"({streamed / size:.2f}x), annotate --ptx +{ptx / 1e6:.1f} MB", file=sys.stderr)
            # json.load alone exceeds the bound: the file is a real test of it.
            self.assertGreater(loaded, 2 * size)
            self.assertLess(streamed, 2 * size)
            self.assertLess(ptx, 2 * size)


if __name__ == "__main__":
    unittest.main(verbosity=2)
