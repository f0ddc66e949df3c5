"""Names exported lazily (seamhost.lazy): read on first use, kept, and unknown names refused."""

from __future__ import annotations

import subprocess
import sys

import pytest

import seamhost


def test_an_unknown_name_is_an_attribute_error_naming_the_module() -> None:
    with pytest.raises(AttributeError, match=r"module 'seamhost' has no attribute 'Nope'"):
        seamhost.Nope  # type: ignore[attr-defined]  # noqa: B018  # the unknown name is the test


def test_a_lazy_name_is_the_defining_module_s_and_is_kept_after_the_first_read() -> None:
    # A fresh interpreter: whether seamhost.tool.call is loaded must not depend on other tests.
    probe = (
        "import sys, seamhost\n"
        "assert 'seamhost.tool.call' not in sys.modules\n"
        "context = seamhost.ToolContext\n"
        "import seamhost.tool.call\n"
        "assert context is seamhost.tool.call.ToolContext\n"
        "assert vars(seamhost)['ToolContext'] is context\n"
    )
    subprocess.run([sys.executable, "-c", probe], check=True)


def test_importing_the_root_package_loads_nothing_it_exports() -> None:
    probe = (
        "import sys, seamhost\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('seamhost'))\n"
        "assert loaded == ['seamhost', 'seamhost.lazy'], loaded\n"
        "from seamhost import __version__\n"
        "from seamhost.version import __version__ as version\n"
        "assert __version__ == version\n"
    )
    subprocess.run([sys.executable, "-c", probe], check=True)
