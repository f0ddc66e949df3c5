"""Generated bad files for the profile and scenario loaders: only their documented errors.

Whatever the bytes (nested far past the cap, NUL bytes, invalid UTF-8, past the size cap,
random bytes, random TOML-ish text), reading a profile file raises nothing but
:class:`~seamhost.errors.ConfigError`, and neither does reading a scenario: never a
``RecursionError``, ``UnicodeDecodeError``, ``RuntimeError`` or ``ValueError`` from below.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from seamhost_model_scripted.scenario_reader import load_scenario

from seamhost.errors import ConfigError
from seamhost.input_limits import PROFILE_BYTES
from seamhost.kernel.profile.files import read_file

OPENERS = ("[", "{a = ", '{"a": ', "[[", "{ x = [")
TOMLISH = st.text(
    alphabet=st.sampled_from(list('[]{}=".,\\\n #abc01~/\x00\xff\u2028')), max_size=300
)


@st.composite
def deep(draw: st.DrawFn) -> bytes:
    opener = draw(st.sampled_from(OPENERS))
    depth = draw(st.integers(min_value=60, max_value=6000))
    closer = {"[": "]", "{": "}"}
    tail = "".join(closer[c] for c in reversed(opener) if c in closer)
    return (f"k = {opener * depth}1{tail * depth}\n").encode()


@st.composite
def with_nul_or_bad_utf8(draw: st.DrawFn) -> bytes:
    text = draw(TOMLISH).encode("utf-8", "surrogatepass")
    cut = draw(st.integers(min_value=0, max_value=len(text)))
    poison = draw(st.sampled_from([b"\x00", b"\xff", b"\xc3", b"\xed\xa0\x80", b'"\\u0000"']))
    return text[:cut] + poison + text[cut:]


@st.composite
def huge(draw: st.DrawFn) -> bytes:
    return b"#" * (PROFILE_BYTES + draw(st.integers(min_value=1, max_value=64)))


BAD_FILES = st.one_of(
    deep(),
    with_nul_or_bad_utf8(),
    st.binary(max_size=400),
    TOMLISH.map(lambda t: t.encode("utf-8", "surrogatepass")),
    huge(),
)


def write(content: bytes, suffix: str) -> Path:
    with tempfile.NamedTemporaryFile(suffix=suffix, delete=False) as handle:
        handle.write(content)
    return Path(handle.name)


def only_config_errors(load: Callable[[Path], object], path: Path) -> None:
    """`load(path)` succeeds or raises a `ConfigError` naming the file; nothing else."""
    problem: ConfigError | None = None
    try:
        load(path)
    except ConfigError as exc:
        problem = exc
    finally:
        path.unlink()
    assert problem is None or str(path) in str(problem)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(BAD_FILES)
def test_the_profile_loader_raises_only_config_errors(content: bytes) -> None:
    only_config_errors(read_file, write(content, ".toml"))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(BAD_FILES, st.sampled_from([".toml", ".json"]))
def test_the_scenario_loader_raises_only_config_errors(content: bytes, suffix: str) -> None:
    only_config_errors(load_scenario, write(content, suffix))
