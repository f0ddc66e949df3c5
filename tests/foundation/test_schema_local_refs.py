"""A schema never resolves a reference outside its own document (issue 33, point 1).

fastjsonschema resolves a remote ``$ref`` over urllib: a schema naming ``http://...`` made the
host connect there, one naming ``file:///...`` made it read the file, and what came back was
compiled into the validator and its error messages. Every schema goes through
:func:`seamhost.schema.compile_schema`, so the traps here are set for it directly: a listening
socket that counts connections and a FIFO that sees a reader open it.
"""

from __future__ import annotations

import marshal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from seamhost import jsonvalue, schema
from seamhost.schema import SchemaReferenceError, compile_schema
from tests.reference_traps import FILE_SECRET, HTTP_SECRET, Listener, WatchedFifo


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(schema.CACHE_ENV, str(tmp_path / "cache"))


@pytest.fixture
def traps(tmp_path: Path) -> Iterator[tuple[Listener, WatchedFifo]]:
    with Listener() as listener, WatchedFifo(tmp_path / "trap.json") as fifo:
        yield listener, fifo


def obj(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


def outside(url: str, file_url: str) -> dict[str, tuple[dict[str, Any], str, str]]:
    """Each way of referring outside: the schema, the reference named, where it is."""
    return {
        "http": (obj(x={"$ref": url}), url, "/properties/x/$ref"),
        "file": (obj(y={"$ref": file_url}), file_url, "/properties/y/$ref"),
        "relative under a remote $id": (
            {"$id": f"{url}/base/", **obj(z={"$ref": "x.json"})},
            "x.json",
            "/properties/z/$ref",
        ),
        "nested $id": (
            {
                **obj(n={"$id": f"{url}/nested", **obj(m={"$ref": "#/definitions/a"})}),
                "definitions": {"a": {"type": "string"}},
            },
            f"{url}/nested",
            "/properties/n/$id",
        ),
        "in a list": (obj(a={"allOf": [{"$ref": url}]}), url, "/properties/a/allOf/0/$ref"),
        "in a const": (obj(c={"const": {"$ref": url}}), url, "/properties/c/const/$ref"),
        "another scheme": (
            obj(d={"$ref": "ftp://127.0.0.1/x"}),
            "ftp://127.0.0.1/x",
            "/properties/d/$ref",
        ),
    }


CASES = list(outside("http://h", "file:///f"))


@pytest.mark.parametrize("case", CASES)
def test_a_reference_outside_the_document_is_refused_and_never_followed(
    traps: tuple[Listener, WatchedFifo], case: str
) -> None:
    listener, fifo = traps
    value, reference, pointer = outside(listener.url, fifo.url)[case]
    with pytest.raises(SchemaReferenceError) as caught:
        compile_schema(value)
    error = caught.value
    assert error.reference == reference
    if pointer:
        assert error.pointer == pointer
    message = str(error)
    assert repr(reference) in message
    assert "inline" in message  # says what to do
    assert HTTP_SECRET not in message
    assert FILE_SECRET not in message
    assert listener.connections == 0
    assert not fifo.opened.wait(0.2)


def test_references_within_the_document_still_work(traps: tuple[Listener, WatchedFifo]) -> None:
    listener, fifo = traps
    value = {
        "$id": f"{listener.url}/root.json",  # a root $id only names the document
        "type": "object",
        "properties": {
            "n": {"$ref": "#/definitions/positive"},
            "$ref": {"type": "string"},  # a property named "$ref" is not a reference
            "id": {"type": "string", "default": "x"},
            "tags": {"type": "array", "items": {"$ref": "#/definitions/positive"}},
            "meta": {"type": "object", "default": {"id": "not-a-base"}},
        },
        "definitions": {"positive": {"type": "integer", "minimum": 1}},
    }
    check = compile_schema(value)
    violation = check({"n": 0})
    assert violation is not None
    assert violation.path == ("n",)
    assert check({"n": 2, "$ref": "a", "id": "b", "tags": [1]}) is None
    assert listener.connections == 0
    assert not fifo.opened.is_set()


def test_the_disk_cache_never_serves_a_schema_that_refers_outside(
    traps: tuple[Listener, WatchedFifo],
) -> None:
    """An entry for such a schema (planted, or written by a version that followed references)
    is never used: the references are checked before the cache is read."""
    listener, _ = traps
    value = obj(x={"$ref": listener.url})
    key = jsonvalue.digest(jsonvalue.thaw(value))
    entry = schema.cache_dir() / f"{schema._cache_name(key)}.marshal"
    entry.parent.mkdir(parents=True)
    planted = compile(
        "def validate(data, custom_formats={}, name_prefix=None):\n return data\n", "x", "exec"
    )
    entry.write_bytes(marshal.dumps(planted))
    with pytest.raises(SchemaReferenceError):
        compile_schema(value)
    assert listener.connections == 0


def test_a_long_reference_is_shown_cut_and_escaped() -> None:
    """The reference is someone else's text: quoted (control characters escaped) and cut."""
    reference = "http://h/\x1b]52;c;AAAA\x07" + "x" * 5000
    with pytest.raises(SchemaReferenceError) as caught:
        compile_schema(obj(x={"$ref": reference}))
    message = str(caught.value)
    assert len(message) < 600
    assert "\x1b" not in message
    assert "\x07" not in message
