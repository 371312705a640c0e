"""A module to preload whose import fails, as a library's registration may."""
raise RuntimeError("registration of preload_broken failed")
