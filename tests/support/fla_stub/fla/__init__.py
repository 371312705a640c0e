"""A stand-in for flash-linear-attention (tests/support/fla_stub/README.md)."""
