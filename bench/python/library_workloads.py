"""Real libraries' forward and backward passes, each a workload of kernels launched the way the
library launches them: Liger-Kernel's functional ops and flash-linear-attention's (fla) chunked ops.
Shared by bench/python/install_bench.py and tests/python/test_install_libraries_gpu.py, which run
each with Triton's own launch and under triton_jit.install() and compare the results bit for bit.
Needs a GPU, liger_kernel and fla (.carry/wheels on the GPU machine).
"""

SEED = 1234


def workloads(torch):
    """{name: (make_inputs, run)}: run(inputs) -> list of tensors to compare (outputs, grads)."""
    import liger_kernel.transformers.functional as LF
    dev = "cuda"
    bf16 = torch.bfloat16

    def grads(inputs):
        return [t.grad for t in inputs if isinstance(t, torch.Tensor) and t.grad is not None]

    def rms_norm_inputs():
        return [torch.randn(512, 1024, device=dev, dtype=bf16, requires_grad=True),
                torch.randn(1024, device=dev, dtype=bf16, requires_grad=True),
                torch.randn(512, 1024, device=dev, dtype=bf16)]

    def rms_norm(x):
        y = LF.liger_rms_norm(x[0], x[1], 1e-6)
        y.backward(x[2])
        return [y.detach()] + grads(x[:2])

    def layer_norm_inputs():
        return [torch.randn(512, 1024, device=dev, dtype=bf16, requires_grad=True),
                torch.randn(1024, device=dev, dtype=bf16, requires_grad=True),
                torch.randn(1024, device=dev, dtype=bf16, requires_grad=True),
                torch.randn(512, 1024, device=dev, dtype=bf16)]

    def layer_norm(x):
        y = LF.liger_layer_norm(x[0], x[1], x[2], 1e-6)
        y.backward(x[3])
        return [y.detach()] + grads(x[:3])

    def glu_inputs():
        return [torch.randn(512, 2048, device=dev, dtype=bf16, requires_grad=True),
                torch.randn(512, 2048, device=dev, dtype=bf16, requires_grad=True),
                torch.randn(512, 2048, device=dev, dtype=bf16)]

    def swiglu(x):
        y = LF.liger_swiglu(x[0], x[1])
        y.backward(x[2])
        return [y.detach()] + grads(x[:2])

    def geglu(x):
        y = LF.liger_geglu(x[0], x[1])
        y.backward(x[2])
        return [y.detach()] + grads(x[:2])

    def cross_entropy_inputs():
        return [torch.randn(256, 4096, device=dev, dtype=torch.float32, requires_grad=True),
                torch.randint(0, 4096, (256, ), device=dev)]

    def cross_entropy(x):
        loss = LF.liger_cross_entropy(x[0], x[1])
        loss.backward()
        return [loss.detach()] + grads(x[:1])

    def gla_inputs():
        B, T, H, K = 2, 256, 4, 64
        q, k, v = (torch.randn(B, T, H, K, device=dev, dtype=bf16) for _ in range(3))
        g = torch.nn.functional.logsigmoid(torch.randn(B, T, H, device=dev, dtype=torch.float32))
        do = torch.randn(B, T, H, K, device=dev, dtype=bf16)
        return [q.requires_grad_(), k.requires_grad_(), v.requires_grad_(), g.requires_grad_(), do]

    # fla's chunked ops forward only: fla 0.6 refuses their backward on Hopper with Triton older
    # than 3.7.1 (a Triton bug it names, fla issue 640), the Triton the GPU machine has.
    def simple_gla(x):
        from fla.ops.simple_gla import chunk_simple_gla
        with torch.no_grad():
            o, _ = chunk_simple_gla(x[0], x[1], x[2], x[3])
        return [o]

    def gdn_inputs():
        B, T, H, K = 2, 256, 4, 64
        q = torch.randn(B, T, H, K, device=dev, dtype=bf16)
        k = torch.nn.functional.normalize(torch.randn(B, T, H, K, device=dev, dtype=torch.float32), dim=-1).to(bf16)
        v = torch.randn(B, T, H, K, device=dev, dtype=bf16)
        g = torch.nn.functional.logsigmoid(torch.randn(B, T, H, device=dev, dtype=torch.float32))
        beta = torch.rand(B, T, H, device=dev, dtype=bf16).sigmoid()
        do = torch.randn(B, T, H, K, device=dev, dtype=bf16)
        return [q.requires_grad_(), k.requires_grad_(), v.requires_grad_(), g.requires_grad_(), beta.requires_grad_(), do]

    def gated_delta_rule(x):
        from fla.ops.gated_delta_rule import chunk_gated_delta_rule
        with torch.no_grad():
            o, _ = chunk_gated_delta_rule(x[0], x[1], x[2], x[3], x[4])
        return [o]

    return {
        "liger rms_norm": (rms_norm_inputs, rms_norm),
        "liger layer_norm": (layer_norm_inputs, layer_norm),
        "liger swiglu": (glu_inputs, swiglu),
        "liger geglu": (glu_inputs, geglu),
        "liger cross_entropy": (cross_entropy_inputs, cross_entropy),
        "fla chunk_simple_gla (forward)": (gla_inputs, simple_gla),
        "fla chunk_gated_delta_rule (forward)": (gdn_inputs, gated_delta_rule),
    }


def seeded_inputs(torch, make):
    """The workload's inputs, the same on every call."""
    torch.manual_seed(SEED)
    return make()
