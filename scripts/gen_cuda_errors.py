#!/usr/bin/env python3
"""Generate the cudaError_t name table from the installed toolkit's driver_types.h.

Usage: gen_cuda_errors.py <cuda>/include/driver_types.h out.inc
Each line of out.inc is `{value, "cudaErrorName"},`.
"""
import re
import sys

text = open(sys.argv[1]).read()
m = re.search(r'enum\s+__device_builtin__\s+cudaError\s*\{(.*?)\};', text, re.S)
body = m.group(1) if m else ''
body = re.sub(r'/\*.*?\*/', '', body, flags=re.S)
rows = []
for name, value in re.findall(r'(cuda\w+)\s*=\s*(\d+)', body):
    rows.append(f'{{{value}, "{name}"}},')
open(sys.argv[2], 'w').write('\n'.join(rows) + '\n')
