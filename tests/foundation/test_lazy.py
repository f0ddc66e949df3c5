"""Names exported lazily (seamhost.lazy): read on first use, kept, and unknown names refused."""

from __future__ import annotations

import subprocess
import sys

import pytest

import seamhost


def test_an_unknown_name_is_an_attribute_error_naming_the_module() -> None:
    with pytest.raises(AttributeError, match=r"module 'seamhost' has no attribute 'Nope'"):
        seamhost.Nope  # noqa: B018


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
