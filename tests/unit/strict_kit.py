"""The strict scripted server's tests share this: a server with the real `anthropic` client over HTTP (`Api`)."""

from __future__ import annotations

import http.client
import json
from typing import Any

import anthropic
import pytest

from jupyter_agent.testing import TEST_API_KEY, ScriptedServer

MODEL = "claude-sonnet-5-5"


class Api:
    """A server and a client; `create` fills in a valid request, `rejection` expects the API's error."""

    def __init__(self, server: ScriptedServer, api_key: str = TEST_API_KEY) -> None:
        self.server = server
        self.client = anthropic.Anthropic(base_url=server.url, api_key=api_key, max_retries=0)

    def with_key(self, api_key: str) -> Api:
        """The same server under another API key (another account)."""
        return Api(self.server, api_key)

    def request(self, **params: Any) -> dict[str, Any]:
        return {
            "model": MODEL,
            "max_tokens": 1000,
            "messages": [{"role": "user", "content": "hi"}],
            **params,
        }

    def create(self, **params: Any) -> Any:
        betas = params.pop("betas", None)
        params.setdefault(
            "timeout", 30
        )  # an explicit timeout: the SDK then sends a large max_tokens unstreamed
        if betas is not None:
            return self.client.beta.messages.create(betas=betas, **self.request(**params))
        return self.client.messages.create(**self.request(**params))

    def count_tokens(self, **params: Any) -> Any:
        request = {k: v for k, v in self.request(**params).items() if k != "max_tokens"}
        return self.client.messages.count_tokens(**request)

    def rejection(self, **params: Any) -> tuple[int, str, str]:
        """(status, error type, message) of a request the server must refuse, checking no script entry was used."""
        status, error = self.refused(**params)
        return status, error["type"], error["message"]

    def refused(self, **params: Any) -> tuple[int, dict[str, Any]]:
        """(status, the body's `error` object) of a request the server must refuse, as the SDK raised it."""
        used = len(self.server.requests)
        with pytest.raises(anthropic.APIStatusError) as caught:
            self.create(**params)
        assert len(self.server.requests) == used, "a refused request must not consume a script entry"
        body = caught.value.body
        assert isinstance(body, dict)
        return caught.value.status_code, body["error"]


def raw_post(server: ScriptedServer, body: dict[str, Any], path: str = "/v1/messages") -> tuple[int, Any]:
    """POST `body` with a bare HTTP client (for requests the SDK will not build); (status, parsed JSON)."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        connection.request("POST", path, json.dumps(body), {"content-type": "application/json"})
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()
