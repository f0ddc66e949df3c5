"""The contract every status probe passes: subclass :class:`ReconcilerContract`.

A status probe is a plugin's ``tools/reconcile`` implementation for a tool it registers with
``status_query=True`` (design.md §10): asked about one attempt of a call whose outcome is
unknown, it looks the effect up in the external system by the attempt's idempotency key and
answers ``Resolved`` or ``Pending``, or raises (fail closed). The kernel records what it says
as what really happened, so the contract checks that the answer is evidence:

* a probe never runs the body and never makes the effect: the body-run counter and the external
  system's effects are the same after any number of probes;
* the answer is bound to the call: an effect made under another idempotency key (another call,
  another session) does not resolve this one, and an effect under this key whose arguments are
  not this call's is not taken for it (the probe fails closed or waits);
* the attempts of one call share its key (``<session id>:<call id>``): for an idempotent tool,
  whose retries the external system deduplicates by that key, an effect made by attempt 1
  resolves attempt 2 with the same value;
* probing is idempotent: asking twice gives the same answer;
* a resolved result validates against the tool's output schema; "no effect" is an error code.

The test module supplies two fixtures, ``reconcile_bundle`` (a bundle holding the plugin) and
``reconcile_driver`` (a :class:`ReconcilerDriver`: the tool, a valid call, and how to make an
attempt happen out of band, with or without its effect)::

    class TestMyProbe(ReconcilerContract):
        @pytest.fixture
        def reconcile_driver(self, service) -> ReconcilerDriver:
            return ReconcilerDriver(
                tool="my_tool", arguments={"x": 1},
                commit=lambda attempt: service.do(attempt.idempotency_key, attempt.arguments),
                body_runs=lambda: service.requests, effects=service.effects)

(``reconcile_bundle`` likewise.) Every test uses fresh session ids, so an external system shared
across tests is fine. seamhost's ``tests/reconcile/test_ledger_contract.py`` is a whole example.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs
import pytest

from seamhost.errors import ErrorCode, SeamFailed
from seamhost.jsonvalue import digest, freeze, thaw
from seamhost.kernel.bundle import Bundle
from seamhost.schema import compile_schema
from seamhost.tool.declaration import RegisteredTool
from seamhost.tool.reconcile import Pending, Probe, ProbeAnswer, Resolved, idempotency_key

CALL_ID = "call-1-1-1"
DEADLINE = 10.0  # seconds the contract gives a probe, as the kernel does


@attrs.frozen
class Attempt:
    """One attempt of a call, as the contract makes it happen and then asks about it."""

    session_id: str
    call_id: str
    attempt: int
    arguments: Mapping[str, Any]

    @property
    def idempotency_key(self) -> str:
        return idempotency_key(self.session_id, self.call_id)


@attrs.frozen
class ReconcilerDriver:
    """How the contract makes attempts of the tool happen, out of band, and observes them.

    * `tool`: the status-query tool under test; `arguments`: a valid call of it;
    * `commit(attempt)`: make the attempt's effect happen in the external system exactly as its
      body would have (same key, same request), without the body's answer reaching anyone;
    * `lose(attempt)`: make the attempt happen *without* effect (the request was lost); by
      default nothing is done, which is the same thing for most systems;
    * `body_runs()`: how many times the body ran or the external system was asked to act;
    * `effects()`: the effects the external system holds, compared before and after probing
      (a probe may leave bookkeeping, such as voiding an unknown key, but never an effect);
    * `other_arguments`: another valid call; when given, an effect under this call's key made
      with them must not resolve this call;
    * `proves_absence`: whether the probe can tell that no effect happened (else it may wait).
    """

    tool: str
    arguments: Mapping[str, Any]
    commit: Callable[[Attempt], None]
    body_runs: Callable[[], int]
    effects: Callable[[], Any]
    lose: Callable[[Attempt], None] | None = None
    other_arguments: Mapping[str, Any] | None = None
    proves_absence: bool = True


def ask(bundle: Bundle, tool: RegisteredTool, attempt: Attempt) -> ProbeAnswer | SeamFailed:
    """Ask the bundle's ``tools/reconcile`` about `attempt`, as the kernel does."""
    arguments = freeze(dict(attempt.arguments))
    probe = Probe(
        session_id=attempt.session_id,
        call_id=attempt.call_id,
        attempt=attempt.attempt,
        tool=tool.spec.name,
        arguments=arguments,
        args_digest=digest(thaw(arguments)),
        idempotency_key=attempt.idempotency_key,
        workspace=Path.cwd(),
        deadline=DEADLINE,
        cancelled=asyncio.Event(),
    )

    async def run() -> ProbeAnswer:
        return await asyncio.wait_for(bundle.seams.tools_reconcile(tool, probe), DEADLINE)

    try:
        return asyncio.run(run())
    except SeamFailed as exc:  # fail closed: the kernel writes nothing
        return exc


def succeeded(answer: ProbeAnswer | SeamFailed) -> bool:
    return isinstance(answer, Resolved) and answer.error_code is None


@attrs.frozen
class ProbeBench:
    """The bundle, its status-query tool and the driver: what each contract test works with."""

    bundle: Bundle
    tool: RegisteredTool
    driver: ReconcilerDriver

    def attempt(self, number: int = 1, **changes: Any) -> Attempt:
        """A new attempt of the driver's call, in a session of its own."""
        made = Attempt(f"contract-{uuid.uuid4().hex[:12]}", CALL_ID, number, self.driver.arguments)
        return attrs.evolve(made, **changes)

    def probed(self, attempt: Attempt) -> ProbeAnswer | SeamFailed:
        """Ask about `attempt`, checking that asking ran no body and made no effect."""
        runs, effects = self.driver.body_runs(), self.driver.effects()
        answer = ask(self.bundle, self.tool, attempt)
        assert self.driver.body_runs() == runs, "a probe must never run the tool's body"
        assert self.driver.effects() == effects, "a probe must never make (or undo) an effect"
        return answer


class ReconcilerContract:
    """Tests any status probe passes. Subclass it; provide the two fixtures."""

    @pytest.fixture
    def reconcile_bundle(self) -> Bundle:
        raise NotImplementedError("a probe's test class provides the reconcile_bundle fixture")

    @pytest.fixture
    def reconcile_driver(self) -> ReconcilerDriver:
        raise NotImplementedError("a probe's test class provides the reconcile_driver fixture")

    @pytest.fixture
    def bench(self, reconcile_bundle: Bundle, reconcile_driver: ReconcilerDriver) -> ProbeBench:
        found = reconcile_bundle.tools.get(reconcile_driver.tool)
        assert found is not None, f"the bundle has no tool {reconcile_driver.tool}"
        return ProbeBench(reconcile_bundle, found, reconcile_driver)

    def test_the_tool_declares_a_status_query(self, bench: ProbeBench) -> None:
        spec = bench.tool.spec
        assert spec.status_query, f"{spec.name} does not declare status_query=True"
        valid = compile_schema(spec.input_schema)
        for arguments in (bench.driver.arguments, bench.driver.other_arguments):
            if arguments is not None:
                assert valid(thaw(freeze(dict(arguments)))) is None, f"not a call: {arguments}"

    def test_an_effect_that_happened_resolves_to_a_valid_result(self, bench: ProbeBench) -> None:
        made = bench.attempt()
        bench.driver.commit(made)
        answer = bench.probed(made)
        assert succeeded(answer), f"an effect that happened must resolve as a result: {answer!r}"
        assert isinstance(answer, Resolved)
        violation = compile_schema(bench.tool.spec.output_schema)(thaw(answer.value))
        assert violation is None, f"the resolved value breaks the output schema: {violation}"
        assert answer.content, "the model reads the content: it must say what happened"

    def test_no_effect_resolves_to_an_error(self, bench: ProbeBench) -> None:
        made = bench.attempt()
        if bench.driver.lose is not None:
            bench.driver.lose(made)
        answer = bench.probed(made)
        if isinstance(answer, Pending) and not bench.driver.proves_absence:
            return
        assert isinstance(answer, Resolved), f"no effect must resolve as an error: {answer!r}"
        assert answer.error_code is not None, "no effect happened: the answer must be an error"
        assert answer.error_code != ErrorCode.TOOL_OUTCOME_UNKNOWN.value

    @pytest.mark.parametrize("effect", [True, False], ids=["with-effect", "without-effect"])
    def test_probing_twice_gives_the_same_answer(self, bench: ProbeBench, effect: bool) -> None:
        made = bench.attempt()
        if effect:
            bench.driver.commit(made)
        elif bench.driver.lose is not None:
            bench.driver.lose(made)
        first, second = bench.probed(made), bench.probed(made)
        assert not isinstance(first, SeamFailed), f"the probe failed: {first}"
        assert first == second, "probing is idempotent: asking again gives the same answer"

    def test_an_effect_under_another_key_does_not_resolve_this_call(
        self, bench: ProbeBench
    ) -> None:
        made, elsewhere = bench.attempt(), bench.attempt()  # the same call id, another session
        bench.driver.commit(elsewhere)
        answer = bench.probed(made)
        assert not succeeded(answer), "another call's effect was taken for this call's"

    def test_an_effect_with_other_arguments_is_not_this_call_s(self, bench: ProbeBench) -> None:
        if bench.driver.other_arguments is None:
            pytest.skip("the driver gives no other_arguments")
        made = bench.attempt()
        bench.driver.commit(attrs.evolve(made, arguments=bench.driver.other_arguments))
        answer = bench.probed(made)
        assert not isinstance(answer, Resolved), (
            f"an effect under this key with other arguments must fail closed: {answer!r}"
        )

    def test_the_attempts_of_a_call_share_its_key(self, bench: ProbeBench) -> None:
        if not bench.tool.spec.idempotent:
            pytest.skip("a tool that is not idempotent is never dispatched twice")
        first = bench.attempt()
        bench.driver.commit(first)
        answers = [bench.probed(a) for a in (first, attrs.evolve(first, attempt=2))]
        assert succeeded(answers[0]), answers[0]
        assert answers[1] == answers[0], "attempt 2 of an idempotent call has attempt 1's effect"


__all__ = ["Attempt", "ProbeBench", "ReconcilerContract", "ReconcilerDriver", "ask"]
