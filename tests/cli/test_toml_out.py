"""The TOML writer of ``seamhost profile show``: what it writes, tomllib reads back unchanged."""

from __future__ import annotations

import datetime
import math
import tomllib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seamhost.cli.profile import toml_writer

KEYS = st.text(max_size=8) | st.sampled_from(["a", "b-c", "d_1", "x.y", "", "[z]", "é"])
OFFSETS = st.integers(-23 * 60 - 59, 23 * 60 + 59).map(
    lambda m: datetime.timezone(datetime.timedelta(minutes=m))
)
SCALARS = (
    st.text()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False)
    | st.booleans()
    | st.dates()
    | st.times()
    | st.datetimes()
    | st.datetimes(timezones=OFFSETS)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=20,
)
DOCUMENTS = st.dictionaries(KEYS, VALUES, max_size=6)


@settings(max_examples=400, deadline=None)
@given(DOCUMENTS)
def test_generated_documents_round_trip_through_tomllib(doc: dict[str, Any]) -> None:
    text = toml_writer.dumps(doc)
    assert tomllib.loads(text) == doc, text


def test_nan_and_infinities_round_trip() -> None:
    back = tomllib.loads(toml_writer.dumps({"a": math.nan, "b": math.inf, "c": -math.inf}))
    assert math.isnan(back["a"])
    assert (back["b"], back["c"]) == (math.inf, -math.inf)


def test_a_profile_reads_as_a_person_would_write_it() -> None:
    doc = {
        "profile": {"name": "team"},
        "plugins": {
            "tools": {},
            "hello": {"greeting": "Hi", "token": {"$env": "TOKEN"}},
            "tool-policy": {
                "default": "allow",
                "rules": [
                    {"tool": "shell", "command": "git push*", "decision": "ask"},
                    {"tool": "write_file", "args": {"path": "notes/*.md"}, "decision": "allow"},
                ],
            },
        },
        "sandbox": {"mode": "read-only", "writable_roots": [], "network": False},
        "require": {"plugins": {"hello": ">=0.1"}},
    }
    assert toml_writer.dumps(doc) == (
        "[profile]\n"
        'name = "team"\n'
        "\n"
        "[plugins.tools]\n"
        "\n"
        "[plugins.hello]\n"
        'greeting = "Hi"\n'
        'token = { "$env" = "TOKEN" }\n'
        "\n"
        "[plugins.tool-policy]\n"
        'default = "allow"\n'
        "\n"
        "[[plugins.tool-policy.rules]]\n"
        'tool = "shell"\n'
        'command = "git push*"\n'
        'decision = "ask"\n'
        "\n"
        "[[plugins.tool-policy.rules]]\n"
        'tool = "write_file"\n'
        'args = { path = "notes/*.md" }\n'
        'decision = "allow"\n'
        "\n"
        "[sandbox]\n"
        'mode = "read-only"\n'
        "writable_roots = []\n"
        "network = false\n"
        "\n"
        "[require.plugins]\n"
        'hello = ">=0.1"\n'
    )


def test_a_value_toml_cannot_hold_is_refused() -> None:
    with pytest.raises(TypeError, match="NoneType"):
        toml_writer.dumps({"a": None})
    with pytest.raises(TypeError, match="no UTC offset"):
        toml_writer.dumps({"a": datetime.time(1, tzinfo=datetime.UTC)})
