"""A scripted Anthropic Messages API server for tests: real `anthropic` client, real HTTP, no network.

    from jupyter_agent.testing import ScriptedServer, Turn, Text, ToolUse, Fault

    with ScriptedServer([Turn(fault=Fault.overloaded()), Turn(blocks=[Text("hi")])]) as srv:
        client = anthropic.Anthropic(base_url=srv.url, api_key=TEST_API_KEY)
        ...
        assert srv.requests[0]["system"] == ...

The pytest fixture `scripted_server` lives in `jupyter_agent.testing.plugin`; see docs/testing.md.
"""

from .script import (
    ERROR_STATUS,
    Block,
    ErrorType,
    Fault,
    FaultKind,
    Script,
    ScriptedUsage,
    ScriptFn,
    StopReason,
    Text,
    Thinking,
    ToolUse,
    Turn,
)
from .script_json import ScriptFormatError, load_script, script_from_json
from .server import TEST_API_KEY, RecordedRequest, ScriptedServer
from .server_tools import Citation, SearchHit, ServerToolUse, WebSearchResult
from .wire import estimate_tokens

__all__ = [
    "ERROR_STATUS",
    "TEST_API_KEY",
    "Block",
    "Citation",
    "ErrorType",
    "Fault",
    "FaultKind",
    "RecordedRequest",
    "Script",
    "ScriptFn",
    "ScriptFormatError",
    "ScriptedServer",
    "ScriptedUsage",
    "SearchHit",
    "ServerToolUse",
    "StopReason",
    "Text",
    "Thinking",
    "ToolUse",
    "Turn",
    "WebSearchResult",
    "estimate_tokens",
    "load_script",
    "script_from_json",
]
