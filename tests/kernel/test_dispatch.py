"""Each dispatch mode's rules: ordering, short-circuit, and what a raising implementation means."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest

from seamhost.errors import PluginConflict, SeamFailed, SeamUnavailable
from seamhost.kernel import chains, dispatch
from seamhost.kernel.dispatch import Impl, Tracer
from seamhost.tool.decision import Decision, Verdict

OFF = Tracer(False)


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def vote(verdict: Verdict | None, reason: str = "") -> Any:
    def impl(call: object) -> Decision | None:
        return None if verdict is None else Decision(verdict, reason)

    return impl


def boom(*args: object, **kwargs: object) -> Any:
    raise RuntimeError("boom")


# -- provider -----------------------------------------------------------------------------------


def test_provider_missing_is_unavailable() -> None:
    with pytest.raises(SeamUnavailable, match="llm/adapter"):
        dispatch.only("llm/adapter", [])


def test_provider_two_implementations_name_both() -> None:
    impls = [Impl("a", boom), Impl("b", boom)]
    with pytest.raises(PluginConflict, match='"a" and "b"'):
        dispatch.only("session/store", impls)


# -- provider chain -----------------------------------------------------------------------------


def test_chain_first_answer_wins_and_later_are_not_asked() -> None:
    asked: list[str] = []

    def answerer(name: str, answer: str | None) -> Impl:
        def impl(request: object) -> str | None:
            asked.append(name)
            return answer

        return Impl(name, impl)

    chain = [answerer("a", None), answerer("b", "yes"), answerer("c", "no")]
    got = run(dispatch.first_answer("x/y", chain, (1,), accept=lambda a: True, trace=OFF))
    assert (got.answer, got.plugin, asked) == ("yes", "b", ["a", "b"])
    assert got.notes == ('"a" did not answer',)


def test_chain_raise_stops_the_chain_with_no_answer() -> None:
    later: list[str] = []

    def lenient(request: object) -> str:
        later.append("x")
        return "yes"

    chain = [Impl("broken", boom), Impl("lenient", lenient)]
    got = run(dispatch.first_answer("x/y", chain, (1,), accept=lambda a: True, trace=OFF))
    assert got.answer is None
    assert got.plugin == "broken"
    assert later == []
    assert "RuntimeError: boom" in got.notes[0]


def test_chain_answer_outside_vocabulary_is_no_answer() -> None:
    chain = [Impl("odd", lambda request: "maybe"), Impl("b", lambda request: "yes")]
    got = run(dispatch.first_answer("x/y", chain, (1,), accept=lambda a: a == "yes", trace=OFF))
    assert got.answer is None
    assert "outside the vocabulary" in got.notes[0]


def test_chain_awaits_coroutine_answerers() -> None:
    async def impl(request: object) -> str:
        await asyncio.sleep(0)
        return "yes"

    got = run(dispatch.first_answer("x/y", [Impl("a", impl)], (1,), accept=bool, trace=OFF))
    assert got.answer == "yes"


# -- decision -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("verdicts", "expected"),
    [
        ((), Verdict.ALLOW),
        ((None, None), Verdict.ALLOW),
        ((Verdict.ALLOW, Verdict.ASK), Verdict.ASK),
        ((Verdict.ALLOW, Verdict.ASK, Verdict.DENY), Verdict.DENY),
        ((Verdict.ASK, None), Verdict.ASK),
    ],
)
def test_decision_most_restrictive_wins_in_every_order(
    verdicts: tuple[Verdict | None, ...], expected: Verdict
) -> None:
    impls = [Impl(f"p{i}", vote(v, f"r{i}")) for i, v in enumerate(verdicts)]
    outcomes = {
        run(dispatch.decide("t/p", list(order), (1,), trace=OFF, guard=False))
        for order in itertools.permutations(impls)
    }
    assert len(outcomes) == 1, "the outcome must not depend on registration order"
    assert outcomes.pop().verdict is expected


def test_decision_raise_counts_as_deny_naming_the_plugin() -> None:
    impls = [Impl("lenient", vote(Verdict.ALLOW)), Impl("broken", boom)]
    decision = run(dispatch.decide("t/p", impls, (1,), trace=OFF, guard=False))
    assert decision.verdict is Verdict.DENY
    assert decision.plugin == "broken"
    assert "RuntimeError: boom" in decision.reason


def test_decision_malformed_vote_counts_as_deny() -> None:
    impls = [Impl("odd", lambda call: "allow")]
    decision = run(dispatch.decide("t/p", impls, (1,), trace=OFF, guard=False))
    assert decision.verdict is Verdict.DENY
    assert "not a Decision" in decision.reason


def test_decision_awaits_coroutines_and_records_the_voter() -> None:
    async def impl(call: object) -> Decision:
        return Decision.ask("why")

    decision = run(dispatch.decide("t/p", [Impl("asker", impl)], (1,), trace=OFF, guard=False))
    assert (decision.verdict, decision.reason, decision.plugin) == (Verdict.ASK, "why", "asker")


# -- guard --------------------------------------------------------------------------------------


def test_guard_abstentions_allow() -> None:
    decision = run(dispatch.decide("t/g", [Impl("a", vote(None))], (1,), trace=OFF, guard=True))
    assert decision.verdict is Verdict.ALLOW


@pytest.mark.parametrize("verdict", [Verdict.ALLOW, Verdict.ASK])
def test_guard_cannot_allow_or_ask(verdict: Verdict) -> None:
    decision = run(dispatch.decide("t/g", [Impl("a", vote(verdict))], (1,), trace=OFF, guard=True))
    assert decision.verdict is Verdict.DENY
    assert "may only deny" in decision.reason


def test_guard_raise_counts_as_deny() -> None:
    decision = run(dispatch.decide("t/g", [Impl("broken", boom)], (1,), trace=OFF, guard=True))
    assert decision.verdict is Verdict.DENY
    assert decision.plugin == "broken"


# -- notify -------------------------------------------------------------------------------------


def test_notify_contains_failures_and_reaches_every_observer(
    caplog: pytest.LogCaptureFixture,
) -> None:
    seen: list[str] = []
    impls = [
        Impl("a", lambda event: seen.append("a")),
        Impl("broken", boom),
        Impl("c", lambda event: seen.append("c")),
    ]
    dispatch.notify("s/e", impls, (1,), trace=OFF)
    assert seen == ["a", "c"]
    assert "broken" in caplog.text


def test_notify_runs_coroutine_observers_on_the_loop() -> None:
    seen: list[int] = []

    async def observer(event: int) -> None:
        seen.append(event)

    async def main() -> None:
        dispatch.notify("s/e", [Impl("a", observer)], (7,), trace=OFF)
        await asyncio.sleep(0.01)

    run(main())
    assert seen == [7]


def test_notify_without_a_loop_still_runs_coroutine_observers() -> None:
    seen: list[int] = []

    async def observer(event: int) -> None:
        seen.append(event)

    dispatch.notify("s/e", [Impl("a", observer)], (3,), trace=OFF)
    assert seen == [3]


# -- barrier ------------------------------------------------------------------------------------


def test_barrier_missing_fails_closed() -> None:
    with pytest.raises(SeamUnavailable):
        run(dispatch.barrier("s/f", [], (), trace=OFF))


def test_barrier_awaits_all_then_raises_the_first_failure() -> None:
    settled: list[str] = []

    async def slow() -> None:
        await asyncio.sleep(0.02)
        settled.append("slow")

    async def fails() -> None:
        raise OSError("disk full")

    impls = [Impl("fails", fails), Impl("slow", slow), Impl("second", boom)]
    with pytest.raises(SeamFailed) as info:
        run(dispatch.barrier("s/f", impls, (), trace=OFF))
    assert settled == ["slow"], "every implementation settles before the failure is raised"
    assert info.value.failures[0] == ("fails", "OSError: disk full")
    assert [p for p, _ in info.value.failures] == ["fails", "second"]
    assert isinstance(info.value.__cause__, OSError)


def test_barrier_succeeds_when_all_settle() -> None:
    done: list[str] = []
    run(dispatch.barrier("s/f", [Impl("a", lambda: done.append("a"))], (), trace=OFF))
    assert done == ["a"]


# -- around -------------------------------------------------------------------------------------


def layer(name: str, log: list[str]) -> Any:
    async def impl(ctx: list[str], call_next: Any) -> Any:
        log.append(f"{name}>")
        result = await call_next([*ctx, name])
        log.append(f"<{name}")
        return result

    return impl


def test_around_first_in_call_order_is_outermost() -> None:
    log: list[str] = []

    async def terminal(ctx: list[str]) -> list[str]:
        log.append("body")
        return ctx

    chain = chains.around(
        "t/e",
        [Impl("outer", layer("outer", log)), Impl("inner", layer("inner", log))],
        terminal,
        trace=OFF,
    )
    assert run(chain([])) == ["outer", "inner"]
    assert log == ["outer>", "inner>", "body", "<inner", "<outer"]


def test_around_short_circuit_skips_inner_links_and_the_terminal() -> None:
    reached: list[str] = []

    async def stop(ctx: object, call_next: Any) -> str:
        return "short"

    async def terminal(ctx: object) -> str:
        reached.append("body")
        return "body"

    chain = chains.around(
        "t/e",
        [Impl("stopper", stop), Impl("inner", layer("inner", reached))],
        terminal,
        trace=OFF,
    )
    assert run(chain(None)) == "short"
    assert reached == []


def test_around_raise_becomes_the_error_value() -> None:
    async def terminal(ctx: object) -> str:
        return "body"

    chain = chains.around(
        "t/e",
        [Impl("broken", boom)],
        terminal,
        trace=OFF,
        on_error=lambda impl, exc, ctx: f"error from {impl.plugin} on {ctx}: {exc}",
    )
    assert run(chain("ctx-1")) == "error from broken on ctx-1: boom"


def test_around_raise_propagates_without_on_error() -> None:
    async def terminal(ctx: object) -> None:
        return None

    chain = chains.around("t/e", [Impl("broken", boom)], terminal, trace=OFF)
    with pytest.raises(RuntimeError, match="boom"):
        run(chain(None))


def test_around_stream_wraps_the_inner_stream() -> None:
    async def source(request: int) -> Any:
        for i in range(request):
            yield i

    def doubler(request: int, call_next: Any) -> Any:
        async def gen() -> Any:
            async for item in call_next(request):
                yield item * 2

        return gen()

    async def collect() -> list[int]:
        chain = chains.around_stream("l/s", [Impl("x2", doubler)], source, trace=OFF)
        return [i async for i in chain(3)]

    assert run(collect()) == [0, 2, 4]


def test_tracer_writes_each_call_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    run(
        dispatch.decide(
            "t/p",
            [Impl("a", vote(Verdict.ASK, "hm"))],
            (1,),
            trace=Tracer(True),
            guard=False,
        )
    )
    assert "seamhost: trace: t/p -> a: ask hm" in capsys.readouterr().err


# -- implementations taking some of the arguments -----------------------------------------------


def test_an_implementation_gets_the_arguments_it_declares_in_its_own_order() -> None:
    def observer(record: str, session: str) -> tuple[str, str]:
        return record, session

    def record_only(record: str) -> str:
        return record

    spec = ("session", "record")
    assert Impl.of("p", observer, ("record", "session"), spec)("s", "r") == ("r", "s")
    assert Impl.of("p", record_only, ("record",), spec)("s", "r") == "r"
    every = Impl.of("p", observer, spec, spec)
    assert every.call is observer, "one taking every argument in order is called directly"
