"""Filled in by the modules that import it, as libraries register things at import: VALUES by
pkgdemo's __init__, ORDER by every module below that records when it was imported."""
VALUES = {}
ORDER = []
