"""acme-seamhost-hello's own tests, written as a plugin author writes them.

They need the plugin installed in the test environment (``uv add --editable .`` in a uv
project, ``pip install -e .`` in a plain virtual environment) and nothing else: installing
seamhost-runtime registers its pytest plugin, ``seamhost.testing``, whose ``seamhost_run``
fixture builds a bundle from a profile text, runs a scenario through the governed pipeline and
returns each call's outcome and the session's records.

No contract suite of ``seamhost.testing`` covers what this plugin provides (a tool and a
``tools/pre-execute`` policy); a plugin that provides a store, a sandbox or an approval answerer
subclasses the matching contract (see the plugin guide).
"""

from __future__ import annotations

from seamhost.testing import SeamhostRun

PROFILE = """\
[profile]
name = "hello-test"

[plugins.hello]
greeting = "Hi"
deny_names = ["mallory"]

[plugins.model-scripted]
"""

SCENARIO = """\
[[turn]]
user = "greet Ada, then Mallory"
final = "done"

[[turn.step]]
[[turn.step.call]]
tool = "hello"
args = { name = "Ada" }
id = "greet-ada"
expect = { "*" = "ok" }

[[turn.step.call]]
tool = "hello"
args = { name = "MALLORY" }
id = "greet-mallory"
expect = { "*" = "DENIED_BY_POLICY" }

[[turn.step.call]]
tool = "hello"
args = { name = "" }
id = "greet-nobody"
expect = { "*" = "INVALID_ARGUMENTS" }
"""


def test_the_tool_greets_and_the_policy_refuses_listed_names(seamhost_run: SeamhostRun) -> None:
    run = seamhost_run(PROFILE, SCENARIO)
    assert run.outcomes == {
        "greet-ada": "ok",
        "greet-mallory": "DENIED_BY_POLICY",
        "greet-nobody": "INVALID_ARGUMENTS",
    }
    assert run.unmet == ()
    ada = run.call("greet-ada")
    assert ada.content == "Hi, Ada!"
    assert ada.value == {"greeting": "Hi, Ada!"}


def test_a_denial_names_the_setting_that_refused(seamhost_run: SeamhostRun) -> None:
    run = seamhost_run(PROFILE, SCENARIO)
    assert "plugins.hello.deny_names" in run.call("greet-mallory").content
    [dispatched] = run.of("tool/dispatch")
    assert dispatched["call_id"] == "greet-ada"


def test_the_greeting_defaults_to_hello(seamhost_run: SeamhostRun) -> None:
    run = seamhost_run(PROFILE.replace('greeting = "Hi"\n', ""), SCENARIO)
    assert run.call("greet-ada").content == "Hello, Ada!"


def test_without_deny_names_everyone_is_greeted(seamhost_run: SeamhostRun) -> None:
    run = seamhost_run(PROFILE.replace('deny_names = ["mallory"]\n', ""), SCENARIO)
    assert run.outcomes["greet-mallory"] == "ok"
    assert run.unmet == ("greet-mallory (hello): expected DENIED_BY_POLICY, got ok",)
