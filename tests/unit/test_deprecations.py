"""A DeprecationWarning raised from the package's own code fails the test (pyproject's `filterwarnings`); one
that a library raises about its own internals does not. No test and no default names a deprecated model."""

from __future__ import annotations

import importlib
import re
import warnings
from pathlib import Path

import pytest


def warn_from(module: str) -> None:
    path = module.replace(".", "/") + ".py"
    warnings.warn_explicit("old API", DeprecationWarning, path, 1, module=module)


@pytest.mark.parametrize(
    "module", ["jupyter_agent", "jupyter_agent.ui.jupyter_api", "jupyter_agent.agent.retry"]
)
def test_a_deprecation_warning_attributed_to_the_package_is_an_error(module: str) -> None:
    with pytest.raises(DeprecationWarning, match="old API"):
        warn_from(module)


def test_a_deprecation_warning_inside_a_library_is_not() -> None:
    with warnings.catch_warnings(record=True):
        warn_from("ipywidgets.widgets.widget_string")


#: Where the SDK keeps its table of deprecated models: anthropic 2.x, and 1.x (the floor, 1.9).
DEPRECATION_TABLES = ("anthropic._data", "anthropic.resources.messages.messages")


def sdk_deprecated_models() -> dict[str, str]:
    """The SDK's table of deprecated models and their end-of-life dates (it warns when one is requested)."""
    for module in DEPRECATION_TABLES:
        try:
            table: object = getattr(importlib.import_module(module), "DEPRECATED_MODELS", None)
        except ImportError:
            continue
        if isinstance(table, dict):
            return {str(k): str(v) for k, v in table.items()}
    raise AssertionError(
        f"the SDK moved its table of deprecated models (DEPRECATED_MODELS, not in {DEPRECATION_TABLES})"
    )


def test_no_test_and_no_default_names_a_model_the_sdk_has_deprecated() -> None:
    """Depends on the installed SDK's table, on purpose: a newer SDK deprecating a model the tests use fails here
    first. The model table (agent/models.py) keeps its rows: it must price every model the SDK still names."""
    root = Path(__file__).resolve().parents[2]
    deprecated = sdk_deprecated_models()
    sources = [*root.glob("tests/**/*.py"), *root.glob("jupyter_agent/**/*.py"), root / "README.md"]
    sources += [*root.glob("docs/guide/*.md"), root / "docs" / "development.md"]  # what the README held
    named = sorted(
        f"{path.relative_to(root)}: {model} (end of life {deprecated[model]})"
        for path in sources
        if path.name != "models.py"
        for model in deprecated
        if re.search(rf"{re.escape(model)}(?![\w.-]*\w)", path.read_text(encoding="utf-8"))
    )
    assert named == []
