"""The plugin as the kernel loads it: its table, backend choice, failures, probing."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import attrs
import pytest
from seamhost_sandbox_local import (
    ModeNotConfinable,
    NoUsableBackend,
    descriptor,
    probe_backends,
)
from seamhost_sandbox_local.bubblewrap import Bubblewrap
from seamhost_sandbox_local.config import Settings
from seamhost_sandbox_local.plugin import find_backend
from seamhost_sandbox_local.probing import Inspection, cached_report, probe, report_of

from seamhost.errors import ConfigError
from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.plugins import discover
from seamhost.kernel.profile.resolve import resolve_profile
from seamhost.sandbox.confinement import ConfinedCommand, ConfineRequest
from seamhost.sandbox.policy import SandboxMode
from tests.sandbox_local.conftest import make_plugin, working

RO, WW, FULL = (
    SandboxMode.READ_ONLY,
    SandboxMode.WORKSPACE_WRITE,
    SandboxMode.DANGER_FULL_ACCESS,
)


def confine(request: ConfineRequest, **config: object) -> ConfinedCommand:
    return asyncio.run(make_plugin(**config).sandbox_confine(request))


def failure(request: ConfineRequest, **config: object) -> NoUsableBackend:
    with pytest.raises(NoUsableBackend) as raised:
        confine(request, **config)
    return raised.value


# -- the profile table ------------------------------------------------------------------------


def write_profile(tmp_path: Path, table: str) -> Path:
    path = tmp_path / "p.toml"
    path.write_text(f'[profile]\nname = "p"\n[plugins.sandbox-local]\n{table}')
    return path


def test_descriptor() -> None:
    assert descriptor.name == "sandbox-local"
    assert descriptor.provides == frozenset({"sandbox/confine"})
    assert descriptor.config_keys == {"backends", "network", "bwrap_path"}


def test_the_table_builds_a_provider(tmp_path: Path) -> None:
    profile = write_profile(tmp_path, 'backends = ["landlock", "bwrap"]\nnetwork = true\n')
    bundle = build_bundle(resolve_profile(str(profile)))
    assert bundle.seams.implementers("sandbox/confine") == ("sandbox-local",)


@pytest.mark.parametrize(
    ("table", "key"),
    [
        ('backends = ["seatbelt"]\n', "backends"),
        ('backends = ["bwrap", "bwrap"]\n', "backends"),
        ('network = "yes"\n', "network"),
        ('bwrap_path = ""\n', "bwrap_path"),
        ('bwrap_path = "bin/bwrap"\n', "bwrap_path"),
        ("landlock_abi = 3\n", "landlock_abi"),
    ],
)
def test_invalid_tables_name_the_key(tmp_path: Path, table: str, key: str) -> None:
    with pytest.raises(ConfigError) as raised:
        resolve_profile(str(write_profile(tmp_path, table)))
    assert "sandbox-local" in str(raised.value)
    assert key in str(raised.value)


# -- choosing a backend -----------------------------------------------------------------------


def test_the_first_working_backend_in_the_configured_order_wins(tmp_path: Path) -> None:
    working("bwrap")
    working("landlock")
    request = ConfineRequest(("true",), WW, tmp_path)
    assert confine(request).backend == "bwrap"
    assert confine(request, backends=["landlock", "bwrap"]).backend == "landlock"


def test_a_missing_bwrap_path_falls_through_to_landlock(tmp_path: Path) -> None:
    working("landlock")
    request = ConfineRequest(("true",), WW, tmp_path)
    assert confine(request, bwrap_path=str(tmp_path / "bwrap")).backend == "landlock"


def test_a_path_without_bwrap_falls_through_to_landlock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    working("landlock")
    monkeypatch.setenv("PATH", str(tmp_path))
    assert Bubblewrap.find(None).executable is None
    assert confine(ConfineRequest(("true",), RO, tmp_path)).backend == "landlock"


def test_no_backend_enabled_is_unavailable(tmp_path: Path) -> None:
    raised = failure(ConfineRequest(("true",), RO, tmp_path), backends=[])
    assert raised.reasons == ()
    assert "backends = []" in str(raised)
    assert "seamhost doctor" in str(raised)


def test_every_backend_failing_names_each_reason(tmp_path: Path) -> None:
    missing = str(tmp_path / "bwrap")
    raised = failure(
        ConfineRequest(("true",), WW, tmp_path), backends=["bwrap"], bwrap_path=missing
    )
    assert raised.mode == "workspace-write"
    assert raised.reasons == (f"bwrap: bwrap_path {missing} is not an executable file",)


def test_full_access_is_never_wrapped(tmp_path: Path) -> None:
    with pytest.raises(ModeNotConfinable):
        confine(ConfineRequest(("true",), FULL, tmp_path))


@pytest.mark.parametrize(("configured", "requested"), [(False, True), (True, False), (True, True)])
def test_a_request_can_only_narrow_the_network(
    tmp_path: Path, configured: bool, requested: bool
) -> None:
    working("bwrap")
    request = ConfineRequest(("true",), WW, tmp_path, network=requested)
    argv = confine(request, backends=["bwrap"], network=configured).argv
    assert ("--share-net" in argv) is (configured and requested)


def test_the_environment_is_passed_unchanged(tmp_path: Path) -> None:
    working("landlock")
    env = {"A": "1", "LC_CTYPE": "C"}
    for backend in ("bwrap", "landlock"):
        if report_of(find_backend(backend, Settings())).available:
            assert (
                dict(
                    confine(
                        ConfineRequest(("true",), RO, tmp_path, env=env), backends=[backend]
                    ).env
                )
                == env
            )


def test_bubblewrap_mounts_in_order(tmp_path: Path, scratch: Path) -> None:
    """Roots outside /tmp before the private /tmp; roots in /tmp after it; missing ones never."""
    workspace = Path(tempfile.mkdtemp(dir="/tmp"))
    try:
        inner = workspace / "build"
        inner.mkdir()
        outside_tmp = scratch / tmp_path.name
        outside_tmp.mkdir()
        roots = (inner, outside_tmp, tmp_path / "missing")
        writable = Bubblewrap.options(
            ConfineRequest(("true",), WW, workspace, roots), network=False
        )
        read_only = Bubblewrap.options(
            ConfineRequest(("true",), RO, workspace, roots), network=False
        )
    finally:
        shutil.rmtree(workspace)
    tmpfs = writable.index("--tmpfs")
    assert writable[: writable.index("--cap-drop")] == [
        "--new-session",
        "--die-with-parent",
        "--unshare-all",
        "--as-pid-1",
    ]
    assert writable[writable.index("--ro-bind") : writable.index("--ro-bind") + 3] == [
        "--ro-bind",
        "/",
        "/",
    ]
    assert writable.index("--bind") < tmpfs  # outside_tmp
    assert writable[tmpfs + 2 :] == [
        "--bind",
        str(workspace),
        str(workspace),
        "--bind",
        str(inner),
        str(inner),
    ]
    assert str(tmp_path / "missing") not in writable
    assert "--bind" not in read_only
    assert read_only[read_only.index("--tmpfs") + 2 :] == [
        "--ro-bind",
        str(workspace),
        str(workspace),
        "--ro-bind",
        str(inner),
        str(inner),
    ]


# -- probing ----------------------------------------------------------------------------------


@attrs.frozen
class Unconfined:
    """A backend that runs the command as given: it must be reported unusable."""

    name: str = "unconfined"
    key: tuple[str, ...] = ("unconfined",)

    def inspect(self) -> Inspection:
        return Inspection(detail="runs commands as given")

    def command(self, request: ConfineRequest, *, network: bool) -> ConfinedCommand:
        return ConfinedCommand(request.argv, request.env, self.name, "full", lambda rc, err: "ok")


@attrs.frozen
class Broken(Unconfined):
    """A backend whose every command fails."""

    def command(self, request: ConfineRequest, *, network: bool) -> ConfinedCommand:
        argv = (sys.executable, "-c", "import sys; sys.exit('cannot set up')")
        return ConfinedCommand(argv, request.env, self.name, "full", lambda rc, err: "ok")


def test_a_backend_that_does_not_confine_is_not_available() -> None:
    report = probe(Unconfined())
    assert not report.available
    assert "does not confine" in report.reason


def test_a_backend_whose_commands_fail_is_not_available() -> None:
    report = probe(Broken())
    assert not report.available
    assert report.reason == "a confined command failed (exit 1): cannot set up"


def test_probes_run_once_per_process() -> None:
    backend = find_backend("landlock", Settings())
    first = report_of(backend)
    assert cached_report(backend) is first
    assert report_of(find_backend("landlock", Settings())) is first


def test_probe_backends_reports_every_backend() -> None:
    reports = probe_backends()
    assert [r.name for r in reports] == ["bwrap", "landlock"]
    for report in reports:
        assert report.detail
        if report.available:
            assert not report.reason
            assert {str(e.mode) for e in report.modes} == {"read-only", "workspace-write"}
        else:
            assert report.reason
    absent = probe_backends(bwrap_path="/nonexistent/bwrap")[0]
    assert not absent.available
    assert absent.reason == "bwrap_path /nonexistent/bwrap is not an executable file"
    assert absent.to_json()["available"] is False


def test_a_new_process_probes_for_itself() -> None:
    """The cache lives in the process, never on disk: a new interpreter starts without it."""
    code = (
        "from seamhost_sandbox_local.config import BACKEND_NAMES, Settings\n"
        "from seamhost_sandbox_local.plugin import find_backend, probe_backends\n"
        "from seamhost_sandbox_local.probing import cached_report\n"
        "backends = [find_backend(name, Settings()) for name in BACKEND_NAMES]\n"
        "assert all(cached_report(backend) is None for backend in backends)\n"
        "print(sum(report.available for report in probe_backends()))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().strip() == str(sum(r.available for r in probe_backends()))


def test_the_plugin_is_found_through_its_entry_point() -> None:
    found = discover().get("sandbox-local")
    assert found is not None
    assert found.distribution == "seamhost-sandbox-local"
    assert found.load() is descriptor
