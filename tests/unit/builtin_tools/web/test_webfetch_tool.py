"""WebFetch against a real HTTP server on 127.0.0.1: Markdown without scripts or hidden parts, caps, redirects,
and permission rules by domain."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from dispatch_harness import Approvals, ToolHarness
from web_site import SiteHandler as _Handler
from web_site import serving

from jupyter_agent.base.errors import ToolError
from jupyter_agent.base.result import ToolResult
from jupyter_agent.builtin_tools.web import WebFetch, http
from jupyter_agent.builtin_tools.web import tool as web_tool
from jupyter_agent.tools import (
    ApprovalRequest,
    Approve,
    PermissionPolicy,
    Rule,
)

PAGE = b"""<!doctype html><html><head><title>Sales  report</title>
<style>body { color: red }</style><script>var secret = "SCRIPT_TEXT";</script></head>
<body><h1>March sales</h1><p>Revenue was <b>12,000</b> EUR.</p>
<div hidden>HIDDEN_ATTR</div><div style="display: none">HIDDEN_STYLE</div><span aria-hidden="true">ARIA</span>
<noscript>NOSCRIPT</noscript><!-- COMMENT -->
<ul><li>north</li><li>south</li></ul><a href="/details">details</a></body></html>"""


@pytest.fixture
def site() -> Iterator[str]:
    with serving() as port:
        _Handler.routes = {
            "/page": (200, {"Content-Type": "text/html; charset=utf-8"}, PAGE),
            "/moved": (302, {"Location": "/page"}, b""),
            "/elsewhere": (301, {"Location": f"http://other.example:{port}/page"}, b""),
            "/same-host": (301, {"Location": f"http://localhost:{port}/page"}, b""),  # localhost is 127.0.0.1
            "/data.json": (200, {"Content-Type": "application/json"}, b'{"march": 12000}'),
            "/image.png": (200, {"Content-Type": "image/png"}, b"\x89PNG\r\n\x1a\n"),
            "/big": (200, {"Content-Type": "text/plain"}, b"line\n" * 50_000),
        }
        yield f"http://127.0.0.1:{port}"


def _fetch(
    url: str,
    tmp_path: Path,
    *,
    policy: PermissionPolicy | None = None,
    asked: list[ApprovalRequest] | None = None,
) -> ToolResult:
    person = Approvals(Approve())
    # The test server is on 127.0.0.1: only a rule naming it lets WebFetch connect there.
    local = PermissionPolicy(mode="bypassPermissions", allow=[Rule.parse("WebFetch(domain:127.0.0.1)")])
    tools = ToolHarness(tmp_path, [WebFetch()], policy=policy or local, approver=person)
    result = tools.call("WebFetch", url=url, prompt="the March revenue")
    if asked is not None:
        asked.extend(person.requests)
    return result


def test_html_becomes_markdown_without_scripts_styles_comments_or_hidden_parts(
    site: str, tmp_path: Path
) -> None:
    result = _fetch(f"{site}/page", tmp_path)
    assert not result.is_error, result.content
    assert result.content.startswith(
        f"Fetched {site}/page\nTitle: Sales report\nLook in it for: the March revenue\n\n# March sales\n\n"
        "Revenue was **12,000** EUR.\n\n- north\n- south\n\n[details](/details)"
    )
    for hidden in ("SCRIPT_TEXT", "color: red", "HIDDEN_ATTR", "HIDDEN_STYLE", "ARIA", "NOSCRIPT", "COMMENT"):
        assert hidden not in result.content


def test_a_same_host_redirect_is_followed_and_another_host_is_reported_not_followed(
    site: str, tmp_path: Path
) -> None:
    moved = _fetch(f"{site}/moved", tmp_path)
    assert moved.content.startswith(f"Fetched {site}/page\n")
    elsewhere = _fetch(f"{site}/elsewhere", tmp_path)
    assert not elsewhere.is_error
    port = site.rsplit(":", 1)[1]
    assert elsewhere.content.startswith(
        f"{site}/elsewhere redirects (301) to another host: http://other.example:{port}/page\nIt was not followed."
    )
    assert _fetch(f"{site}/same-host", tmp_path).content.startswith(f"Fetched http://localhost:{port}/page\n")
    assert [path for path, _ in _Handler.seen] == ["/moved", "/page", "/elsewhere", "/same-host", "/page"]


def test_text_types_pass_through_and_binary_ones_are_refused(site: str, tmp_path: Path) -> None:
    assert _fetch(f"{site}/data.json", tmp_path).content.endswith('\n\n{"march": 12000}')
    image = _fetch(f"{site}/image.png", tmp_path)
    assert image.error_code == "BINARY_FILE" and "image/png" in image.content


def test_http_errors_and_bad_urls_say_what_happened(site: str, tmp_path: Path) -> None:
    missing = _fetch(f"{site}/missing", tmp_path)
    assert missing.error_code == "HTTP_ERROR"
    assert missing.content == f"HTTP_ERROR: {site}/missing answered 404 Not Found; check the URL"
    assert _fetch("file:///etc/passwd", tmp_path).error_code == "INVALID_ARGS"
    assert _fetch("http://user:pw@127.0.0.1/", tmp_path).error_code == "INVALID_ARGS"
    closed = _fetch("http://127.0.0.1:9/", tmp_path)  # the discard port: nothing listens
    assert closed.error_code == "NETWORK_ERROR"


def test_a_large_page_is_downloaded_only_up_to_the_cap_and_the_text_is_cut(
    site: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(web_tool, "MAX_FETCH_BYTES", 100_000)
    monkeypatch.setattr(web_tool, "MAX_MARKDOWN_CHARS", 2_000)
    result = _fetch(f"{site}/big", tmp_path)
    assert result.content.startswith(
        f"Fetched {site}/big (only the first part was downloaded: the page is larger)"
    )
    assert "characters (" in result.content and "cut" in result.content
    assert len(result.content) < 3_000


def test_it_asks_by_default_and_a_domain_rule_lets_it_run_without_asking(site: str, tmp_path: Path) -> None:
    asked: list[ApprovalRequest] = []
    unnamed = _fetch(f"{site}/page", tmp_path, policy=PermissionPolicy(mode="acceptEdits"), asked=asked)
    assert unnamed.error_code == "ADDRESS_NOT_ALLOWED"  # approved once, but a local address needs a rule
    assert [a.title for a in asked] == [f"WebFetch {site}/page"]
    assert asked[0].suggested_rule == Rule("WebFetch", "domain:127.0.0.1")
    asked.clear()
    allowed = PermissionPolicy(mode="default", allow=[Rule.parse("WebFetch(domain:127.0.0.1)")])
    assert not _fetch(f"{site}/page", tmp_path, policy=allowed, asked=asked).is_error
    assert asked == []
    denied = PermissionPolicy(
        mode="bypassPermissions",
        allow=[Rule.parse("WebFetch(domain:127.0.0.1)")],
        deny=[Rule.parse("WebFetch(domain:127.0.0.1)")],
    )
    result = _fetch(f"{site}/page", tmp_path, policy=denied)
    assert result.error_code == "DENIED"
    assert [p for p, _ in _Handler.seen] == ["/page"]  # neither the unnamed nor the denied fetch reached it


def test_no_credentials_or_cookies_are_sent(
    site: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    netrc = tmp_path / "netrc"
    netrc.write_text("machine 127.0.0.1 login alice password s3cret\n")
    monkeypatch.setenv("NETRC", str(netrc))
    _fetch(f"{site}/page", tmp_path)
    (_, headers), *_ = _Handler.seen
    assert "Authorization" not in headers and "Cookie" not in headers


def test_the_definition_the_model_sees_is_pinned() -> None:
    param = WebFetch().to_param()
    assert param["input_schema"] == {
        "additionalProperties": False,
        "properties": {
            "url": {
                "description": "The full URL to fetch (http or https).",
                "minLength": 1,
                "type": "string",
            },
            "prompt": {"description": "What to look for in the page.", "minLength": 1, "type": "string"},
        },
        "required": ["url", "prompt"],
        "type": "object",
    }
    assert param["description"].startswith("Fetch a web page and read it as Markdown")


def test_webfetch_is_offered_by_default_and_a_setting_hides_it() -> None:
    from jupyter_agent.builtin_tools.catalog import OPT_IN_TOOLS
    from jupyter_agent.settings import AgentSettings

    row = next(row for row in OPT_IN_TOOLS if row.name == "WebFetch")
    assert row.wanted(getattr(AgentSettings(), row.setting), [])  # asking is pinned above
    assert not row.wanted(getattr(AgentSettings(enable_web_fetch=False), row.setting), [])


@pytest.mark.parametrize(
    "url",
    [
        pytest.param("http://127.0.0.1:{port}/page", id="loopback"),
        pytest.param("http://127.1:{port}/page", id="short IPv4"),
        pytest.param("http://2130706433:{port}/page", id="IPv4 as one number"),
        pytest.param("http://0x7f.0.0.1:{port}/page", id="hex IPv4"),
        pytest.param("http://localhost:{port}/page", id="localhost"),
        pytest.param("http://[::ffff:127.0.0.1]:{port}/page", id="IPv4-mapped IPv6"),
        pytest.param("http://169.254.169.254/latest/meta-data/", id="cloud metadata address"),
        pytest.param("http://metadata.google.internal/computeMetadata/v1/", id="cloud metadata name"),
        pytest.param("http://10.0.0.1/", id="private network"),
    ],
)
def test_local_private_and_metadata_addresses_are_refused_without_a_rule_naming_them(
    site: str, tmp_path: Path, url: str
) -> None:
    port = site.rsplit(":", 1)[1]
    only_wildcards = PermissionPolicy(mode="bypassPermissions", allow=[Rule.parse("WebFetch(domain:*)")])
    result = _fetch(url.format(port=port), tmp_path, policy=only_wildcards)
    assert result.error_code == "ADDRESS_NOT_ALLOWED", result.content
    if "metadata.google" in url:
        assert result.content == (
            "ADDRESS_NOT_ALLOWED: metadata.google.internal resolves to a cloud metadata service: WebFetch reaches "
            "only public addresses, so that a page cannot make it read the user's local services or cloud "
            "credentials. If the user wants this host, they add the rule `WebFetch(domain:metadata.google.internal)` "
            "(naming it exactly)"
        )
    else:
        assert ", not a public address: WebFetch reaches only public addresses" in result.content
    assert _Handler.seen == []


@pytest.mark.parametrize("spelling", ["127.1", "2130706433", "localhost", "0177.0.0.1"])
def test_a_deny_rule_for_an_address_holds_whatever_the_spelling(
    site: str, tmp_path: Path, spelling: str
) -> None:
    port = site.rsplit(":", 1)[1]
    policy = PermissionPolicy(
        mode="bypassPermissions",
        allow=[Rule.parse("WebFetch(domain:127.0.0.1)")],
        deny=[Rule.parse("WebFetch(domain:127.0.0.1)")],
    )
    assert _fetch(f"http://{spelling}:{port}/page", tmp_path, policy=policy).error_code == "DENIED"
    written_so = PermissionPolicy(mode="bypassPermissions", deny=[Rule.parse(f"WebFetch(domain:{spelling})")])
    assert _fetch(f"{site}/page", tmp_path, policy=written_so).error_code == "DENIED"
    assert _Handler.seen == []


def test_every_hop_of_a_redirect_is_resolved_and_checked_again(
    site: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DNS can answer differently the second time (rebinding): each request resolves and checks on its own."""
    from jupyter_agent.builtin_tools.web import addresses, http

    checked: list[str] = []
    real = addresses.checked_address

    async def spy(host: str, policy: PermissionPolicy | None) -> str:
        checked.append(host)
        return await real(host, policy)

    monkeypatch.setattr(http, "checked_address", spy)
    assert _fetch(f"{site}/moved", tmp_path).content.startswith(f"Fetched {site}/page")
    assert checked == ["127.0.0.1", "127.0.0.1"]


def test_the_url_must_be_http_with_a_host_and_no_credentials(site: str, tmp_path: Path) -> None:
    ftp = _fetch("ftp://127.0.0.1/x", tmp_path)
    assert ftp.content == (
        "INVALID_ARGS: 'ftp://127.0.0.1/x' is not an http(s) URL; pass a full URL such as https://example.com/page"
    )
    assert _fetch("http:///nohost", tmp_path).error_code == "INVALID_ARGS"
    for userinfo in ("alice@", "@"):  # an empty one too: the Host header is the URL's host as written
        refused = _fetch(f"http://{userinfo}127.0.0.1/", tmp_path)
        assert refused.content == (
            "INVALID_ARGS: the URL carries credentials (user:password@); WebFetch does not send any"
        )
    port = site.rsplit(":", 1)[1]
    tls = _fetch(
        f"https://127.0.0.1:{port}/page", tmp_path
    )  # https is allowed; this server speaks plain HTTP
    assert tls.error_code == "NETWORK_ERROR"
    assert tls.content.startswith(
        f"NETWORK_ERROR: could not fetch https://127.0.0.1:{port}/page: ConnectError: "
    )


def test_the_connection_goes_to_the_checked_address_and_the_name_stays_in_the_host_header(
    site: str, tmp_path: Path
) -> None:
    port = site.rsplit(":", 1)[1]
    assert not _fetch(f"http://localhost:{port}/page", tmp_path).is_error
    (_, headers), *_ = _Handler.seen
    assert headers["Host"] == f"localhost:{port}"
    assert headers["User-Agent"] == http.USER_AGENT


def test_the_request_url_pins_the_address() -> None:
    assert http._pinned("http://example.com:8080/a?b=1#c", "93.184.216.34") == (
        "http://93.184.216.34:8080/a?b=1#c",
        {"Host": "example.com:8080"},
        {},
    )
    assert http._pinned("https://example.com/a", "2606:2800::1") == (
        "https://[2606:2800::1]/a",
        {"Host": "example.com"},
        {"sni_hostname": "example.com"},
    )
    assert http.host_of("http://LocalHost:1/") == "127.0.0.1" and http.host_of("/relative") == ""


@pytest.mark.parametrize(("status", "code"), [(400, "HTTP_ERROR"), (399, None), (204, None)])
def test_an_answer_from_400_on_is_an_error(site: str, tmp_path: Path, status: int, code: str | None) -> None:
    _Handler.routes["/status"] = (status, {"Content-Type": "text/plain"}, b"" if status == 204 else b"body")
    assert _fetch(f"{site}/status", tmp_path).error_code == code


def test_a_location_header_without_a_redirect_status_is_not_followed(site: str, tmp_path: Path) -> None:
    _Handler.routes["/located"] = (200, {"Content-Type": "text/plain", "Location": "/page"}, b"here")
    assert _fetch(f"{site}/located", tmp_path).content.endswith("\n\nhere")


def test_a_redirect_loop_stops_after_five_hops(site: str, tmp_path: Path) -> None:
    _Handler.routes["/loop"] = (302, {"Location": "/loop"}, b"")
    result = _fetch(f"{site}/loop", tmp_path)
    assert result.content == f"HTTP_ERROR: {site}/loop redirected more than 5 times; stopped following"
    assert [p for p, _ in _Handler.seen] == ["/loop"] * 6


def test_an_untyped_page_is_sniffed_and_a_charset_is_honoured(site: str, tmp_path: Path) -> None:
    _Handler.routes["/untyped"] = (200, {}, b"<html><body><p>sniffed</p></body></html>")
    _Handler.routes["/latin"] = (200, {"Content-Type": "text/plain; charset=latin-1"}, b"caf\xe9")
    assert _fetch(f"{site}/untyped", tmp_path).content.endswith("\n\nsniffed")
    assert _fetch(f"{site}/latin", tmp_path).content.endswith("\n\ncafé")


def test_the_download_cap_is_exact(site: str, tmp_path: Path) -> None:
    _Handler.routes["/ten"] = (200, {"Content-Type": "text/plain"}, b"0123456789")
    named = PermissionPolicy(allow=[Rule.parse("WebFetch(domain:127.0.0.1)")])
    whole = asyncio.run(http.fetch(f"{site}/ten", max_bytes=10, timeout=10, policy=named))
    assert isinstance(whole, http.Fetched) and (whole.body, whole.truncated, whole.status) == (
        b"0123456789",
        False,
        200,
    )
    cut = asyncio.run(http.fetch(f"{site}/ten", max_bytes=9, timeout=10, policy=named))
    assert isinstance(cut, http.Fetched) and (cut.body, cut.truncated) == (b"012345678", True)


def test_a_page_that_never_ends_is_stopped_by_the_overall_deadline(site: str) -> None:
    named = PermissionPolicy(allow=[Rule.parse("WebFetch(domain:127.0.0.1)")])
    with pytest.raises(ToolError) as stopped:
        asyncio.run(http.fetch(f"{site}/drip", max_bytes=10**9, timeout=1.0, policy=named))
    assert (stopped.value.code, stopped.value.message) == (
        "TIMEOUT",
        f"{site}/drip did not answer within 1 s",
    )


def test_a_same_host_redirect_to_https_is_followed(site: str, tmp_path: Path) -> None:
    port = site.rsplit(":", 1)[1]
    _Handler.routes["/secure"] = (302, {"Location": f"https://127.0.0.1:{port}/page"}, b"")
    assert (
        _fetch(f"{site}/secure", tmp_path).error_code == "NETWORK_ERROR"
    )  # followed; this server has no TLS


def test_a_body_in_many_chunks_is_joined_as_sent(site: str) -> None:
    named = PermissionPolicy(allow=[Rule.parse("WebFetch(domain:127.0.0.1)")])
    whole = asyncio.run(http.fetch(f"{site}/big", max_bytes=10**7, timeout=10, policy=named))
    assert isinstance(whole, http.Fetched) and whole.body == b"line\n" * 50_000 and not whole.truncated
    cut = asyncio.run(http.fetch(f"{site}/big", max_bytes=100_000, timeout=10, policy=named))
    assert isinstance(cut, http.Fetched) and cut.body == (b"line\n" * 50_000)[:100_000]


def test_without_a_policy_no_local_address_is_allowed(site: str) -> None:
    with pytest.raises(ToolError) as refused:
        asyncio.run(http.fetch(f"{site}/page", max_bytes=1000, timeout=10))
    assert refused.value.code == "ADDRESS_NOT_ALLOWED"
