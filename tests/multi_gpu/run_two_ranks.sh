#!/usr/bin/env bash
# The two-rank serving test (serve_two_ranks.py) on a machine with two GPUs: builds the kernel
# pack both ranks load, then starts them with torchrun on one shared index. Exits 77 (ctest's
# skip) with the reason when there are fewer than two GPUs or no NCCL.
#
#   run_two_ranks.sh PYTHON TRITON_JIT_CLI WORK_DIR [ITERATIONS]
set -uo pipefail
py=$1 cli=$2 work=$3 iterations=${4:-30}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

why=$("$py" - <<'PY'
import torch
import torch.distributed as dist
if torch.cuda.device_count() < 2:
    print(f"needs two CUDA GPUs; this machine has {torch.cuda.device_count()}")
elif not dist.is_nccl_available():
    print("needs NCCL (torch.distributed.is_nccl_available() is False)")
PY
)
if [[ -n $why ]]; then
  echo "SKIP: $why"
  exit 77
fi

rm -rf "$work" && mkdir -p "$work" || exit 1
target=$("$py" -c "import torch; a, b = torch.cuda.get_device_capability(0); print(f'cuda:{a}{b}')") || exit 1
# The package kernel's launches with n a multiple of 16 come from the pack; those with n = 1000
# and every operator's kernel are outside it and compile on the first miss.
echo "$here/serving_kernels.py:axpy_kernel *fp32:16,*fp32:16,*fp32:16,fp32,i32:16,1024 target=$target" \
  >"$work/serving.manifest"
TRITON_JIT_INDEX_DIR="$work/pack-index" TRITON_CACHE_DIR="$work/pack-triton" \
  "$cli" pack "$work/serving.manifest" --out "$work/serving.tjp" || exit 1

export TRITON_JIT_INDEX_DIR="$work/index" TRITON_JIT_PACKS="$work/serving.tjp"
"$py" -m torch.distributed.run --standalone --nnodes=1 --nproc_per_node=2 \
  "$here/serve_two_ranks.py" "$work" "$iterations"
