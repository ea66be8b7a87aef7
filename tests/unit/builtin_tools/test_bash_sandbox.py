"""Bash in the OS sandbox (bubblewrap), through the real Dispatcher and real bwrap — and the fallback, forced.

Both paths run in one test run: the sandboxed tests need a working bwrap (scripts/install.sh installs
bubblewrap; they skip, saying why, on a machine where it cannot start); the fallback tests point
JUPYTER_AGENT_BWRAP at a bwrap that does not exist or cannot start, and check that commands then run
unsandboxed and that the approval says so.
"""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from dispatch_harness import Approvals, ToolHarness
from process_probe import alive_with

from jupyter_agent.builtin_tools.shell import bash_tool
from jupyter_agent.permissions.bubblewrap import BWRAP_ENV, check_sandbox, slirp4netns
from jupyter_agent.tools import (
    Approve,
    Sandbox,
    ToolResult,
)
from jupyter_agent.tools.dispatch import Reject

CHECK = check_sandbox()
needs_bwrap = pytest.mark.skipif(
    CHECK.bubblewrap is None, reason=f"no working bubblewrap here: {CHECK.problem}"
)


@pytest.fixture
def world(tmp_path: Path) -> Path:
    """`tmp_path/project` is the root; `tmp_path` around it is outside."""
    root = tmp_path / "project"
    root.mkdir()
    return root


def bash(root: Path, command: str, *, roots: tuple[Path, ...] = (), network: bool = False) -> ToolResult:
    tools = ToolHarness(root, [bash_tool()], mode="bypassPermissions", roots=roots, network=network)
    return tools.call("Bash", command=command)


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A TCP server on 127.0.0.1 that nobody else knows about: a pending connection means the command reached it."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    server.setblocking(False)
    yield server
    server.close()


def was_reached(server: socket.socket) -> bool:
    try:
        conn, _ = server.accept()
    except BlockingIOError:
        return False
    conn.close()
    return True


@needs_bwrap
def test_the_kernels_process_and_its_environment_are_out_of_sight(world: Path) -> None:
    result = bash(world, f"cat /proc/{os.getpid()}/environ; ls /proc | grep -c '^[0-9]'; echo ppid=$PPID")
    assert "No such file or directory" in result.content  # this process does not exist in there
    counted = [line for line in result.content.splitlines() if line.isdigit()]
    assert counted and int(counted[0]) < 10, result.content  # only the sandbox's own few processes
    assert "ppid=1" in result.content


@needs_bwrap
def test_the_sandboxs_first_process_holds_only_the_scrubbed_environment(
    world: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-sandbox-probe")
    monkeypatch.setenv("MY_SETTING", "visible")
    result = bash(world, "cat /proc/*/environ | tr '\\0' '\\n'; cat /proc/$PPID/environ | tr '\\0' '\\n'")
    assert "sk-ant-sandbox-probe" not in result.content
    assert "MY_SETTING=visible" in result.content


@needs_bwrap
def test_touch_outside_the_roots_fails_and_leaves_no_file(world: Path) -> None:
    result = bash(world, "touch ../x")
    assert result.error_code == "EXECUTION_ERROR"
    assert "Read-only file system" in result.content
    assert not (world.parent / "x").exists()


@needs_bwrap
def test_the_roots_stay_writable(world: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    second = tmp_path_factory.mktemp("second")
    result = bash(
        world,
        f"echo a > made.txt && mkdir -p d && echo b > {second}/also.txt && cat made.txt",
        roots=(world, second),
    )
    assert result.content == "a"
    assert (world / "made.txt").read_text() == "a\n"
    assert (second / "also.txt").read_text() == "b\n"


@needs_bwrap
def test_tmp_is_private(world: Path) -> None:
    marker = f"/tmp/jupyter-agent-private-{os.getpid()}"
    assert not bash(world, f"touch {marker} && ls {marker}").is_error
    assert not Path(marker).exists()


@needs_bwrap
def test_a_network_call_to_a_local_server_fails(world: Path, listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    result = bash(world, f"echo hi > /dev/tcp/127.0.0.1/{port}")
    assert result.error_code == "EXECUTION_ERROR"
    assert not was_reached(listener)


@needs_bwrap
@pytest.mark.skipif(
    slirp4netns() is None, reason="slirp4netns is not installed (apt-get install slirp4netns)"
)
def test_bash_network_reaches_out_but_not_the_hosts_loopback_where_the_kernel_listens(
    world: Path, listener: socket.socket
) -> None:
    outside = socket.socket(socket.AF_INET, socket.SOCK_STREAM)  # a service on the host's own address
    outside.bind(("0.0.0.0", 0))
    outside.listen(4)
    outside.setblocking(False)
    host = _host_address()
    try:
        out = bash(world, f"echo hi > /dev/tcp/{host}/{outside.getsockname()[1]} && echo sent", network=True)
        assert out.content == "sent", out.content
        assert was_reached(outside)
        kernel_like = bash(world, f"echo hi > /dev/tcp/127.0.0.1/{listener.getsockname()[1]}", network=True)
        assert kernel_like.error_code == "EXECUTION_ERROR"
        assert not was_reached(listener)
    finally:
        outside.close()


@needs_bwrap
@pytest.mark.skipif(
    slirp4netns() is None, reason="slirp4netns is not installed (apt-get install slirp4netns)"
)
def test_sandboxes_with_network_started_at_once_all_run(world: Path) -> None:
    """bwrap reports its PID before it sets up the sandbox's loopback; slirp4netns must not join before that
    (it made 8 of 60 concurrent starts fail with "loopback: Failed RTM_NEWADDR")."""
    tools = ToolHarness(world, [bash_tool()], mode="bypassPermissions", network=True)

    async def many() -> list[ToolResult]:
        calls = [tools.acall("Bash", call_id=f"t{n}", command=f"echo ran {n}") for n in range(16)]
        return list(await asyncio.gather(*calls))

    for _round in range(2):
        results = asyncio.run(many())
        assert [r.content for r in results] == [f"ran {n}" for n in range(16)]


def _host_address() -> str:
    """The host's address on its default route (what the sandbox reaches through slirp's NAT)."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.254", 9))  # no packet is sent: UDP connect only picks the route
        return probe.getsockname()[0]
    finally:
        probe.close()


@pytest.fixture
def run_socket() -> Iterator[tuple[socket.socket, Path]]:
    """A unix socket in /run, where local services (a database, docker) put theirs."""
    path = Path(f"/run/jupyter-agent-test-{os.getpid()}.sock")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind(str(path))
    except OSError as exc:
        server.close()
        pytest.skip(f"cannot make a socket in /run here: {exc}")
    server.listen(4)
    server.setblocking(False)
    yield server, path
    server.close()
    path.unlink()


def connect_to(path: Path) -> str:
    # The interpreter itself, not the venv's link to it: a checkout under /tmp (CI's clone) puts the venv
    # behind the sandbox's private /tmp, and "not found" would pass the first assertion for the wrong reason.
    python = os.path.realpath(sys.executable)
    return f"{python} -c \"import socket; socket.socket(socket.AF_UNIX).connect('{path}')\""


@needs_bwrap
def test_a_local_services_socket_in_run_is_out_of_reach(
    world: Path, run_socket: tuple[socket.socket, Path]
) -> None:
    server, path = run_socket
    assert bash(world, connect_to(path)).error_code == "EXECUTION_ERROR"
    assert not was_reached(server)
    assert not bash(world, connect_to(path), network=True).is_error  # bash_network opens it again
    assert was_reached(server)


@needs_bwrap
def test_a_timeout_still_kills_everything_the_sandboxed_command_started(world: Path) -> None:
    marker = f"{os.getpid()}.4242"  # a sleep length no other process uses
    tools = ToolHarness(world, [bash_tool()], mode="bypassPermissions")
    command = f"sleep {marker} & (sleep {marker}; echo never) & setsid sleep {marker} & echo started; wait"
    result = tools.call("Bash", command=command, timeout=5000)
    assert result.error_code == "TIMEOUT"
    assert "started" in result.content
    assert alive_with(marker) == []


# -- the fallback: no working bwrap ------------------------------------------------------------------------


@pytest.fixture(params=["missing", "cannot start"])
def no_sandbox(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> str:
    if request.param == "missing":
        monkeypatch.setenv(BWRAP_ENV, str(tmp_path / "no-such-bwrap"))
    else:
        monkeypatch.setenv(
            BWRAP_ENV, "/bin/false"
        )  # starts, then fails as bwrap does without user namespaces
    return request.param


def test_without_a_working_bwrap_commands_run_unsandboxed_and_say_so(world: Path, no_sandbox: str) -> None:
    check = check_sandbox()
    assert check.bubblewrap is None
    assert check.describe().startswith("unsandboxed: ")
    assert ("not" if no_sandbox == "missing" else "cannot start") in check.problem
    assert not bash(world, "touch ../x").is_error  # really unsandboxed: the parent is writable
    assert (world.parent / "x").exists()


def approval_preview(world: Path, command: str) -> str:
    """What the person approving `command` is shown (default mode asks before every command)."""
    person = Approvals(Approve())
    ToolHarness(world, [bash_tool()], approver=person).call("Bash", command=command)
    return person.requests[0].preview.text


def test_the_approval_of_an_unsandboxed_command_says_unsandboxed(world: Path, no_sandbox: str) -> None:
    preview = approval_preview(world, "ls")
    assert preview.startswith("# unsandboxed: ")
    assert preview.endswith("\nls")


@needs_bwrap
def test_the_approval_of_a_sandboxed_command_shows_just_the_command(world: Path) -> None:
    assert approval_preview(world, "ls") == "ls"


# -- fail closed: an allow rule does not run Bash outside its sandbox ----------------------------------------------


def test_an_allow_rule_does_not_run_an_unsandboxed_command_without_asking(
    world: Path, no_sandbox: str
) -> None:
    person = Approvals(Reject(message="not unsandboxed"))
    result = ToolHarness(world, [bash_tool()], allow=["Bash"], approver=person).call(
        "Bash", command="touch ../outside-bash.txt"
    )
    (request,) = person.requests
    assert request.reason.startswith("unsandboxed: ")
    assert 'AgentMagics.bash_sandbox = "off"' in request.reason
    assert request.preview.text.startswith("# unsandboxed: ")
    assert (request.allowing_rule, request.allowing_mode) == (None, "bypassPermissions")
    assert result.error_code == "DENIED"
    assert not (world.parent / "outside-bash.txt").exists()


def test_approved_once_the_unsandboxed_command_runs(world: Path, no_sandbox: str) -> None:
    result = ToolHarness(world, [bash_tool()], allow=["Bash"], approver=Approvals(Approve())).call(
        "Bash", command="touch ../outside-bash.txt"
    )
    assert not result.is_error, result.content
    assert (world.parent / "outside-bash.txt").exists()


@pytest.mark.parametrize("rule", ["Bash", "Bash(touch:*)"])
def test_headless_an_unsandboxed_command_under_an_allow_rule_is_refused_with_the_hint(
    world: Path, no_sandbox: str, rule: str
) -> None:
    result = ToolHarness(world, [bash_tool()], allow=[rule]).call("Bash", command="touch ../outside-bash.txt")
    assert result.error_code == "DENIED"
    assert "no one is there to approve Bash (unsandboxed: " in result.content
    assert 'set %config AgentMagics.bash_sandbox = "off"' in result.content
    assert not (world.parent / "outside-bash.txt").exists()


def test_headless_in_default_mode_the_refusal_names_the_sandbox_not_a_rule_that_would_still_ask(
    world: Path, no_sandbox: str
) -> None:
    result = ToolHarness(world, [bash_tool()]).call("Bash", command="ls")
    assert result.error_code == "DENIED"
    assert "default mode asks before execute tools; unsandboxed: " in result.content
    assert "%agent allow Bash(ls)" not in result.content  # that rule alone would still ask


def test_with_bash_sandbox_off_an_allow_rule_runs_it_unsandboxed(world: Path, no_sandbox: str) -> None:
    sandbox = Sandbox.at(world, bash_sandbox="off")
    result = ToolHarness(sandbox, [bash_tool()], allow=["Bash"]).call(
        "Bash", command="touch ../outside-bash.txt"
    )
    assert not result.is_error, result.content
    assert (world.parent / "outside-bash.txt").exists()
    assert "allow rules run commands unsandboxed" in check_sandbox().describe(required=False)


def test_bubblewrap_is_linux_only(monkeypatch: pytest.MonkeyPatch, world: Path) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    check = check_sandbox()
    assert check.bubblewrap is None
    assert check.problem == "the OS sandbox (bubblewrap) runs only on Linux, and this kernel runs on darwin"
    result = ToolHarness(world, [bash_tool()], allow=["Bash"]).call("Bash", command="ls")
    assert result.error_code == "DENIED" and "runs only on Linux" in result.content


def test_a_missing_bwrap_override_hides_bwrap_and_says_which(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(BWRAP_ENV, str(tmp_path / "gone"))
    assert check_sandbox().problem == f"{BWRAP_ENV} names {tmp_path / 'gone'}, which does not exist"


@needs_bwrap
def test_with_a_working_sandbox_an_allow_rule_runs_the_command_without_asking(world: Path) -> None:
    person = Approvals(Reject())
    result = ToolHarness(world, [bash_tool()], allow=["Bash"], approver=person).call(
        "Bash", command="echo hi"
    )
    assert (result.content, person.requests) == ("hi", [])
