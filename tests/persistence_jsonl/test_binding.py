"""Layout 2's binding at work: the chain, the keyed MAC, the mark, and layout-1 sessions kept.

The attacker here can write the store and knows the format (design.md §7, "What the binding
detects"): they recompute checksums, and the chain too where that is all it takes. Without the
key they cannot make a MAC. Layout-1 sessions come from a fixture written by the code before
layout 2 (tests/persistence_jsonl/fixtures/layout-v1), copied before each use.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import zlib
from pathlib import Path

import pytest
import zstandard
from click.testing import CliRunner
from seamhost_persistence_jsonl import format as fmt
from seamhost_persistence_jsonl.binding import MacKey
from seamhost_persistence_jsonl.errors import MacKeyRefused
from seamhost_persistence_jsonl.format import SNAPSHOT_NAME
from seamhost_persistence_jsonl.mark import MARK_NAME
from seamhost_persistence_jsonl.store import JsonlStore

from seamhost.cli import main
from seamhost.cli.exitcodes import ExitCode
from seamhost.session.live import Session
from seamhost.store import SessionCorrupted
from seamhost.testing.persistence import append_all, make_header, sample_events
from seamhost.testing.persistence_snapshots import turn_events
from tests.conftest import run_cli
from tests.persistence_jsonl.conftest import flush, frame_spans, write_session

FIXTURE = Path(__file__).parent / "fixtures" / "layout-v1"


@pytest.fixture
def key_file(tmp_path: Path) -> Path:
    path = tmp_path / "keys" / "store.key"
    path.parent.mkdir()
    path.write_bytes(os.urandom(32))
    path.chmod(0o600)
    return path


def keyed(root: Path, key_file: Path) -> JsonlStore:
    return JsonlStore(root, batch_window_ms=600_000, mac_key_file=key_file)


def forge(path: Path, index: int, *, key: MacKey | None = None, rechain: bool = True) -> int:
    """Rewrite frame `index` of the log with other words, as a writer of the store who knows
    the format would: checksums recomputed; with `rechain`, every chain digest from there on
    too (and a MAC under `key`, the forger's own, when given); returns the frame's offset."""
    data = path.read_bytes()
    spans = frame_spans(path)
    out = bytearray(data[: spans[index].offset])
    prev = data[spans[index - 1].offset + 32 : spans[index - 1].offset + 64]
    for number, span in enumerate(spans[index:]):
        payload = data[span.payload : span.end]
        if number == 0:
            content = zstandard.ZstdDecompressor().decompress(payload)
            content = content.replace(b"xxxx", b"yyyy")
            payload = zstandard.ZstdCompressor(write_checksum=True).compress(content)
        if rechain:
            head = fmt.frame_header(
                span.kind, payload, span.first_seq, span.count, prev=prev, key=key
            )
        else:  # the old chain digest and MAC kept, the CRCs made to match
            old = data[span.offset : span.payload]
            info = fmt.FRAME_INFO.pack(
                span.kind, old[9], len(payload), span.first_seq, span.count, zlib.crc32(payload)
            )
            bound = info + old[32:80]
            head = old[:8] + bound + fmt.FRAME_CHECK.pack(zlib.crc32(bound))
        prev = head[32:64]
        out += head + payload
    path.write_bytes(bytes(out))
    (path.parent / MARK_NAME).unlink(missing_ok=True)  # it names the old chain: the forger drops it
    return spans[index].offset


def test_a_frame_rewritten_with_its_checksums_but_not_its_chain_is_refused(
    store: JsonlStore,
) -> None:
    path, _ = write_session(store)
    offset = forge(path, 2, rechain=False)
    check = store.verify("s-1")
    assert (check.offset, check.problem is not None) == (offset, True)
    assert "chain broken" in (check.problem or "")


def test_without_a_key_a_forger_who_recomputes_the_chain_goes_unseen(store: JsonlStore) -> None:
    """What the chain alone cannot do (design.md §7): stated, so that no one relies on it."""
    path, _ = write_session(store)
    forge(path, 2)
    assert store.verify("s-1").intact


def test_a_keyed_log_edited_without_the_key_fails_verify(root: Path, key_file: Path) -> None:
    store = keyed(root, key_file)
    path, written = write_session(store)
    assert [r.envelope() for r in store.read("s-1").records()] == written
    check = store.verify("s-1")
    assert (check.intact, check.binding) == (True, "keyed")
    assert all(path.read_bytes()[span.offset + 9] == 1 for span in frame_spans(path))

    pristine = path.read_bytes()
    forger = MacKey(os.urandom(32), "the forger's own")
    for attempt in ({"key": forger}, {"key": None}, {"rechain": False}):
        path.write_bytes(pristine)
        offset = forge(path, 2, **attempt)
        check = store.verify("s-1")
        assert not check.intact, attempt
        assert check.offset == offset, attempt
        with pytest.raises(SessionCorrupted):
            list(store.read("s-1").records())
        with pytest.raises(SessionCorrupted):
            store.open("s-1")
    path.write_bytes(pristine)
    result = CliRunner().invoke(main, ["session", "verify", "s-1", "--root", str(root)])
    assert result.exit_code == 0, "a reader without the key checks the chain, not the MACs"
    assert "keyed (MAC not checked: no key)" in result.output


def test_a_keyed_store_refuses_a_session_written_without_the_key(
    root: Path, key_file: Path
) -> None:
    write_session(JsonlStore(root, batch_window_ms=600_000))
    check = keyed(root, key_file).verify("s-1")
    assert not check.intact
    assert "carries no MAC" in (check.problem or "")


def test_a_keyed_store_refuses_a_layout_1_session(tmp_path: Path, key_file: Path) -> None:
    """Else a forger without the key writes the old layout, which carries no MAC."""
    root = tmp_path / "zstd"
    shutil.copytree(FIXTURE / "zstd", root)
    store = JsonlStore(root, mac_key_file=key_file)
    check = store.verify("old-framed")
    assert not check.intact
    assert "carries no MAC" in (check.problem or "")
    assert "layout-1" in (check.problem or "")
    with pytest.raises(SessionCorrupted):
        store.open("old-framed")
    assert store.stat("old-framed").header.session_id == "old-framed"  # listing reads a header


def test_a_keyed_store_keeps_no_record_of_a_torn_frame(root: Path, key_file: Path) -> None:
    store = keyed(root, key_file)
    path, _ = write_session(store)
    last = frame_spans(path)[-1]
    path.write_bytes(path.read_bytes()[: last.end - 3])
    (path.parent / MARK_NAME).unlink()
    assert len(list(store.read("s-1").records())) == last.first_seq
    session = Session(store.open("s-1"))
    append_all(session, sample_events())
    flush(session)
    session.close()
    assert store.verify("s-1").intact
    assert len(list(store.read("s-1").records())) == last.first_seq + len(sample_events())


@pytest.mark.parametrize(
    ("problem", "prepare"),
    [
        ("its mode is 0644", lambda path, root: path.chmod(0o644)),
        ("holds 8 bytes", lambda path, root: path.write_bytes(b"12345678")),
        ("inside the store root", lambda path, root: shutil.move(path, root / "k") and None),
        ("No such file", lambda path, root: path.unlink()),
    ],
    ids=["mode", "short", "inside", "missing"],
)
def test_a_key_file_that_proves_nothing_is_refused(
    root: Path, key_file: Path, problem: str, prepare: object
) -> None:
    root.mkdir()
    prepare(key_file, root)  # type: ignore[operator]
    path = root / "k" if problem.startswith("inside") else key_file
    with pytest.raises(MacKeyRefused, match=problem):
        JsonlStore(root, mac_key_file=path)


def test_a_profile_key_file_error_is_exit_2_naming_the_key(tmp_path: Path, key_file: Path) -> None:
    key_file.chmod(0o640)
    profile = tmp_path / "keyed.toml"
    profile.write_text(
        '[profile]\nname = "keyed"\nextends = "default"\n\n[plugins.persistence-jsonl]\n'
        f'root = "{tmp_path / "sessions"}"\nmac_key_file = "{key_file}"\n'
    )
    (tmp_path / "sessions").mkdir()
    ran = run_cli("session", "verify", "--all", "--profile", str(profile))
    assert ran.returncode == ExitCode.USAGE, ran.stdout + ran.stderr
    assert "plugins.persistence-jsonl.mac_key_file" in ran.stderr
    assert "chmod 600" in ran.stderr
    assert "Traceback" not in ran.stderr


def test_plain_logs_cannot_carry_a_mac(root: Path, key_file: Path) -> None:
    with pytest.raises(ValueError, match='compression = "zstd"'):
        JsonlStore(root, compression="none", mac_key_file=key_file)


@pytest.mark.parametrize(
    ("encoding", "session_id"), [("zstd", "old-framed"), ("none", "old-plain")]
)
def test_a_layout_1_session_opens_resumes_and_verifies_as_unbound(
    tmp_path: Path, encoding: str, session_id: str
) -> None:
    root = tmp_path / encoding
    shutil.copytree(FIXTURE / encoding, root)
    old = next((root / session_id).glob("session.v1.jsonl*"))
    store = JsonlStore(root, compression=encoding, batch_window_ms=600_000)  # type: ignore[arg-type]
    before = [r.envelope() for r in store.read(session_id).records()]
    assert len(before) == 24
    check = store.verify(session_id)
    assert check.intact
    assert (check.binding or "").startswith("unbound")

    session = Session(store.open(session_id))
    assert [r.envelope() for r in session.records] == before
    append_all(session, sample_events())
    flush(session)
    session.close()
    assert sorted(p.name for p in (root / session_id).glob("session.v*")) == [old.name]
    after = [r.envelope() for r in store.read(session_id).records()]
    assert after[:24] == before
    assert len(after) == 32
    if encoding == "zstd":  # appended in its own layout: 36-byte frame headers, no binding
        assert {span.head for span in frame_spans(old)} == {fmt.V1_FRAME_HEADER_SIZE}
    result = CliRunner().invoke(
        main, ["session", "verify", session_id, "--root", str(root)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert "unbound" in result.output

    # Resumed by this version, it has a mark: cutting its log back is seen, even unbound.
    old.write_bytes(old.read_bytes()[: old.stat().st_size - 200])
    with pytest.raises(SessionCorrupted, match="rolled back"):
        store.open(session_id)


def test_new_sessions_are_written_in_layout_2(store: JsonlStore) -> None:
    path, _ = write_session(store)
    assert path.name == "session.v2.jsonl.zst"
    check = store.verify("s-1")
    assert (check.intact, check.binding) == (True, "bound")
    spans = frame_spans(path)
    assert {span.head for span in spans} == {fmt.FRAME_HEADER_SIZE}


def test_a_keyed_store_trusts_only_a_snapshot_made_with_its_key(root: Path, key_file: Path) -> None:
    """Opening trusts a snapshot's state (its open turn, its approvals) without reading the log
    it stands for: under a key, a snapshot a store writer made or kept from before is ignored."""
    store = JsonlStore(root, snapshot_every=1, mac_key_file=key_file)
    session = Session(store.create(make_header("s-1")), flush=lambda s: s.writer.flush())
    for turn in (1, 2, 3):
        for kind, data, ignorable in turn_events(turn, ended=turn < 3):
            session.append_data(kind, data, ignorable=ignorable)
        asyncio.run(session.flush())
    written = [r.envelope() for r in session.records]
    session.close()
    side = root / "s-1" / SNAPSHOT_NAME
    first, rest = side.read_bytes().split(b"\n", 1)
    assert len(first.split(b" ")) == 2, "the side file carries a MAC"

    for stored, trusted in (
        (first, True),
        (first.split(b" ")[0], False),
        (first[:-1] + (b"1" if first.endswith(b"0") else b"0"), False),
    ):
        side.write_bytes(stored + b"\n" + rest)
        again = Session(store.open("s-1"))
        assert (again.resumed is not None) == trusted, stored
        assert [r.envelope() for r in again.records] == written
        again.close()
    unkeyed = Session(JsonlStore(root).open("s-1"))  # the chain is checked, the MAC not
    assert [r.envelope() for r in unkeyed.records] == written
    unkeyed.close()


def test_a_rollback_of_the_whole_session_directory_goes_unseen(
    store: JsonlStore, root: Path
) -> None:
    """What no check inside the store can see (design.md §7): the log and its mark put back
    together to an earlier state. Stated, so that no one relies on the mark for it."""
    write_session(store, batches=2)
    shutil.copytree(root / "s-1", root.parent / "earlier")
    session = Session(store.open("s-1"))
    append_all(session, sample_events())
    flush(session)
    session.close()
    shutil.rmtree(root / "s-1")
    shutil.copytree(root.parent / "earlier", root / "s-1")
    check = store.verify("s-1")
    assert (check.intact, check.records) == (True, 16)
