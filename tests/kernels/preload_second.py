"""A module to preload that records when it was imported (preload_registry.ORDER)."""
import preload_registry

preload_registry.ORDER.append("preload_second")
