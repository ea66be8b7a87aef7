"""The masking functions one by one: the encoded forms, what counts as a location, the automaton's spans,
`clip` and `shorten` at their edges (a cut never halves a redaction), and the registry's module-level API."""

from __future__ import annotations

import os
import uuid

import pytest

from jupyter_agent import masking
from jupyter_agent.masking import SecretRegistry
from jupyter_agent.secret_scan import SecretScanner, encoded_forms, looks_like_location

KEY = "sk-ant-api03-Hq4Wz9Lx2Vm7Rb3Kt8Nc"


def test_the_encoded_forms_of_a_value() -> None:
    assert encoded_forms("a\"b'c<é/ +x") == {
        "a\"b'c<é/ +x",
        "a\\\"b'c<\\u00e9/ +x",
        "a\\\"b'c<é/ +x",
        "a\"b\\'c<é/ +x",
        "a&quot;b&#x27;c&lt;é/ +x",
        "a%22b%27c%3C%C3%A9%2F%20%2Bx",
        "a%22b%27c%3C%C3%A9/%20%2Bx",
        "a%22b%27c%3C%C3%A9%2F+%2Bx",
    }


@pytest.mark.parametrize(
    ("value", "location"),
    [
        ("https://u:p@host/db", True),
        ("/home/me/.aws/credentials", True),
        ("~/.netrc", True),
        ("./keys/x", True),
        ("../keys/x", True),
        ("C:\\keys\\x", True),
        ("C:", False),
        ("C:/x", False),
        ("ab:\\cd", False),
        ("plainsecretvalue", False),
        ("a/b", False),
    ],
)
def test_what_is_a_location_masked_only_whole(value: str, location: bool) -> None:
    assert looks_like_location(value) == location


def test_a_location_is_masked_whole_and_not_in_parts() -> None:
    scanner = SecretScanner({"/home/someone/.aws/credentials": "AWS_SHARED_CREDENTIALS_FILE"})
    assert scanner.mask("see /home/someone/.aws/credentials") == "see [redacted: AWS_SHARED_CREDENTIALS_FILE]"
    assert scanner.mask("cd /home/someone/src") == "cd /home/someone/src"


def test_the_automaton_at_its_edges() -> None:
    nine = "Zq8vR2mLx"
    scanner = SecretScanner({nine: "NINE"})
    assert scanner.longest == len(nine)
    assert scanner.mask(nine[1:]) == "[redacted: NINE]"  # the last run of eight
    assert scanner.mask(nine[2:]) == nine[2:]  # seven characters are not a run
    assert scanner.mask(f"{nine[:8]}") == "[redacted: NINE]"
    exact = SecretScanner({"Zq8vR2mL": "EIGHT"})
    assert exact.mask("xZq8vR2mLx") == "x[redacted: EIGHT]x"
    assert SecretScanner({}).spans("anything") == [] and SecretScanner({}).mask("") == ""
    assert SecretScanner({"abc": "SHORT"}).mask("abc") == "abc"
    assert (
        SecretScanner({"/abcdefg": "PATH8"}).mask("at /abcdefg") == "at [redacted: PATH8]"
    )  # a location of 8


def test_hits_that_touch_become_one_redaction_and_a_longer_secret_names_a_shared_run() -> None:
    scanner = SecretScanner({"Zq8vR2mLx9Tt": "A", "Pn7wKeY4Bd3s": "B"})
    assert scanner.mask("Zq8vR2mLx9TtPn7wKeY4Bd3s!") == "[redacted: A]!"
    shared = SecretScanner({"Lx9Tt4pN7wKe": "SHORT", "aaLx9Tt4pN7wKebb": "LONG"})
    assert shared.mask("Lx9Tt4pN") == "[redacted: LONG]"


def test_clip_masks_then_cuts_and_never_halves_a_redaction(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    red = "[redacted: ANTHROPIC_API_KEY]"
    assert masking.clip("abcdef", 6) == "abcdef"
    assert masking.clip("abcdefg", 6) == "abcdef…"
    assert masking.clip("abcdefg", 6, marker="") == "abcdef"
    assert masking.clip(KEY + "tail", 3) == red + "…"  # a redaction at 0, cut inside it
    assert masking.clip("ab" + KEY, 2) == "ab…"  # one that starts exactly at the cut is not taken
    assert masking.clip("a" + KEY, 2) == "a" + red + "…"  # one that starts just before the cut is
    assert masking.clip("x" + KEY + "y", len(red)) == "x" + red + "…"  # its "]" right at the cut
    two = f"{KEY} and {KEY} end"
    assert masking.clip(two, len(red) + 8) == f"{red} and {red}…"
    assert masking.clip(f"{KEY}] more ]", 5) == red + "…"
    assert masking.clip("] x " + KEY + " ]", 6) == "] x " + red + "…"


def test_shorten_fits_the_width_with_its_marker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    assert masking.shorten("abcde", 5) == "abcde"
    assert masking.shorten("abcdef", 5) == "abcd…"
    assert masking.shorten(KEY, 40) == "[redacted: ANTHROPIC_API_KEY]"


def test_the_registry_at_its_edges() -> None:
    secrets = SecretRegistry(environ={"DB_URL": "postgres://u:pw345678@h/db", "APP_TOKEN": "12345678"})
    found = secrets.secrets()
    assert found["pw345678"] == "DB_URL" and found["12345678"] == "APP_TOKEN"  # eight characters count
    secrets.register("label", None)
    secrets.register("label", "1234567")
    secrets.register("label", "abcdefgh")
    assert secrets.secrets()["abcdefgh"] == "label" and "1234567" not in secrets.secrets()
    assert secrets.scanner() is secrets.scanner()  # rebuilt only when the secrets change
    longer = SecretRegistry(environ={"APP_TOKEN": "Zq8vR2mLx9Tt4pN7"}, min_chars=10)
    assert longer.mask("Zq8vR2mL") == "Zq8vR2mL" and longer.mask("Zq8vR2mLx9") == "[redacted: APP_TOKEN]"


def test_patterns_with_question_marks_and_an_empty_list() -> None:
    secrets = SecretRegistry(environ={"KEY_A": "abcdefghijk", "KEYXA": "lmnopqrstuv"}, patterns=["KEY?A"])
    assert set(secrets.secrets().values()) == {"KEY_A", "KEYXA"}
    assert SecretRegistry(environ={"X_TOKEN": "abcdefghijk"}, patterns=[]).secrets() == {}


def test_the_module_level_api_uses_the_process_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    value = f"registered-{uuid.uuid4().hex}"  # new each run: the process registry outlives a test
    masking.register("test label", value)
    assert masking.mask(f"a {value} b") == "a [redacted: test label] b"
    assert masking.mask_data({"k": [value]}) == {"k": ["[redacted: test label]"]}
    assert masking.mask_data((value,)) == ["[redacted: test label]"]
    monkeypatch.setenv("SERVICE_TOKEN", "service-token-value")
    monkeypatch.setenv("PLAIN_SETTING", "visible")
    scrubbed = masking.scrubbed_environ()
    assert "SERVICE_TOKEN" not in scrubbed and scrubbed["PLAIN_SETTING"] == "visible"
    assert masking.scrubbed_environ(keep=["SERVICE_TOKEN"])["SERVICE_TOKEN"] == "service-token-value"
    assert set(masking.scrubbed_environ({"A_TOKEN": "x" * 9, "B": "y"})) == {"B"}
    assert os.environ["SERVICE_TOKEN"] == "service-token-value"
