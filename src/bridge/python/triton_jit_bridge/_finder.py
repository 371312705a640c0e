"""How the embedded copy of this package is imported: the C++ side compiles a table of its module
sources into libtriton_jit_python (cmake/embed_bridge.cmake), and the embedded interpreter, the
fork server and each compile worker run this file from that table, then install(table), before
they use the package. Each module's file is named triton_jit_bridge/NAME.py, so tracebacks name
the real module, and the loader's get_source gives linecache (and so tracebacks) its lines.

Imported from the source tree instead (src/bridge/python on sys.path, as the tests do), the
package is an ordinary one and this file is not used."""

import importlib
import importlib.machinery
import sys

PACKAGE = "triton_jit_bridge"


class EmbeddedModules:
    """A meta-path finder and loader of the modules in `table`: (module name, file name, source)."""

    def __init__(self, table):
        self.table = [tuple(entry) for entry in table]
        self._sources = {name: (path, source) for name, path, source in self.table}

    def find_spec(self, fullname, path=None, target=None):
        entry = self._sources.get(fullname)
        if entry is None:
            return None
        spec = importlib.machinery.ModuleSpec(fullname, self, origin=entry[0],
                                              is_package=entry[0].endswith("/__init__.py"))
        spec.has_location = True  # __file__ is the module's file name
        return spec

    def create_module(self, spec):
        return None  # the default module

    def exec_module(self, module):
        exec(self.get_code(module.__spec__.name), module.__dict__)

    def get_source(self, fullname):
        return self._sources[fullname][1]

    def get_code(self, fullname):
        path, source = self._sources[fullname]
        return compile(source, path, "exec", dont_inherit=True)

    def is_package(self, fullname):
        return self._sources[fullname][0].endswith("/__init__.py")


def install(table):
    """Puts a finder of `table`'s modules first on sys.meta_path and returns the package imported
    from it. A copy of the package imported before from elsewhere (a source tree on sys.path) is
    dropped from sys.modules first: the runtime uses the copy it was built with."""
    for finder in sys.meta_path:
        if type(finder).__name__ == EmbeddedModules.__name__ and getattr(finder, "table", None) == list(table):
            break
    else:
        finder = EmbeddedModules(table)
        sys.meta_path.insert(0, finder)
    loaded = sys.modules.get(PACKAGE)
    if loaded is not None and getattr(getattr(loaded, "__spec__", None), "loader", None) is not finder:
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
            del sys.modules[name]
    return importlib.import_module(PACKAGE)
