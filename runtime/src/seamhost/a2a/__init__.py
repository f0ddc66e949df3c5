"""The A2A door: ``seamhost a2a serve`` lets other agents hand tasks to the profile's agent.

An A2A client (any agent written with an A2A SDK) sends a message; the task it opens is one
durable session of this bundle (the session id is the task id), driven by the same agent loop
and governed pipeline as ``seamhost run`` (docs/design.md §13, "Serve A2A"). The package sits
above ``gateway``, whose door and limits it reuses, and below ``cli``; only ``a2a serve``
imports it, so the ``a2a-sdk`` it loads (protobuf, starlette, sse-starlette) costs the other
commands nothing.

* :mod:`.card`: the Agent Card, the profile's agent and its tools as skills;
* :mod:`.updates`: the session's records as A2A task updates (status, artifacts);
* :mod:`.tasks`: one task as one session: start, park on a deferred approval, continue, cancel,
  and the cap on tasks running at once;
* :mod:`.executor`: the SDK's ``AgentExecutor`` over :mod:`.tasks`;
* :mod:`.server`: the SDK's JSON-RPC routes behind the gateway's door and limits.
"""
