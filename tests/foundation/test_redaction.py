"""The redactor: known secrets and credential header values become ``[redacted]`` (issue 33.8)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from seamhost.redaction import MIN_SECRET_CHARS, REDACTED, Redactor

KEY = "sk-live-7f3a9c2e51d04b8a96e1"


def test_every_occurrence_of_a_secret_is_redacted_longest_first() -> None:
    redact = Redactor([KEY[:12], KEY])
    assert redact(f"key {KEY} and {KEY}; its start {KEY[:12]}") == (
        f"key {REDACTED} and {REDACTED}; its start {REDACTED}"
    )


def test_a_short_value_is_not_a_secret_worth_blanking_words_for() -> None:
    short = "x" * (MIN_SECRET_CHARS - 1)
    redact = Redactor([short, "password"])
    assert redact(f"{short} and password") == f"{short} and {REDACTED}"
    assert redact.secrets == ("password",)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Authorization: Bearer abc.def-123", "Authorization: Bearer [redacted]"),
        ("x-api-key: k-1234", "x-api-key: [redacted]"),
        ('{"authorization": "Basic dXNlcjpwYXNz"}', '{"authorization": "Basic [redacted]"}'),
        ("{'Proxy-Authorization': 'token t0k3n'}", "{'Proxy-Authorization': 'token [redacted]'}"),
        ('{\\"api-key\\": \\"k-1\\"}', '{\\"api-key\\": \\"[redacted]\\"}'),  # escaped JSON
        ("the authorization failed", "the authorization failed"),
    ],
)
def test_credential_header_values_are_redacted_whatever_they_are(text: str, expected: str) -> None:
    assert Redactor()(text) == expected


def test_redacting_twice_changes_nothing() -> None:
    redact = Redactor([KEY])
    once = redact(f"x-api-key: {KEY}; Authorization: Bearer {KEY}; key {KEY}")
    assert once == "x-api-key: [redacted]; Authorization: Bearer [redacted]; key [redacted]"
    assert redact(once) == once


def test_the_redactor_never_shows_its_secrets() -> None:
    assert KEY not in repr(Redactor([KEY]))


# A profile whose tool-policy rule takes its reason from the environment (any value may be a
# secret marker); then a plugin logs a failure quoting it, through the default handler.
LOGGING = """
import logging, sys
from seamhost.kernel.profile.resolve import resolve_profile

resolve_profile(sys.argv[1])
try:
    raise RuntimeError("the server said: token " + sys.argv[2])
except RuntimeError as exc:
    logging.getLogger("seamhost.seams").warning("observer failed: %s", exc, exc_info=exc)
"""


def test_log_records_are_redacted_once_a_profile_resolved_a_secret(tmp_path: Path) -> None:
    profile = tmp_path / "p.toml"
    profile.write_text(
        textwrap.dedent("""
            [profile]
            name = "p"
            [plugins.tool-policy]
            default = "allow"
            [[plugins.tool-policy.rules]]
            tool = "shell"
            command = "deploy*"
            decision = "deny"
            reason = { "$env" = "DEPLOY_TOKEN" }
        """)
    )
    done = subprocess.run(
        [sys.executable, "-c", LOGGING, str(profile), KEY],
        capture_output=True,
        text=True,
        check=False,
        env={"DEPLOY_TOKEN": KEY, "SEAMHOST_HOME": str(tmp_path / "home")},
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "observer failed: the server said: token [redacted]" in done.stderr
    assert "RuntimeError: the server said: token [redacted]" in done.stderr  # the traceback
    assert KEY not in done.stderr
