#!/usr/bin/env python3
"""Copy a CUDA program and corrupt its fatbin, then run it under simtlab: the program must get
a CUDA error and exit normally (no crash), and simtlab must say what is wrong.

Usage: corrupt_fatbin.py SIMTLAB PROGRAM WORKDIR [MODE]
  MODE ptx (default): scramble the compressed PTX payloads.
  MODE header_size / payload_size: set every container's header size to 0xffff / payload size to
  0xfffffff0, so that the container claims to run far past the program's data (issue #10: the
  reader used to follow it out of bounds and segfault at registration); the error must say so.
"""
import os
import shutil
import struct
import subprocess
import sys

simtlab, prog, work = sys.argv[1:4]
mode = sys.argv[4] if len(sys.argv) > 4 else "ptx"
os.makedirs(work, exist_ok=True)
bad = os.path.join(work, "corrupt_" + mode + "_" + os.path.basename(prog))
shutil.copy(prog, bad)
data = bytearray(open(bad, "rb").read())
hit = 0
pos = data.find(struct.pack("<I", 0xBA55ED50))
while pos >= 0:
    hsize, = struct.unpack_from("<H", data, pos + 6)
    payload, = struct.unpack_from("<Q", data, pos + 8)
    e = pos + hsize
    if mode == "header_size":
        struct.pack_into("<H", data, pos + 6, 0xFFFF)
        hit += 1
    elif mode == "payload_size":
        struct.pack_into("<Q", data, pos + 8, 0xFFFFFFF0)
        hit += 1
    while mode == "ptx" and e < pos + hsize + payload:
        kind, = struct.unpack_from("<H", data, e)
        ehsize, = struct.unpack_from("<I", data, e + 4)
        esize, = struct.unpack_from("<Q", data, e + 8)
        if kind == 1 and esize >= 16:  # a PTX entry: scramble its payload
            for i in range(e + ehsize, e + ehsize + min(esize, 4096)):
                data[i] ^= 0x5A
            hit += 1
        e += ehsize + esize
    pos = data.find(struct.pack("<I", 0xBA55ED50), pos + 4)
if not hit:
    sys.exit("FAIL: no fatbin container or PTX entry found to corrupt")
open(bad, "wb").write(data)
os.chmod(bad, 0o755)
r = subprocess.run([simtlab, "run", "--quiet", "--", bad], capture_output=True, text=True)
print(r.stdout)
print(r.stderr)
if r.returncode < 0 or r.returncode >= 128:
    sys.exit(f"FAIL: the program died with status {r.returncode}")
if r.returncode == 0 or "PASSED" in r.stdout:
    sys.exit("FAIL: the corrupt program did not see an error")
if "simtlab:" not in r.stderr:
    sys.exit("FAIL: simtlab printed no explanation")
if mode != "ptx" and "run past the end of the data" not in r.stderr:
    sys.exit("FAIL: the explanation does not say the container runs past the end of the data")
print(f"corrupt fatbin OK: exit status {r.returncode}")
