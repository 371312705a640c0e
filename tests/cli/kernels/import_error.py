"""Fails at import: the CLI must report one line (the traceback only with --verbose)."""
import triton

raise RuntimeError("this kernel file fails to import\non purpose")
