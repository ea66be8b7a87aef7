"""A scripted Anthropic Messages API server for tests: real `anthropic` client, real HTTP, no network.

    from jupyter_agent.testing import ScriptedServer, Turn, Text, ToolUse, Fault

    with ScriptedServer([Turn(fault=Fault.overloaded()), Turn(blocks=[Text("hi")])]) as srv:
        client = anthropic.Anthropic(base_url=srv.url, api_key=TEST_API_KEY)
        ...
        assert srv.requests[0]["system"] == ...

The pytest fixture `scripted_server` lives in `jupyter_agent.testing.plugin`; see docs/testing.md.

The server is as strict as the real API by default (`strict=True`), so a notebook or agent tested against it does
not meet a 400 with a real key: only real model ids are served (another id is the API's 404), each with its row in
`jupyter_agent.testing.strict.models` (context window, output limit, the `thinking` types it takes, whether it
accepts prefill, sampling parameters, forced `tool_choice`, mid-conversation system messages, effort levels); a
request the row or the API's message rules refuse is a 400 with the API's wording (text blocks, tool pairing,
images, cache breakpoints, tool names, context window); thinking blocks carry the server's own signature, bound to
their conversation, model and account, and sending one back after an edit before it is the API's "bound to a
different conversation" 400 (or, with `prefix_mismatch_behavior: "drop_block"`, a drop reported in
`input_transformations`); usage reports what the prompt cache would read and write. `ScriptedServer(strict=False)`
answers everything from the script as before; `models=[...]` adds rows.
"""

from .script import (
    ERROR_STATUS,
    Block,
    ErrorType,
    Fault,
    FaultKind,
    Recorded,
    Script,
    ScriptedUsage,
    ScriptFn,
    StopReason,
    Text,
    Thinking,
    ToolUse,
    Turn,
)
from .script_json import ScriptFormatError, load_script, recorded_turn, script_from_json
from .server import TEST_API_KEY, RecordedRequest, ScriptedServer
from .server_tools import Citation, SearchHit, ServerToolUse, WebSearchResult
from .strict.canonical import estimate_tokens
from .strict.models import SERVED_MODELS, ServedModel, scripted_model

__all__ = [
    "ERROR_STATUS",
    "SERVED_MODELS",
    "TEST_API_KEY",
    "Block",
    "Citation",
    "ErrorType",
    "Fault",
    "FaultKind",
    "Recorded",
    "RecordedRequest",
    "Script",
    "ScriptFn",
    "ScriptFormatError",
    "ScriptedServer",
    "ScriptedUsage",
    "SearchHit",
    "ServedModel",
    "ServerToolUse",
    "StopReason",
    "Text",
    "Thinking",
    "ToolUse",
    "Turn",
    "WebSearchResult",
    "estimate_tokens",
    "load_script",
    "recorded_turn",
    "script_from_json",
    "scripted_model",
]
