"""``scenario.md``: the scenario format, from model-scripted's scenario module and reader."""

from __future__ import annotations

import inspect

from refpages.text import header, markdown


def render() -> str:
    from seamhost_model_scripted import adapter, scenario, scenario_reader

    lines = header("Scenario format", "seamhost_model_scripted.scenario and its reader")
    lines += [
        "A scenario scripts a conversation: the user messages `seamhost run` sends, and the "
        "assistant messages and tool calls the scripted model (`[plugins.model-scripted]`) "
        "answers them with. `seamhost run SCENARIO --check` compares each call's outcome with "
        "its `expect`; the `seamhost_run` pytest fixture runs one in a test "
        "([plugin guide](../plugin-guide.md#testing-your-plugin)).",
        "",
        markdown(inspect.getdoc(scenario) or ""),
        "",
        "## Every key",
        "",
        "| table | keys |",
        "|---|---|",
    ]
    tables = {
        "`[scenario]`": scenario_reader._HEADER_KEYS,
        "`[[turn]]`": scenario_reader._TURN_KEYS,
        "`[[turn.step]]`": scenario_reader._STEP_KEYS,
        "`[[turn.step.call]]`": scenario_reader._CALL_KEYS,
    }
    lines += [f"| {t} | {', '.join(f'`{k}`' for k in keys)} |" for t, keys in tables.items()]
    lines += ["", "## How the scripted model answers", "", markdown(inspect.getdoc(adapter) or "")]
    return "\n".join(lines) + "\n"
