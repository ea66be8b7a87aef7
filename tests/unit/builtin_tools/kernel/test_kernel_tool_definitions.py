"""The kernel tools' definitions exactly as the model receives them (name, description, input schema). Pinned."""

from __future__ import annotations

from jupyter_agent.builtin_tools.kernel import kernel_tools

EXPECTED = [
    {
        "name": "ListVariables",
        "description": "List the variables in the user's live kernel namespace (what their notebook "
        "cells defined): name, type, shape or length, dtype, approximate size, and the "
        "value of short scalars. Private names, modules and IPython's own names are "
        "hidden; functions and classes only with include_functions. Use Inspect to look "
        "at one variable in detail.",
        "input_schema": {
            "additionalProperties": False,
            "properties": {
                "include_functions": {
                    "default": False,
                    "description": "Also list functions and classes the user defined (hidden by default).",
                    "type": "boolean",
                }
            },
            "type": "object",
        },
    },
    {
        "name": "Inspect",
        "description": "Look at one variable of the user's live kernel in detail, without running code: "
        "for a DataFrame its shape, dtypes, memory and first rows; for an array its "
        "shape, dtype and min/max/mean; for a function or class its signature and "
        "docstring; otherwise a length-capped repr. Attributes and constant subscripts "
        "are allowed (df.columns, data['key']). Reprs that take longer than a few seconds "
        "are abandoned and reported as such.",
        "input_schema": {
            "additionalProperties": False,
            "properties": {
                "name": {
                    "description": "A variable in the user's namespace, "
                    "optionally with attributes and constant "
                    "subscripts: `df`, `df.columns`, "
                    "`config['paths']`, `model.layers[0]`. "
                    "Nothing is called.",
                    "type": "string",
                }
            },
            "required": ["name"],
            "type": "object",
        },
    },
    {
        "name": "Debug",
        "description": "Post-mortem look at the last exception raised in the user's kernel, by a cell the user "
        "ran or by RunCode or RunCell (the result says which): the list of traceback frames, and for one frame (default: the innermost, where it was raised) its function, "
        "file:line, the source around the line and its local variables (types, shapes and bounded reprs). "
        "Nothing is evaluated; to run an expression in the kernel use RunCode.",
        "input_schema": {
            "additionalProperties": False,
            "properties": {
                "frame": {
                    "default": -1,
                    "description": "Index into the last exception's traceback, outermost first: 0 is the "
                    "cell, -1 (the default) the innermost frame where it was raised.",
                    "type": "integer",
                }
            },
            "type": "object",
        },
    },
    {
        "name": "RunCode",
        "description": "Run Python code in the user's live Jupyter kernel, like running a notebook cell: "
        "it uses and changes the user's variables and imports. Returns what it printed "
        "(stdout and stderr, in order), displayed outputs (text, and images such as plots "
        "as image blocks), the value of the last expression, and the traceback if it "
        "raised. Use it to check data, try a fix, or compute something; prefer Inspect "
        "and ListVariables for just looking. The user is asked before it runs unless a "
        "rule allows it. Top-level `await` is not supported.",
        "input_schema": {
            "additionalProperties": False,
            "properties": {
                "code": {
                    "description": "Python code to run in the user's "
                    "kernel, like a notebook cell: it sees "
                    "and changes the user's variables, "
                    "IPython syntax (%magic, !command) "
                    "works, and the value of a last "
                    "expression is shown.",
                    "type": "string",
                },
                "timeout": {
                    "anyOf": [{"maximum": 600000, "minimum": 1, "type": "integer"}, {"type": "null"}],
                    "default": None,
                    "description": "Milliseconds before the code is "
                    "stopped; default 120000 (2 minutes), "
                    "max 600000 (10 minutes).",
                },
            },
            "required": ["code"],
            "type": "object",
        },
    },
]


def test_kernel_tool_definitions_are_pinned() -> None:
    assert [tool.to_param() for tool in kernel_tools()] == EXPECTED
