#!/usr/bin/env bash
# scripts/gpu_platform.sh's detection, on made-up machines: a folder of stand-in commands first on
# PATH (nvidia-smi, rocminfo, rocm-smi, ldconfig) and TJ_GPU_ROOT for /dev/kfd, /opt/rocm and the
# KFD topology. Then `gpu-check.sh --detect` on this machine as it is, which must name what it
# found, or say plainly that there is no GPU.
#   gpu_platform_test.sh WORK_DIR
set -euo pipefail
work=$1
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
rm -rf "$work"
mkdir -p "$work"

# machine NAME: an empty machine (every stand-in command fails) to add to.
machine() {
  local m="$work/$1"
  mkdir -p "$m/bin" "$m/root"
  for c in nvidia-smi rocminfo rocm-smi ldconfig; do
    printf '#!/bin/sh\nexit 9\n' >"$m/bin/$c"
    chmod +x "$m/bin/$c"
  done
  echo "$m"
}
# stand_in MACHINE COMMAND OUTPUT: COMMAND prints OUTPUT and succeeds.
stand_in() {
  printf '#!/bin/sh\ncat <<"END"\n%s\nEND\n' "$3" >"$1/bin/$2"
  chmod +x "$1/bin/$2"
}
# detect MACHINE: "PLATFORM|ARCH|LIBRARY|NOTE" as the script finds them there.
detect() {
  env -u TRITON_JIT_HIP_LIBRARY -u ROCM_PATH PATH="$1/bin:/usr/bin:/bin" TJ_GPU_ROOT="$1/root" bash -c \
    'source "$0/scripts/gpu_platform.sh"; tj_detect_gpu_platform
     echo "$GPU_PLATFORM|$GPU_ARCH|$GPU_HIP_LIBRARY|$GPU_PLATFORM_NOTE"' "$repo"
}
expect() {
  local got
  got=$(detect "$1")
  [[ $got == $2 ]] || fail "$(basename "$1"): expected $2, got $got"
  echo "ok $(basename "$1"): $got"
}
rocm_device() {  # /dev/kfd and libamdhip64 under /opt/rocm
  mkdir -p "$1/root/dev" "$1/root/opt/rocm/lib"
  touch "$1/root/dev/kfd" "$1/root/opt/rocm/lib/libamdhip64.so"
}

m=$(machine nothing)
expect "$m" "none|||no GPU: nvidia-smi lists no GPU; no ROCm device (/dev/kfd missing, gfx processor not found*, libamdhip64 not found*)"

m=$(machine nvidia)
stand_in "$m" nvidia-smi "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)
GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-1)"
rocm_device "$m"  # NVIDIA wins, as the runtime loads libcuda first
expect "$m" "nvidia|||NVIDIA: 2 GPU(s) listed by nvidia-smi"

m=$(machine mi300)
rocm_device "$m"
stand_in "$m" rocminfo "Agent 1
  Name:                    AMD EPYC 9654 96-Core Processor
Agent 2
  Name:                    gfx942
  Marketing Name:          AMD Instinct MI300X"
expect "$m" "rocm|gfx942|$m/root/opt/rocm/lib/libamdhip64.so|AMD (ROCm): target hip:gfx942 (from rocminfo), HIP runtime $m/root/opt/rocm/lib/libamdhip64.so"

m=$(machine rdna3-smi)
rocm_device "$m"
stand_in "$m" rocm-smi "GPU[0]		: Card Series: 		Radeon RX 7900 XTX
GPU[0]		: GFX Version: 		gfx1100"
expect "$m" "rocm|gfx1100|*|AMD (ROCm): target hip:gfx1100 (from rocm-smi)*"

# No ROCm tools at all: the KFD topology's gfx_target_version (a CPU node first), and the HIP
# runtime from ldconfig's cache.
m=$(machine mi210-sysfs)
mkdir -p "$m/root/dev" "$m/root/sys/class/kfd/kfd/topology/nodes/0" "$m/root/sys/class/kfd/kfd/topology/nodes/1"
touch "$m/root/dev/kfd"
printf 'cpu_cores_count 64\ngfx_target_version 0\n' >"$m/root/sys/class/kfd/kfd/topology/nodes/0/properties"
printf 'simd_count 416\ngfx_target_version 90010\n' >"$m/root/sys/class/kfd/kfd/topology/nodes/1/properties"
stand_in "$m" ldconfig "	libamdhip64.so.6 (libc6,x86-64) => /opt/rocm-6.2.0/lib/libamdhip64.so.6"
expect "$m" "rocm|gfx90a|/opt/rocm-6.2.0/lib/libamdhip64.so.6|AMD (ROCm): target hip:gfx90a (from the KFD topology)*"

# An AMD GPU without the HIP runtime cannot launch: no GPU, saying which part is missing.
m=$(machine no-hip)
mkdir -p "$m/root/dev"
touch "$m/root/dev/kfd"
stand_in "$m" rocminfo "  Name:                    gfx950"
expect "$m" "none|||no GPU: nvidia-smi lists no GPU; no ROCm device (/dev/kfd present, gfx processor gfx950, libamdhip64 not found*)"

# This machine as it is: the answer must be one of the three, with its line.
out=$(bash "$repo/scripts/gpu-check.sh" --detect) || fail "gpu-check.sh --detect failed: $out"
echo "this machine: $out"
case "$out" in
  "platform: nvidia"*NVIDIA:*|"platform: rocm"*"AMD (ROCm): target hip:gfx"*|"platform: none"*"no GPU: "*) ;;
  *) fail "gpu-check.sh --detect printed: $out" ;;
esac
echo "gpu_platform_test: all cases passed"
