#!/bin/sh
# Regenerates the fatbin fixtures in this folder from src/*.cu with nvcc 13 (see README.md).
# Needs nvcc, objcopy. Usage: tests/data/fatbin/make_fixtures.sh   (run from anywhere)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cp "$here"/src/*.cu .

build() {  # build <name> <source(s)> -- <nvcc flags>
  name=$1; shift
  srcs=""
  while [ "$1" != "--" ]; do srcs="$srcs $1"; shift; done
  shift
  nvcc -cudart shared "$@" -o "$name" $srcs
  objcopy -O binary --only-section=.nv_fatbin "$name" "$here/$name.fatbin"
}

build vecadd_default vecadd.cu --
build vecadd_size    vecadd.cu -- --compress-mode=size
build vecadd_speed   vecadd.cu -- --compress-mode=speed
build vecadd_none    vecadd.cu -- --compress-mode=none
build vecadd_debug   vecadd.cu -- -G
build vecadd_multi   vecadd.cu -- -gencode arch=compute_75,code=compute_75 -gencode arch=compute_80,code=sm_80
build vecadd_sass    vecadd.cu -- -gencode arch=compute_80,code=sm_80
build vecadd_archs   vecadd.cu -- -gencode arch=compute_75,code=compute_75 \
    -gencode arch=compute_90,code=compute_90 -gencode 'arch=compute_100,code=[sm_100,compute_100]'
build smem_default   smem.cu --
build rdc            rdc_a.cu rdc_b.cu -- -rdc=true
mv "$here/rdc.fatbin" "$here/rdc_nv_fatbin.fatbin"
objcopy -O binary --only-section=__nv_relfatbin rdc "$here/rdc_nv_relfatbin.fatbin"
cp rdc "$here/rdc_app"

# Resource usage as printed by ptxas/nvlink, for the cubin_kernels() expectations.
{
  echo "### nvcc -cubin -arch=sm_75 -Xptxas -v smem.cu"
  nvcc -cubin -arch=sm_75 -Xptxas -v -o /dev/null smem.cu 2>&1
  echo "### nvcc -cubin -arch=sm_75 -Xptxas -v vecadd.cu"
  nvcc -cubin -arch=sm_75 -Xptxas -v -o /dev/null vecadd.cu 2>&1
  echo "### nvcc -cubin -arch=sm_75 -G -Xptxas -v vecadd.cu"
  nvcc -cubin -arch=sm_75 -G -Xptxas -v -o /dev/null vecadd.cu 2>&1
  echo "### nvcc -cubin -arch=sm_80 -Xptxas -v vecadd.cu"
  nvcc -cubin -arch=sm_80 -Xptxas -v -o /dev/null vecadd.cu 2>&1
  echo "### nvcc -cubin -arch=sm_100 -Xptxas -v vecadd.cu"
  nvcc -cubin -arch=sm_100 -Xptxas -v -o /dev/null vecadd.cu 2>&1
  echo "### nvcc -cudart shared -rdc=true -Xptxas -v -Xnvlink -v rdc_a.cu rdc_b.cu"
  nvcc -cudart shared -rdc=true -Xptxas -v -Xnvlink -v -o rdc_v rdc_a.cu rdc_b.cu 2>&1
} | grep -v 'Compile time' > "$here/ptxas_v.txt"
ls -l "$here"
