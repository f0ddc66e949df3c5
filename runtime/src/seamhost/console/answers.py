"""The two things a person does in the console, through the services the CLI uses.

* :func:`answer_approval` is ``seamhost approve``/``reject``: :func:`seamhost.run.deferred.decide`
  with the source ``console``, bound to the arguments digest the page showed;
* :func:`reconcile_call` is ``seamhost session reconcile``: :func:`seamhost.run.reconcile.reconcile`
  under the session's writer, bound to the attempt and arguments digest the page showed, the
  source ``console: <who or what says so>``.

Either refuses with :class:`Refused` (the page shows its reason with HTTP 409, or 400 for a form
that is not filled in right) and then has written nothing: the services check everything before
they append, and take the session's writer, so a live writer refuses them too.
"""

from __future__ import annotations

import asyncio
import getpass
from typing import TYPE_CHECKING, Any

from seamhost.errors import ErrorCode, SeamhostError
from seamhost.input_limits import RESULT_BYTES, parse_json
from seamhost.jsonvalue import check_lossless
from seamhost.run.deferred import decide
from seamhost.run.reconcile import Evidence, reconcile
from seamhost.run.sessions import bind_session

if TYPE_CHECKING:
    from collections.abc import Mapping

    from seamhost.kernel.bundle import Bundle

SOURCE = "console"  # the `source` of what the console records: the answerer kind
CONFLICT, BAD_FORM = 409, 400
# The error codes a person may give as failure evidence: every code but the unknown itself, as
# `seamhost session reconcile --error` takes them, so a typo is never recorded as an outcome.
FAILURE_CODES = tuple(c.value for c in ErrorCode if c is not ErrorCode.TOOL_OUTCOME_UNKNOWN)


class Refused(SeamhostError, ValueError):
    """An answer the console did not record, with the reason shown to the person and a status."""

    reason: str
    status: int = CONFLICT

    def __str__(self) -> str:
        return self.reason


def field(form: Mapping[str, str], name: str) -> str:
    """A required field of a posted form, stripped; missing or empty is refused (400)."""
    value = form.get(name, "").strip()
    if not value:
        raise Refused(f"the form has no {name}; use the form the page shows", BAD_FORM)
    return value


def answer_approval(
    bundle: Bundle, session_id: str, approval_id: str, form: Mapping[str, str]
) -> str:
    """Allow or reject a deferred call as the form says; what was done, in words."""
    verdict = field(form, "decision")
    if verdict not in ("approve", "reject"):
        raise Refused(f"decision {verdict!r} is neither approve nor reject", BAD_FORM)
    digest = field(form, "digest")
    who = getpass.getuser()
    try:
        decide(
            bundle,
            session_id,
            approval_id,
            allow=verdict == "approve",
            decider=who,
            reason=form.get("reason", "").strip() or None,
            source=SOURCE,
            args_digest=digest,
        )
    except SeamhostError as exc:  # not open, another digest, no such session, a live writer
        raise Refused(str(exc)) from None
    verb = "allowed once" if verdict == "approve" else "rejected"
    return f"{approval_id} {verb} by {who} (console)"


def reconcile_call(bundle: Bundle, session_id: str, call_id: str, form: Mapping[str, str]) -> str:
    """Record the evidence the form gives for an unknown outcome; what was done, in words."""
    evidence = _evidence(form)
    raw = field(form, "attempt")  # outside the try: a missing field is its own refusal
    try:
        attempt = int(raw)
    except ValueError:
        raise Refused("the form's attempt is not a number", BAD_FORM) from None
    digest = field(form, "digest")
    try:
        session = bind_session(bundle, bundle.store.open(session_id))
    except SeamhostError as exc:  # no such session, or a live writer holds it
        raise Refused(str(exc)) from None
    try:
        record = reconcile(bundle, session, call_id, evidence, attempt=attempt, args_digest=digest)
        if record is not None:
            asyncio.run(session.flush())
    except SeamhostError as exc:
        raise Refused(str(exc)) from None
    finally:
        session.close()
    state = "recorded" if record is not None else "already recorded (the same evidence)"
    return f"{call_id}: {evidence.outcome} {state}; the model is told when the session continues"


def _evidence(form: Mapping[str, str]) -> Evidence:
    outcome = field(form, "outcome")
    source = f"{SOURCE}: {field(form, 'evidence')}"
    if outcome == "succeeded":
        text = form.get("value", "").strip() or "null"
        if len(text.encode()) > RESULT_BYTES:
            raise Refused(f"the result is larger than {RESULT_BYTES} bytes", BAD_FORM)
        try:
            value: Any = parse_json(text.encode(), "the result")
            check_lossless(value, "result")
        except (SeamhostError, ValueError) as exc:  # not JSON, too deep, or lossy
            raise Refused(str(exc), BAD_FORM) from None
        return Evidence.result(source, value)
    if outcome == "failed":
        code = field(form, "code")
        if code not in FAILURE_CODES:
            raise Refused(f"{code!r} is not an error code that settles an outcome", BAD_FORM)
        return Evidence.failure(source, code, field(form, "message"))
    raise Refused(f"outcome {outcome!r} is neither succeeded nor failed", BAD_FORM)
