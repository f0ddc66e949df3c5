"""The ``[pricing]`` table: declared, validated and merged like ``[limits]``; bad ones exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from seamhost.errors import ConfigError
from seamhost.kernel.profile.pricing import Price, Pricing, pricing_of
from seamhost.kernel.profile.resolve import resolve_profile
from tests.conftest import run_cli

QUICKSTART = Path(__file__).parents[2] / "examples" / "quickstart.toml"


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_a_child_overrides_the_currency_and_whole_models(tmp_path: Path) -> None:
    write(
        tmp_path / "base.toml",
        '[profile]\nextends = ["default"]\n'
        '[pricing."gpt-4.1"]\ninput = 2.0\noutput = 8.0\ncached_input = 0.5\n'
        "[pricing.mini]\ninput = 1\noutput = 2\n",
    )
    child = write(
        tmp_path / "child.toml",
        '[profile]\nextends = ["base.toml"]\n[pricing]\ncurrency = "EUR"\n'
        "[pricing.mini]\ninput = 0.15\noutput = 0.6\n",
    )
    assert pricing_of(str(child)) == Pricing(
        "EUR", {"gpt-4.1": Price(2.0, 8.0, 0.5), "mini": Price(0.15, 0.6)}
    )
    resolved = resolve_profile(str(child))
    assert resolved.pricing == pricing_of(str(child))
    assert resolved.to_json()["pricing"]["models"]["mini"] == {"input": 0.15, "output": 0.6}


def test_without_a_table_nothing_is_priced() -> None:
    assert resolve_profile("default").pricing == Pricing("USD", {})


@pytest.mark.parametrize(
    ("table", "key", "problem"),
    [
        ('[pricing."gpt-4.1"]\ninput = -1\noutput = 8', 'pricing."gpt-4.1".input', "at least 0"),
        ("[pricing.m]\ninput = 1\noutput = nan", "pricing.m.output", "at least 0"),
        ("[pricing.m]\ninput = 1\noutput = inf", "pricing.m.output", "at least 0"),
        ('[pricing.m]\ninput = "2"\noutput = 8', "pricing.m.input", "expected a number"),
        ("[pricing.m]\ninput = 1\noutput = 1\ncache = 1", "pricing.m.cache", "unknown key"),
        ("[pricing.m]\ninput = 1", "pricing.m.output", "needs input and output"),
        ("[pricing]\nm = 2.0", "pricing.m", "expected a table of prices"),
        ('[pricing]\ncurrency = ""', "pricing.currency", "expected a currency"),
    ],
)
def test_a_bad_table_names_the_file_and_the_key(
    tmp_path: Path, table: str, key: str, problem: str
) -> None:
    path = write(tmp_path / "bad.toml", f'[profile]\nextends = ["default"]\n{table}\n')
    with pytest.raises(ConfigError) as raised:
        resolve_profile(str(path))
    assert raised.value.file == str(path)
    assert raised.value.key == key
    assert problem in str(raised.value)


def test_bad_pricing_is_a_configuration_error_on_the_command_line(tmp_path: Path) -> None:
    path = write(
        tmp_path / "bad.toml",
        '[profile]\nextends = ["default"]\n[pricing."gpt-4.1"]\ninput = -2.0\noutput = 8.0\n',
    )
    env = {"SEAMHOST_HOME": str(tmp_path / "home")}
    for args in (
        ["profile", "check", str(path)],
        ["session", "ls", "--tokens", "--profile", str(path)],
        ["run", "--profile", str(path), str(QUICKSTART)],
    ):
        done = run_cli(*args, env=env)
        assert done.returncode == 2, done.stderr
        assert f'{path}: pricing."gpt-4.1".input: expected at least 0' in done.stderr
