"""A package for the module:MODULE:FUNCTION cases: its __init__ sets the default block size its
kernel module imports relatively."""
DEFAULT_BLOCK = 256
