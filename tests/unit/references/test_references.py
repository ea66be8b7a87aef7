"""`@name`, `@cell:ID`, `@output:ID[:N]`: what counts as a reference, and what each attaches."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path
from typing import Any

import nbformat
import pandas as pd
import pytest

from jupyter_agent.base.sandbox import Sandbox
from jupyter_agent.builtin_tools.kernel.guards import CREDENTIAL_HIDDEN
from jupyter_agent.notebook.provider import NotebookProvider
from jupyter_agent.references import MAX_REFERENCES, attach_references, find_references
from jupyter_agent.tools.context import ToolContext, ToolServices

PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
    )
).decode()


def texts(request: str) -> list[str]:
    return [reference.text for reference in find_references(request)]


@pytest.mark.parametrize(
    ("request_text", "expected"),
    [
        pytest.param(
            "why is @df empty? compare @df with @sales_2024.", ["@df", "@sales_2024"], id="names, once each"
        ),
        pytest.param("mail ana@example.com or a@b", [], id="e-mail addresses are not references"),
        pytest.param("see @df.columns", ["@df"], id="an attribute refers to its variable"),
        pytest.param("look at `@df` and @x", ["@x"], id="inline code is skipped"),
        pytest.param("```python\n@tool\ndef f(): ...\n```\nthen @y", ["@y"], id="fenced code is skipped"),
        pytest.param(
            "@jupyter_agent.tool\ndef lookup(): ...\n@z please",
            ["@z"],
            id="a pasted decorator line is skipped",
        ),
        pytest.param(
            "explain @cell:ab12-x and @output:ab12:2, @output:cd",
            ["@cell:ab12-x", "@output:ab12:2", "@output:cd"],
            id="cells and outputs",
        ),
        pytest.param("path/@notanything and x.@y", [], id="not after a slash or a dot"),
        pytest.param("(@df)", ["@df"], id="after an opening bracket"),
    ],
)
def test_what_counts_as_a_reference(request_text: str, expected: list[str]) -> None:
    assert texts(request_text) == expected


def test_at_most_the_first_references_are_kept_and_one_more_tells_there_were_more() -> None:
    many = " ".join(f"@v{i}" for i in range(MAX_REFERENCES + 5))
    assert len(find_references(many)) == MAX_REFERENCES + 1


def context(tmp_path: Path, namespace: dict[str, Any] | None) -> ToolContext:
    notebook = nbformat.v4.new_notebook()
    plot = nbformat.v4.new_code_cell("plot()")
    plot.id = "plot1"
    plot.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="drawing\n"),
        nbformat.v4.new_output("display_data", data={"image/png": PNG, "text/plain": "<Figure>"}),
    ]
    load = nbformat.v4.new_code_cell("df = load()")
    load.id = "load1"
    notebook.cells = [load, plot]
    path = tmp_path / "analysis.ipynb"
    nbformat.write(notebook, path)
    services = ToolServices(notebooks=NotebookProvider(default_path=path))
    return ToolContext(sandbox=Sandbox.at(tmp_path), namespace=namespace, services=services)


def user_text(blocks: list[dict[str, Any]]) -> str:
    return "\n".join(block.get("text", "") for block in blocks if block["type"] == "text")


def test_a_variable_is_described_like_list_variables_and_inspect_do_and_masked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SERVICE_API_KEY", "sk-verysecretvalue-123")
    namespace = {
        "sales": pd.DataFrame({"month": ["Jan", "Feb"], "total": [3, 4]}),
        "config": {"key": "sk-verysecretvalue-123", "region": "eu"},
    }
    attached = asyncio.run(attach_references("compare @sales with @config", context(tmp_path, namespace)))
    assert attached.note is None
    text = user_text(attached.blocks)
    assert (
        '<reference to="@sales">' in text
        and "sales: pandas.DataFrame, shape/len (2, 2), dtype mixed, " in text
    )
    assert "columns (dtype):\n  month: " in text and "  total: int64" in text
    assert "Jan" in text  # the head
    assert "keys: ['key', 'region']" in text
    assert "sk-verysecretvalue-123" not in text and "[redacted: SERVICE_API_KEY]" in text


def test_a_credential_named_variable_is_attached_without_its_value(tmp_path: Path) -> None:
    namespace = {
        "api_token": "plain-not-in-env-0123456789",
        "db_password": "hunter2hunter2",
        "aws_credentials": {"aws_secret_access_key": "wJalrXUtnFEMIK7MDENG"},
        "sales": 3,
    }
    request = "use @api_token, @db_password and @aws_credentials for @sales"
    attached = asyncio.run(attach_references(request, context(tmp_path, namespace)))
    text = user_text(attached.blocks)
    for value in (
        "plain-not-in-env-0123456789",
        "hunter2hunter2",
        "wJalrXUtnFEMIK7MDENG",
        "aws_secret_access",
    ):
        assert value not in text
    assert "api_token: str, shape/len 27, " in text and "db_password: str, shape/len 14, " in text
    assert "aws_credentials: dict, shape/len 1, " in text
    assert text.count(CREDENTIAL_HIDDEN) == 3
    assert "sales: int, " in text and "= 3" in text  # the others as before
    assert attached.note is None


def test_unknown_and_hidden_names_are_one_line_for_the_person_and_told_to_the_model(tmp_path: Path) -> None:
    import os as os_module

    namespace = {"sales": 1, "_private": 2, "os": os_module}
    attached = asyncio.run(attach_references("@sale @_private @os @cell:nope", context(tmp_path, namespace)))
    assert attached.note == (
        "not attached: @sale: no variable 'sale' in the kernel (similar: sales); "
        "@_private: ListVariables does not show private names, modules or IPython's own (ask for Inspect); "
        "@os: ListVariables does not show private names, modules or IPython's own (ask for Inspect); "
        "@cell:nope: no cell with id 'nope' in analysis.ipynb"
    )
    assert "\n" not in attached.note
    assert "not attached: @sale: no variable 'sale'" in user_text(attached.blocks)


def test_a_cell_comes_with_its_outputs_and_images_and_counts_as_read(tmp_path: Path) -> None:
    ctx = context(tmp_path, {})
    attached = asyncio.run(attach_references("what does @cell:plot1 show?", ctx))
    text = user_text(attached.blocks)
    assert '<reference to="@cell:plot1">' in text and "plot()" in text and "drawing" in text
    images = [block for block in attached.blocks if block["type"] == "image"]
    assert len(images) == 1 and images[0]["source"]["data"] == PNG
    assert ctx.reads.has_read(f"{tmp_path / 'analysis.ipynb'}#plot1")


def test_one_output_by_its_number_from_one(tmp_path: Path) -> None:
    attached = asyncio.run(attach_references("@output:plot1:1 and @output:plot1:3", context(tmp_path, {})))
    text = user_text(attached.blocks)
    assert "output of cell 'plot1'" in text and "drawing" in text
    assert not [block for block in attached.blocks if block["type"] == "image"]  # output 1 is the text
    assert attached.note == "not attached: @output:plot1:3: cell 'plot1' has 2 outputs (they count from 1)"
    image = asyncio.run(attach_references("@output:plot1:2", context(tmp_path, {})))
    assert [block["type"] for block in image.blocks] == ["text", "image"]


def test_a_figure_the_reference_carries_is_not_sent_again_with_the_kernel_note() -> None:
    from jupyter_agent.references import merged

    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}
    other = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": PNG[:-4] + "AAAA"},
    }
    note = {"type": "text", "text": "<kernel-activity>…</kernel-activity>"}
    reference = {"type": "text", "text": '<reference to="@output:a:2">'}
    assert merged([reference, image], [note, image, other]) == [reference, image, note, other]
