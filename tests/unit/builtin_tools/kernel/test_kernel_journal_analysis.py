"""What the kernel journal reads from the agent's code before it runs: the names it may rebind or delete, and the
names whose objects it may change in place (and so are copied first). Read after IPython's transform, as the
code runs, so magics count as the calls they are."""

from __future__ import annotations

import pytest
from IPython.core.inputtransformer2 import TransformerManager

from jupyter_agent.builtin_tools.kernel.journal.analysis import CodeEffects, code_names, source_effects


@pytest.fixture(scope="module")
def transform() -> TransformerManager:
    return TransformerManager()


def effects(code: str, transform: TransformerManager) -> CodeEffects:
    return source_effects(transform.transform_cell(code))


REBINDS = {
    "assignment": ("a = 1; b, (c, *d) = e", {"a", "b", "c", "d"}),
    "augmented and annotated": ("n += 1; m: int = 2; only_annotated: int", {"n", "m"}),
    "walrus, also in a comprehension": ("[y for x in xs if (y := x)]", {"y"}),
    "for and with targets": ("for i, j in pairs: pass\nwith open('f') as fh: pass", {"i", "j", "fh"}),
    "imports": ("import os.path, numpy as np\nfrom math import pi as PI", {"os", "np", "PI"}),
    "def and class": ("def f(): local = 1\nclass C:\n    attribute = 2", {"f", "C"}),
    "del": ("del old", {"old"}),
    "except as (deleted after the handler)": ("try:\n    pass\nexcept Exception as err:\n    pass", {"err"}),
    "a function's global": ("def reset():\n    global counter\n    counter = 0", {"reset", "counter"}),
    "match captures": (
        "match p:\n    case [first, *rest]: pass\n    case {'k': v, **others}: pass",
        {"first", "rest", "v", "others"},
    ),
}


@pytest.mark.parametrize("kind", list(REBINDS))
def test_names_the_code_may_rebind_or_delete(kind: str, transform: TransformerManager) -> None:
    code, expected = REBINDS[kind]
    assert effects(code, transform).rebinds == expected


MUTATES = {
    "attribute written": ("cfg.threshold = 0.9", ["cfg"]),
    "subscript written, deep": ("model['weights'][0] = 1", ["model"]),
    "augmented subscript": ("counts['a'] += 1", ["counts"]),
    "a list extended by +=": ("items += [1]", ["items"]),
    "del of an item or attribute": ("del cache[key]; del obj.attr", ["cache", "obj"]),
    "a method that changes its object, not its arguments": (
        "rows.append(x); model.fit(X, y)",
        ["rows", "model"],
    ),
    "an unknown method, its object and its arguments": ("tracker.log(batch)", ["tracker", "batch"]),
    "a method called on a part of it": ("df['a'].fillna(0, inplace=True); data['xs'].sort()", ["df", "data"]),
    "inplace=True makes a read-only method count": ("df.dropna(inplace=True)", ["df"]),
    "names passed to an unknown function": (
        "shuffle(deck); process(batch.rows, key=table[0])",
        ["deck", "batch", "table"],
    ),
    "out= of a NumPy call": ("np.add(a, b, out=total)", ["np", "total"]),
    "setattr": ("setattr(settings, 'debug', True)", ["settings"]),
    "inside a function the code defines": ("def go():\n    history.append(1)\ngo()", ["history"]),
    "the last expression of the cell": ("values.pop()", ["values"]),
}


@pytest.mark.parametrize("kind", list(MUTATES))
def test_names_whose_objects_the_code_may_change_in_place(kind: str, transform: TransformerManager) -> None:
    code, expected = MUTATES[kind]
    assert list(effects(code, transform).mutates_in_order) == expected


READS = [
    "print(df); display(df.head()); len(rows)",
    "summary = df.describe(); means = df.groupby('k').mean()",
    "total = sum(values); biggest = max(values)",
    "plt.plot(xs, ys); plt.hist(values)",
    "clean = df.dropna(); sorted_rows = sorted(rows)",
]


@pytest.mark.parametrize("code", READS)
def test_read_only_code_changes_nothing_in_place(code: str, transform: TransformerManager) -> None:
    found = effects(code, transform).mutates - {"plt"}  # a module called through is never copied
    assert found == set()


def test_code_magics_are_read_as_the_code_they_run(transform: TransformerManager) -> None:
    line = effects("%time rows.append(1)", transform)
    timed = effects("%timeit -n 1 -r 1 data.sort()", transform)
    cell = effects("%%time\nresult = model.fit(X)\n", transform)
    captured = effects("%%capture out\nlog.append(2)\n", transform)
    assert line.mutates == {"rows"} and line.opaque == ()
    assert timed.mutates == {"data"}
    assert cell.rebinds == {"result"} and cell.mutates == {"model"}
    assert captured.rebinds == {"out"} and captured.mutates == {"log"}


def test_what_the_analysis_cannot_read_is_named(transform: TransformerManager) -> None:
    assert effects("%run helpers.py", transform).opaque == ("%run",)
    assert effects("exec(source)", transform).opaque == ("exec()",)
    assert effects("globals()['x'] = 1", transform).opaque == ("globals()",)
    assert effects("from pylab import *", transform).opaque == ("from pylab import *",)
    assert effects("%matplotlib inline\n%pip install x\n!ls", transform) == CodeEffects()


def test_code_that_does_not_parse_changes_nothing() -> None:
    assert source_effects("x = (1,\n") == CodeEffects()


def test_the_names_compiled_code_refers_to_include_its_functions() -> None:
    code = compile("def f():\n    global g\n    g = h.k\nx = [y for y in z]", "<cell>", "exec")
    assert {"f", "g", "h", "k", "x", "z"} <= code_names(code)
