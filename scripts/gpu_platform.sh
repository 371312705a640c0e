# Which GPU this machine has, for scripts/gpu-check.sh: sourced, then tj_detect_gpu_platform sets
#   GPU_PLATFORM       nvidia, rocm or none
#   GPU_ARCH           the AMD device's gfx processor (gfx942) on rocm; empty otherwise
#   GPU_HIP_LIBRARY    the HIP runtime found on rocm (libamdhip64.so's path)
#   GPU_PLATFORM_NOTE  one line saying what was found, or why neither GPU was
# NVIDIA first, as the runtime loads libcuda first: nvidia-smi lists a GPU. Else ROCm: the kernel
# driver's /dev/kfd, a gfx processor (rocminfo, else rocm-smi, else the KFD topology in sysfs)
# and libamdhip64 (TRITON_JIT_HIP_LIBRARY, $ROCM_PATH/lib, /opt/rocm/lib, else ldconfig's cache).
# TJ_GPU_ROOT prefixes the files looked at (/dev, /sys, /opt), for tests (tests/scripts).

# The gfx name of a KFD gfx_target_version (90402: gfx942, 90010: gfx90a, 110000: gfx1100).
tj_gfx_of_target_version() {
  local v=$1
  printf 'gfx%d%x%x\n' $(( v / 10000 )) $(( v / 100 % 100 )) $(( v % 100 ))
}

tj_detect_gpu_platform() {
  local root=${TJ_GPU_ROOT:-}
  GPU_PLATFORM=none
  GPU_ARCH=""
  GPU_HIP_LIBRARY=""
  GPU_PLATFORM_NOTE=""

  local listing nvidia_why
  if listing=$(nvidia-smi -L 2>/dev/null) && grep -q '^GPU ' <<<"$listing"; then
    GPU_PLATFORM=nvidia
    GPU_PLATFORM_NOTE="NVIDIA: $(grep -c '^GPU ' <<<"$listing") GPU(s) listed by nvidia-smi"
    return 0
  fi
  if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia_why="nvidia-smi lists no GPU"
  else
    nvidia_why="no nvidia-smi"
  fi

  local library="" candidate
  for candidate in "${TRITON_JIT_HIP_LIBRARY:-}" ${ROCM_PATH:+"$root$ROCM_PATH/lib/libamdhip64.so"} \
                   "$root/opt/rocm/lib/libamdhip64.so"; do
    if [[ -n $candidate && -e $candidate ]]; then
      library=$candidate
      break
    fi
  done
  if [[ -z $library ]]; then
    library=$(ldconfig -p 2>/dev/null | sed -n 's/^[[:space:]]*libamdhip64\.so[^=]*=> *//p' | head -1)
  fi

  local arch="" source=""
  if command -v rocminfo >/dev/null 2>&1; then
    arch=$(rocminfo 2>/dev/null | sed -n 's/^[[:space:]]*Name:[[:space:]]*\(gfx[0-9a-f]*\).*/\1/p' | head -1)
    source=rocminfo
  fi
  if [[ -z $arch ]] && command -v rocm-smi >/dev/null 2>&1; then
    arch=$(rocm-smi --showproductname 2>/dev/null | sed -n 's/.*GFX Version:[[:space:]]*\(gfx[0-9a-f]*\).*/\1/p' |
           head -1)
    source=rocm-smi
  fi
  if [[ -z $arch ]]; then
    local properties version
    for properties in "$root"/sys/class/kfd/kfd/topology/nodes/*/properties; do
      [[ -r $properties ]] || continue
      version=$(awk '$1 == "gfx_target_version" { print $2 }' "$properties")
      if [[ -n $version && $version -gt 0 ]]; then  # 0: a CPU node
        arch=$(tj_gfx_of_target_version "$version")
        source="the KFD topology"
        break
      fi
    done
  fi

  local kfd=missing
  [[ -e $root/dev/kfd ]] && kfd=present
  if [[ $kfd == present && -n $arch && -n $library ]]; then
    GPU_PLATFORM=rocm
    GPU_ARCH=$arch
    GPU_HIP_LIBRARY=$library
    GPU_PLATFORM_NOTE="AMD (ROCm): target hip:$arch (from $source), HIP runtime $library"
    return 0
  fi
  GPU_PLATFORM_NOTE="no GPU: $nvidia_why; no ROCm device (/dev/kfd $kfd, gfx processor ${arch:-not found (rocminfo, rocm-smi, KFD topology)}, libamdhip64 ${library:-not found (TRITON_JIT_HIP_LIBRARY, \$ROCM_PATH/lib, /opt/rocm/lib, ldconfig)})"
  return 0
}
