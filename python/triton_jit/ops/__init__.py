"""Operations written once with triton_jit.Function."""
from ._dot import Dot, dot, matmul

__all__ = ["dot", "Dot", "matmul"]
