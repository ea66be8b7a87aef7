"""What a piece of code may change in the user's namespace, read from its syntax before it runs.

The code is read after IPython's transform (`%time x = …` is `get_ipython().run_line_magic('time', 'x = …')`),
so magics are seen as the calls they are. Two answers:

- **rebinds**: top-level names it may bind or delete — assignments (also augmented, annotated, walrus, `for`
  and `with … as` targets), `del`, imports, `def` and `class`, `except … as`, `match` captures, and names a
  function declares `global`. Undo keeps the old objects by reference, so these cost nothing; the namespace
  itself is compared after the call, so a rebinding the syntax does not show (`globals()[…] = …`, `%run`) is
  undone too.
- **mutates**: names whose objects it may change in place, and so are copied before the call — attributes
  and subscripts written or deleted (`x.a = 1`, `x[0] += 1`, `del x[k]`), `x += …` (a list grows in place),
  a method called on a name (`x.append(…)`, `model.fit(…)`; a known read-only one such as `df.head()` is not,
  unless it says `inplace=True`), a name passed straight to a function (`f(x)`, `f(x.a)`, `f(x[0])`; not to a
  known read-only one such as `print` or `len`), and `out=x`. Function bodies the code defines are read too.

What it cannot see is said in docs/guide/review-and-undo.md: a function defined earlier that changes a global it was not given,
state held by C extensions, files, databases, the network. `opaque` lists what the code hands to something
the analysis cannot read (`%run`, `exec`, `globals()`), so the approval can say so.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import CodeType
from typing import Any, cast


def _words(*lines: str) -> frozenset[str]:
    return frozenset(" ".join(lines).split())


#: Functions that change neither their arguments nor anything the arguments hold (by their last name).
READ_ONLY_FUNCTIONS = _words(
    "abs all any ascii bin bool bytes callable chr complex dict dir divmod enumerate float format",
    "frozenset getattr hasattr hash hex id int isinstance issubclass iter len list max min oct ord",
    "pow print range repr reversed round set slice sorted str sum tuple type zip",
    "display HTML Markdown Image JSON deepcopy copy dumps pformat pprint",
    "array asarray concatenate stack vstack hstack concat merge DataFrame Series Index",
    "mean median std var nanmean nansum allclose array_equal isclose unique shape",
    "plot scatter hist bar barh imshow boxplot heatmap histplot lineplot scatterplot figure",
)
#: Methods that change neither the object they are called on nor their arguments (`inplace=True` aside).
READ_ONLY_METHODS = _words(
    "head tail describe info copy sample count nunique unique value_counts memory_usage equals",
    "sum mean median min max std var prod quantile cumsum cumprod corr cov abs round clip",
    "isna isnull notna notnull isin between any all idxmax idxmin argmax argmin nonzero",
    "astype to_numpy to_list tolist to_dict to_frame to_string to_markdown to_html to_records",
    "groupby rolling expanding resample agg aggregate pivot pivot_table melt explode stack unstack",
    "merge join concat query filter where mask dropna fillna sort_values sort_index reset_index",
    "set_index rename drop drop_duplicates duplicated replace reindex assign select select_dtypes",
    "apply map applymap transform pipe plot hist get keys values items index find rfind",
    "startswith endswith split rsplit strip lstrip rstrip lower upper title format encode decode",
    "reshape ravel flatten transpose dot matmul view squeeze predict predict_proba score",
    "with_columns select_columns collect lazy clone to_pandas to_arrow",
)
#: Methods that change the object they are called on but not their arguments.
RECEIVER_ONLY_METHODS = _words(
    "append extend insert remove pop popitem clear update setdefault add discard sort reverse",
    "fit partial_fit fit_transform set_params load_state_dict train eval zero_grad step",
    "resize fill put itemset setflags seek truncate write writelines close",
)
#: Magics whose argument (line magics) or body (cell magics) is Python that runs in the user's namespace.
CODE_MAGICS = frozenset({"time", "timeit", "prun", "capture", "debug"})
#: Magics that change no variable (what they do to files or the environment is not the kernel journal's).
NAMESPACE_FREE_MAGICS = _words(
    "cd pwd ls env set_env pip conda matplotlib config load_ext reload_ext who whos who_ls lsmagic",
    "writefile bash sh script html HTML markdown latex javascript js svg system sx page pinfo pinfo2",
    "psearch pdoc pdef pfile psource history precision autoreload aimport",
)
_OPAQUE_CALLS = frozenset({"exec", "eval", "globals", "vars", "locals"})
#: Calls through an attribute that leave their arguments as they were.
_ARGUMENTS_KEPT = READ_ONLY_METHODS | READ_ONLY_FUNCTIONS | RECEIVER_ONLY_METHODS


@dataclass(frozen=True, kw_only=True)
class CodeEffects:
    """What the code may change; see the module docstring."""

    rebinds: frozenset[str] = frozenset()
    mutates: frozenset[str] = frozenset()
    #: In the order the code names them, for stable texts: the names of `mutates`.
    mutates_in_order: tuple[str, ...] = ()
    #: What the analysis cannot see into: `%run`, `exec(…)`, `globals()`, `from m import *`.
    opaque: tuple[str, ...] = ()

    def merged(self, other: CodeEffects) -> CodeEffects:
        order = tuple(dict.fromkeys((*self.mutates_in_order, *other.mutates_in_order)))
        return CodeEffects(
            rebinds=self.rebinds | other.rebinds,
            mutates=self.mutates | other.mutates,
            mutates_in_order=order,
            opaque=tuple(dict.fromkeys((*self.opaque, *other.opaque))),
        )


NOTHING = CodeEffects()


def code_effects(tree: ast.Module) -> CodeEffects:
    """What `tree` (the whole cell, its last expression included) may change."""
    reader = _Reader()
    reader.visit(tree)
    return CodeEffects(
        rebinds=frozenset(reader.rebinds),
        mutates=frozenset(reader.mutates),
        mutates_in_order=tuple(reader.mutates),
        opaque=tuple(reader.opaque),
    )


def source_effects(source: str) -> CodeEffects:
    """`code_effects` of source already transformed by IPython; code that does not parse changes nothing."""
    try:
        return code_effects(ast.parse(source))
    except (SyntaxError, ValueError):
        return NOTHING


def code_names(*codes: CodeType | None) -> frozenset[str]:
    """Every name compiled code refers to (globals, attributes, imports), its nested functions' and classes' too:
    the names it can bind, delete or read directly."""
    found: set[str] = set()
    stack = [code for code in codes if code is not None]
    while stack:
        code = stack.pop()
        found.update(code.co_names)
        stack.extend(const for const in code.co_consts if isinstance(const, CodeType))
    return frozenset(found)


def root_name(node: ast.expr) -> str | None:
    """The name an attribute, subscript or call chain starts from: `x` for `x.a[0].b`, `x.get(k)['v']`."""
    while True:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Attribute | ast.Subscript | ast.Starred):
            node = node.value
        elif isinstance(node, ast.Call):
            node = node.func
        else:
            return None


def _chain_root(node: ast.expr) -> str | None:
    """A name passed as is or as a part of it (`x`, `x.a`, `x[0]`): a view of it may be changed in place."""
    if isinstance(node, ast.Starred):
        node = node.value
    if isinstance(node, ast.Name | ast.Attribute | ast.Subscript):
        return root_name(node)
    return None


class _Reader(ast.NodeVisitor):
    def __init__(self) -> None:
        #: Dicts, for their order: the texts list names in the order the code mentions them.
        self.rebinds: dict[str, None] = {}
        self.mutates: dict[str, None] = {}
        self.opaque: dict[str, None] = {}
        #: > 0 inside a function, lambda or class body: its bindings are not the namespace's.
        self.depth = 0

    def visit(self, node: ast.AST) -> None:
        method = _VISITS.get(type(node))
        if method is not None:
            method(self, node)
        elif not isinstance(node, _LEAVES):
            self.generic_visit(node)

    def generic_visit(self, node: ast.AST) -> None:
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                for item in cast(list[object], value):
                    if isinstance(item, ast.AST):
                        self.visit(item)
            elif isinstance(value, ast.AST):
                self.visit(value)

    # -- bindings ------------------------------------------------------------------------------------
    def bind(self, name: str) -> None:
        if self.depth == 0:
            self.rebinds[name] = None

    def mutate(self, name: str | None) -> None:
        if name is not None:
            self.mutates[name] = None

    def target(self, node: ast.expr) -> None:
        if isinstance(node, ast.Name):
            self.bind(node.id)
        elif isinstance(node, ast.Tuple | ast.List):
            for element in node.elts:
                self.target(element)
        elif isinstance(node, ast.Starred):
            self.target(node.value)
        elif isinstance(node, ast.Attribute | ast.Subscript):
            self.mutate(root_name(node.value))

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self.target(target)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.target(node.target)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.target(node.target)
        if isinstance(node.target, ast.Name):  # `x += [1]` extends the list x names, in place
            self.mutate(node.target.id)
        self.generic_visit(node)

    def visit_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            self.target(target)
        self.generic_visit(node)

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        self.target(node.target)
        self.generic_visit(node)

    visit_AsyncFor = visit_For

    def visit_With(self, node: ast.With | ast.AsyncWith) -> None:
        for item in node.items:
            if item.optional_vars is not None:
                self.target(item.optional_vars)
        self.generic_visit(node)

    visit_AsyncWith = visit_With

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.target(node.target)  # in a comprehension too: `:=` binds in the enclosing scope
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import | ast.ImportFrom) -> None:
        for alias in node.names:
            if alias.name == "*":
                self.opaque[f"from {getattr(node, 'module', '') or '.'} import *"] = None
            else:
                self.bind(alias.asname or alias.name.split(".")[0])

    visit_ImportFrom = visit_Import

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.bind(node.name)  # bound, then deleted when the handler ends
        self.generic_visit(node)

    def visit_MatchAs(self, node: ast.MatchAs) -> None:
        if node.name:
            self.bind(node.name)
        self.generic_visit(node)

    def visit_MatchStar(self, node: ast.MatchStar) -> None:
        if node.name:
            self.bind(node.name)

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        if node.rest:
            self.bind(node.rest)
        self.generic_visit(node)

    def visit_Global(self, node: ast.Global) -> None:
        for name in node.names:
            self.rebinds[name] = None  # a function's `global x` binds the namespace's x

    # -- scopes ----------------------------------------------------------------------------------------
    def _scoped(self, node: ast.AST, body: Iterable[ast.AST]) -> None:
        self.depth += 1
        for child in body:
            self.visit(child)
        self.depth -= 1

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.bind(node.name)
        for expr in (*node.decorator_list, *node.args.defaults, *node.args.kw_defaults):
            if expr is not None:
                self.visit(expr)
        self._scoped(node, node.body)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.bind(node.name)
        for expr in (*node.decorator_list, *node.bases, *(k.value for k in node.keywords)):
            self.visit(expr)
        self._scoped(node, node.body)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        for expr in (*node.args.defaults, *node.args.kw_defaults):
            if expr is not None:
                self.visit(expr)
        self._scoped(node, [node.body])

    # -- calls -----------------------------------------------------------------------------------------
    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if self._magic(node):
            return
        keywords = {k.arg: k.value for k in node.keywords if k.arg is not None}
        if isinstance(func, ast.Name):
            if func.id in _OPAQUE_CALLS and (func.id in ("exec", "eval") or not node.args):
                self.opaque[f"{func.id}()"] = None
            if func.id in ("setattr", "delattr") and node.args:
                self.mutate(_chain_root(node.args[0]))
            elif func.id not in READ_ONLY_FUNCTIONS:
                self._arguments(node)
        elif isinstance(func, ast.Attribute):
            receiver = root_name(func.value)
            in_place = _is_true(keywords.get("inplace"))
            if receiver != "get_ipython" and (
                in_place or (func.attr not in READ_ONLY_METHODS and func.attr not in READ_ONLY_FUNCTIONS)
            ):
                self.mutate(receiver)
            if func.attr not in _ARGUMENTS_KEPT:
                self._arguments(node)
        else:
            self._arguments(node)
        out = keywords.get("out")
        if out is not None:
            self.mutate(_chain_root(out))
        self.generic_visit(node)

    def _arguments(self, node: ast.Call) -> None:
        for arg in (*node.args, *(k.value for k in node.keywords)):
            self.mutate(_chain_root(arg))

    def _magic(self, node: ast.Call) -> bool:
        """`get_ipython().run_line_magic(name, line)` / `run_cell_magic(name, line, body)`: code magics are read
        as the code they run; magics known to change no variable are nothing; any other is opaque."""
        func = node.func
        if not (
            isinstance(func, ast.Attribute)
            and func.attr in ("run_line_magic", "run_cell_magic")
            and isinstance(func.value, ast.Call)
            and isinstance(func.value.func, ast.Name)
            and func.value.func.id == "get_ipython"
        ):
            return False
        texts = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if len(texts) != len(node.args) or not texts:
            self.opaque["a magic"] = None
            return True
        name, rest = texts[0], texts[1:]
        prefix = "%" if func.attr == "run_line_magic" else "%%"
        if name in NAMESPACE_FREE_MAGICS:
            return True
        if name in CODE_MAGICS:
            code = rest[-1] if rest else ""
            inner = _parse_magic_code(code)
            if inner is None:
                self.opaque[f"{prefix}{name}"] = None
            else:
                self.visit(inner)
            if name == "capture" and func.attr == "run_cell_magic" and rest[0].split():
                self.bind(rest[0].split()[-1])  # `%%capture out` binds `out`
            return True
        self.opaque[f"{prefix}{name}"] = None
        return True


#: Nodes with nothing inside that could bind or change a name: not descended into.
_LEAVES = (ast.Name, ast.Constant, ast.expr_context, ast.operator, ast.cmpop, ast.unaryop, ast.boolop)
#: The visit method of each node type the reader looks at (NodeVisitor's lookup by name, once).
_VISITS: dict[type[ast.AST], Callable[[_Reader, Any], None]] = {
    cast(type[ast.AST], getattr(ast, name.removeprefix("visit_"))): method
    for name, method in vars(_Reader).items()
    if name.startswith("visit_") and hasattr(ast, name.removeprefix("visit_"))
}


def _parse_magic_code(code: str) -> ast.Module | None:
    """A code magic's Python: its text, or the text after its leading `-options` (`%timeit -n 3 x.sort()`)."""
    words = code.split(" ")
    for start in range(len(words)):
        if start and not words[0].startswith("-"):
            break
        try:
            return ast.parse(" ".join(words[start:]).strip())
        except SyntaxError:
            continue
    return None


def _is_true(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is True
