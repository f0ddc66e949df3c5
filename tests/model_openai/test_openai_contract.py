"""model-openai passes the model-adapter contract of seamhost.testing, against the stand-in.

The stand-in is the one mock this project allows: a remote model API cannot run here.
"""

from __future__ import annotations

import attrs
import pytest
from seamhost_model_openai.adapter import OpenAIAdapter

from seamhost.testing.model_adapter import (
    FAILURE_KINDS,
    CannedAnswer,
    ModelAdapterContract,
    ModelDriver,
)
from tests.model_openai.canned import canned_reply
from tests.model_openai.conftest import KEY, AdapterMaker
from tests.model_openai.standin import StandIn


@attrs.define
class OpenAIDriver:
    """The adapter, and the stand-in it talks to."""

    adapter: OpenAIAdapter
    standin: StandIn
    failures: tuple[str, ...] = FAILURE_KINDS
    secret: str | None = KEY

    def answer(self, canned: CannedAnswer) -> None:
        self.standin.reply(canned_reply(canned))


class TestOpenAIAdapterContract(ModelAdapterContract):
    @pytest.fixture
    def model_driver(self, standin: StandIn, make_adapter: AdapterMaker) -> ModelDriver:
        return OpenAIDriver(make_adapter(), standin)
