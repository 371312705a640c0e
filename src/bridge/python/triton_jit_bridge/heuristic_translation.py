"""Heuristic translation: a heuristic lambda or def translated once into the stack program that
the C++ side evaluates per call (src/decorators/heuristic_program.h)."""

import ast
import inspect

import triton

from ._formats import HEURISTIC_MAX_STACK as _HEURISTIC_MAX_STACK  # HeuristicProgram's evaluation stack
from ._formats import HEURISTIC_PROGRAM_VERSION as _HEURISTIC_PROGRAM_VERSION
from .heuristics import HeuristicNotTranslatable, _runtime_dtype, _torch_module


_heuristic_ast_cache = {}  # filename -> (source lines, ast.Module)


def _source_tree(func):
    code = func.__code__
    try:
        lines, _ = inspect.findsource(code)
    except (OSError, TypeError) as e:
        raise HeuristicNotTranslatable(f"its source is not available ({e})") from None
    filename = code.co_filename
    text = "".join(lines)
    cached = _heuristic_ast_cache.get(filename)
    if cached is not None and cached[0] == text:
        return cached[1], filename
    try:
        tree = ast.parse(text, filename)
    except SyntaxError as e:
        raise HeuristicNotTranslatable(f"its source file does not parse ({e})") from None
    _heuristic_ast_cache[filename] = (text, tree)
    return tree, filename


def _same_code(a, b):
    """Whether two code objects were compiled from the same source (line numbers aside)."""
    if a.co_code != b.co_code or a.co_names != b.co_names or a.co_varnames != b.co_varnames:
        return False
    if a.co_freevars != b.co_freevars or a.co_argcount != b.co_argcount:
        return False
    ca = [c for c in a.co_consts if not inspect.iscode(c)]
    cb = [c for c in b.co_consts if not inspect.iscode(c)]
    return len(ca) == len(cb) and all(type(x) is type(y) and repr(x) == repr(y) for x, y in zip(ca, cb))


def _module_imports(tree):
    """Copies of the import statements of the module's own scope (outside functions and classes)."""
    found = []

    def visit(stmts):
        for st in stmts:
            if isinstance(st, (ast.Import, ast.ImportFrom)):
                found.append(st)
            elif not isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                for field in ("body", "orelse", "finalbody", "handlers"):
                    visit(getattr(st, field, None) or [])
                for case in getattr(st, "cases", None) or []:
                    visit(case.body)
    visit(tree.body)
    return found


def _compile_candidate(node, filename, code, tree):
    """The code object `node` (a Lambda or FunctionDef) compiles to, in a wrapper that makes the
    function's free variables closure cells as in the original."""
    import copy
    node = copy.deepcopy(node)
    if isinstance(node, ast.Lambda):
        inner = ast.Return(value=node)
    else:
        inner = node
    body = [ast.Assign(targets=[ast.Name(id=v, ctx=ast.Store())], value=ast.Constant(None))
            for v in code.co_freevars]
    body.append(inner)
    if isinstance(node, ast.FunctionDef):
        body.append(ast.Return(value=ast.Name(id=node.name, ctx=ast.Load())))
    wrapper = ast.FunctionDef(name="_triton_jit_wrapper", args=ast.arguments(
        posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=body, decorator_list=[], returns=None, type_comment=None)
    # Names imported at module level compile differently (CPython 3.11 loads `mod.f` of an imported
    # `mod` as an attribute, not a method): the imports come along, compiled but never run.
    module = ast.Module(body=_module_imports(tree) + [wrapper], type_ignores=[])
    ast.fix_missing_locations(module)
    import builtins  # this module's own `compile` shadows the builtin
    top = builtins.compile(module, filename, "exec", dont_inherit=True)
    found = []

    def walk(c):
        for k in c.co_consts:
            if inspect.iscode(k):
                if k.co_name == code.co_name:
                    found.append(k)
                walk(k)
    walk(top)
    return found


def _find_heuristic_node(func):
    """The Lambda or FunctionDef node `func` was compiled from, checked by compiling it again."""
    code = func.__code__
    tree, filename = _source_tree(func)
    line = code.co_firstlineno
    candidates = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Lambda) and code.co_name == "<lambda>" and node.lineno == line:
            candidates.append(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == code.co_name:
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            if line in (node.lineno, first):
                candidates.append(node)
    matches = []
    for node in candidates:
        try:
            if any(_same_code(c, code) for c in _compile_candidate(node, filename, code, tree)):
                matches.append(node)
        except (SyntaxError, ValueError, TypeError):
            continue
    if not matches:
        raise HeuristicNotTranslatable(
            f"no source matching its code at {filename}:{line} (was the file edited after import?)")
    if len(matches) > 1 and any(ast.dump(m) != ast.dump(matches[0]) for m in matches[1:]):
        raise HeuristicNotTranslatable(f"several different functions at {filename}:{line} match its code")
    return matches[0]


class _HeuristicTranslator:
    """Emits the program of one expression. Instructions are lists of strings, one per line."""

    _BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv", ast.FloorDiv: "floordiv",
               ast.Mod: "mod", ast.Pow: "pow", ast.LShift: "lshift", ast.RShift: "rshift", ast.BitAnd: "bitand",
               ast.BitOr: "bitor", ast.BitXor: "bitxor"}
    _UNARY = {ast.USub: "neg", ast.UAdd: "pos", ast.Invert: "invert", ast.Not: "not"}
    _COMPARE = {ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge"}
    # Stack effect of each instruction (jumps aside).
    _EFFECT = dict({op: -1 for op in list(_BINOPS.values()) + list(_COMPARE.values()) + ["cdiv"]},
                   **{op: 0 for op in ["neg", "pos", "invert", "not", "isnone", "istrue", "isfalse", "abs", "int",
                                       "float", "bool", "next_power_of_2", "dtype_of", "element_size"]})

    def __init__(self, func, param_names, args_name):
        self.func = func
        self.params = {name: i for i, name in enumerate(param_names)}
        self.args_name = args_name
        self.code = []  # [op, operand...]
        self.depth = 0
        self.max_depth = 0
        self.read = set()
        self.labels = {}

    # -- emitting --
    def emit(self, op, *operands, effect=None):
        self.code.append([op, *[str(o) for o in operands]])
        self.depth += self._EFFECT[op] if effect is None else effect
        self.max_depth = max(self.max_depth, self.depth)
        if self.max_depth > _HEURISTIC_MAX_STACK:
            raise HeuristicNotTranslatable(f"the expression nests deeper than {_HEURISTIC_MAX_STACK} values")
        return len(self.code) - 1

    def push(self, *line):
        return self.emit(*line, effect=1)

    def jump(self, op):
        """A forward jump whose target is patched later; returns its index."""
        effect = {"jump": 0, "jump_if_true_or_pop": -1, "jump_if_false_or_pop": -1, "pop_jump_if_false": -1}[op]
        return self.emit(op, "?", effect=effect)

    def patch(self, index):
        self.code[index][1] = str(len(self.code))

    def constant(self, value, what):
        if value is None:
            self.push("none")
        elif isinstance(value, bool):
            self.push("bool", int(value))
        elif isinstance(value, int):
            if not -(2**63) <= value < 2**64:
                raise HeuristicNotTranslatable(f"{what} = {value} is outside the 64-bit range")
            self.push("int", value)
        elif isinstance(value, float):
            self.push("float", value.hex())
        elif isinstance(value, str):
            self.push("str", value.encode("utf-8", "surrogatepass").hex())
        else:
            d = _runtime_dtype(value)
            if d is None:
                raise HeuristicNotTranslatable(
                    f"{what} is a {type(value).__qualname__} ({value!r}); only int, float, bool, None, str and "
                    "dtype values can be constants")
            self.push("dtype", d[0], d[1])

    # -- names --
    def resolve_name(self, name):
        """(found, value) of a free name: closure cell, then module global, then builtin."""
        code = self.func.__code__
        if name in code.co_freevars:
            cell = self.func.__closure__[code.co_freevars.index(name)]
            try:
                return cell.cell_contents
            except ValueError:
                raise HeuristicNotTranslatable(f"the closure variable '{name}' is not set") from None
        g = self.func.__globals__
        if name in g:
            return g[name]
        b = getattr(self.func, "__builtins__", None)
        if b is None:
            b = g.get("__builtins__", {})
        if not isinstance(b, dict):
            b = vars(b)
        if name in b:
            return b[name]
        raise HeuristicNotTranslatable(f"the name '{name}' is not defined")

    def resolve_value(self, node):
        """The object a Name or an Attribute chain over modules names, looked up now."""
        import types
        if isinstance(node, ast.Name):
            if node.id == self.args_name:
                raise HeuristicNotTranslatable(f"'{self.args_name}' is used other than as {self.args_name}['name']")
            return self.resolve_name(node.id)
        if isinstance(node, ast.Attribute):
            base = self.resolve_value(node.value)
            if not isinstance(base, types.ModuleType):
                raise HeuristicNotTranslatable(
                    f"attribute '.{node.attr}' of a {type(base).__qualname__} (only module attributes are read "
                    "at translation time)")
            if not hasattr(base, node.attr):
                raise HeuristicNotTranslatable(f"module {base.__name__} has no attribute '{node.attr}'")
            return getattr(base, node.attr)
        raise HeuristicNotTranslatable(f"{ast.unparse(node)} cannot be resolved at translation time")

    def param_key(self, node):
        """The parameter name of `args[...]` / `args.get(...)`'s key."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            key = node.value
        elif isinstance(node, (ast.Name, ast.Attribute)):
            key = self.resolve_value(node)
            if not isinstance(key, str):
                raise HeuristicNotTranslatable(f"{self.args_name}[{ast.unparse(node)}]: the key is not a string")
        else:
            raise HeuristicNotTranslatable(f"{self.args_name}[{ast.unparse(node)}]: the key is not a constant")
        if key not in self.params:
            raise HeuristicNotTranslatable(f"{self.args_name}[{key!r}]: '{key}' is not a parameter of the function")
        return key

    def is_args(self, node):
        return isinstance(node, ast.Name) and node.id == self.args_name

    # -- expressions --
    def expr(self, node):
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            raise HeuristicNotTranslatable(f"unsupported construct {type(node).__name__}: {ast.unparse(node)}")
        method(node)

    def expr_Constant(self, node):
        self.constant(node.value, repr(node.value))

    def expr_Name(self, node):
        value = self.resolve_value(node)
        self.constant(value, f"'{node.id}'")

    def expr_Attribute(self, node):
        if node.attr == "dtype" and not self._resolvable(node.value):
            if _torch_module() is None:
                raise HeuristicNotTranslatable(".dtype of a tensor argument: torch does not import here, so "
                                               "it would be a Triton dtype")
            self.expr(node.value)
            self.emit("dtype_of")
            return
        if not self._resolvable(node.value):
            raise HeuristicNotTranslatable(
                f"attribute '.{node.attr}' of {ast.unparse(node.value)} (of an argument, only .dtype and "
                ".element_size() are supported)")
        value = self.resolve_value(node)
        self.constant(value, ast.unparse(node))

    def _resolvable(self, node):
        while isinstance(node, ast.Attribute):
            node = node.value
        return isinstance(node, ast.Name) and node.id != self.args_name

    def expr_Subscript(self, node):
        if not self.is_args(node.value):
            raise HeuristicNotTranslatable(f"unsupported subscript {ast.unparse(node)}")
        index = node.slice
        if isinstance(index, getattr(ast, "Index", ())):  # Python 3.8
            index = index.value
        key = self.param_key(index)
        self.read.add(self.params[key])
        self.push("param", self.params[key])

    def expr_BinOp(self, node):
        op = self._BINOPS.get(type(node.op))
        if op is None:
            raise HeuristicNotTranslatable(f"unsupported operator {type(node.op).__name__}: {ast.unparse(node)}")
        self.expr(node.left)
        self.expr(node.right)
        self.emit(op)

    def expr_UnaryOp(self, node):
        self.expr(node.operand)
        self.emit(self._UNARY[type(node.op)])

    def expr_BoolOp(self, node):
        op = "jump_if_false_or_pop" if isinstance(node.op, ast.And) else "jump_if_true_or_pop"
        jumps = []
        for value in node.values[:-1]:
            self.expr(value)
            jumps.append(self.jump(op))
        self.expr(node.values[-1])
        for j in jumps:
            self.patch(j)

    def expr_IfExp(self, node):
        self.expr(node.test)
        to_else = self.jump("pop_jump_if_false")
        self.expr(node.body)
        to_end = self.jump("jump")
        self.depth -= 1  # the else branch starts without the body's value
        self.patch(to_else)
        self.expr(node.orelse)
        self.patch(to_end)

    def compare_one(self, left, op, right):
        if isinstance(op, (ast.Is, ast.IsNot)):
            other = None
            for a, b in ((left, right), (right, left)):
                if isinstance(b, ast.Constant) and (b.value is None or isinstance(b.value, bool)):
                    other = (a, b.value)
                    break
            if other is None:
                raise HeuristicNotTranslatable(
                    f"'is' with something other than None, True or False: {ast.unparse(left)} "
                    f"{'is' if isinstance(op, ast.Is) else 'is not'} {ast.unparse(right)}")
            self.expr(other[0])
            self.emit({None: "isnone", True: "istrue", False: "isfalse"}[other[1]])
            if isinstance(op, ast.IsNot):
                self.emit("not")
            return
        name = self._COMPARE.get(type(op))
        if name is None:
            raise HeuristicNotTranslatable(f"unsupported comparison {type(op).__name__}")
        self.expr(left)
        self.expr(right)
        self.emit(name)

    def expr_Compare(self, node):
        # a < b < c is (a < b) and (b < c) with b evaluated once; evaluating a pure b twice is the same.
        jumps = []
        left = node.left
        for i, (op, right) in enumerate(zip(node.ops, node.comparators)):
            self.compare_one(left, op, right)
            if i + 1 < len(node.ops):
                jumps.append(self.jump("jump_if_false_or_pop"))
            left = right
        for j in jumps:
            self.patch(j)

    def expr_Call(self, node):
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise HeuristicNotTranslatable(f"a call with keyword or starred arguments: {ast.unparse(node)}")
        f = node.func
        # Methods of arguments: args.get('x'), args['x'].element_size().
        if isinstance(f, ast.Attribute) and self.is_args(f.value):
            if f.attr != "get" or not 1 <= len(node.args) <= 2:
                raise HeuristicNotTranslatable(f"unsupported use of {self.args_name}: {ast.unparse(node)}")
            if len(node.args) == 2 and not isinstance(node.args[1], ast.Constant):
                raise HeuristicNotTranslatable(f"{ast.unparse(node)}: the default is not a constant")
            key = self.param_key(node.args[0])
            self.read.add(self.params[key])
            self.push("param", self.params[key])
            return
        if isinstance(f, ast.Attribute) and f.attr == "element_size" and not self._resolvable(f.value):
            if node.args:
                raise HeuristicNotTranslatable(f"element_size() takes no arguments: {ast.unparse(node)}")
            self.expr(f.value)
            self.emit("element_size")
            return
        if not isinstance(f, (ast.Name, ast.Attribute)) or not self._resolvable(f):
            raise HeuristicNotTranslatable(f"unsupported call {ast.unparse(node)}")
        callee = self.resolve_value(f)
        import builtins
        n = len(node.args)
        known = [(builtins.min, "min", None), (builtins.max, "max", None), (builtins.abs, "abs", 1),
                 (builtins.int, "int", 1), (builtins.float, "float", 1), (builtins.bool, "bool", 1),
                 (triton.next_power_of_2, "next_power_of_2", 1), (triton.cdiv, "cdiv", 2)]
        for obj, op, arity in known:
            if callee is obj:
                break
        else:
            raise HeuristicNotTranslatable(
                f"call of {ast.unparse(f)} ({type(callee).__qualname__}); supported: min, max, abs, int, float, "
                "bool, triton.next_power_of_2, triton.cdiv")
        if arity is None and n < 2:
            raise HeuristicNotTranslatable(f"{op}() with {n} argument(s) (an iterable): {ast.unparse(node)}")
        if arity is not None and n != arity:
            raise HeuristicNotTranslatable(f"{op}() with {n} argument(s): {ast.unparse(node)}")
        for a in node.args:
            self.expr(a)
        if arity is None:
            self.emit(op, n, effect=-(n - 1))
        else:
            self.emit(op)

    def text(self):
        lines = [f"heuristic-program {_HEURISTIC_PROGRAM_VERSION}"]
        lines += [" ".join(parts) for parts in self.code]
        return "\n".join(lines) + "\n"


def translate_heuristic(func, param_names):
    """(program text, "") for a heuristic in the supported subset, else (None, reason)."""
    try:
        code = getattr(func, "__code__", None)
        if code is None or not inspect.isfunction(func):
            raise HeuristicNotTranslatable(f"it is a {type(func).__qualname__}, not a Python function")
        node = _find_heuristic_node(func)
        a = node.args
        if (len(a.args) + len(getattr(a, "posonlyargs", [])) != 1 or a.vararg or a.kwarg or a.kwonlyargs
                or a.defaults):
            raise HeuristicNotTranslatable("it does not take exactly one argument (the args mapping)")
        args_name = (getattr(a, "posonlyargs", []) + a.args)[0].arg
        if isinstance(node, ast.Lambda):
            body = node.body
        else:
            stmts = node.body
            if stmts and isinstance(stmts[0], ast.Expr) and isinstance(stmts[0].value, ast.Constant) \
                    and isinstance(stmts[0].value.value, str):
                stmts = stmts[1:]  # a docstring
            if len(stmts) != 1 or not isinstance(stmts[0], ast.Return) or stmts[0].value is None:
                kinds = ", ".join(type(s).__name__ for s in stmts)
                raise HeuristicNotTranslatable(f"the def is not a single `return <expression>` (it has: {kinds})")
            if node.decorator_list:
                raise HeuristicNotTranslatable("the def is decorated")
            body = stmts[0].value
        t = _HeuristicTranslator(func, list(param_names), args_name)
        t.expr(body)
        assert t.depth == 1, t.depth
        return t.text(), ""
    except HeuristicNotTranslatable as e:
        return None, str(e)
    except RecursionError:
        return None, "the expression is too deeply nested"
    except Exception as e:  # noqa: BLE001 - a translator failure keeps the heuristic in Python
        return None, f"the translator failed: {type(e).__name__}: {e}"
