"""``seamhost console``: a web console over a profile's session store (docs/console.md).

A door beside the CLI, on the same layer (design.md §2): it reads sessions, deferred approvals,
unknown outcomes and a PostgreSQL profile's run queue, and it answers approvals and reconciles
unknown outcomes through the very services the CLI's ``approve``, ``reject`` and ``session
reconcile`` use (:mod:`seamhost.run.deferred`, :mod:`seamhost.run.reconcile`), recorded with the
source ``console``. Starlette, Uvicorn and Jinja2 are imported only when the command runs.

* :mod:`~seamhost.console.guard`: the one-time token, the login cookie, CSRF and Origin checks,
  the security headers;
* :mod:`~seamhost.console.views`: what each page shows, read from the store;
* :mod:`~seamhost.console.answers`: the two things a person can do, and their refusals;
* :mod:`~seamhost.console.app`: the Starlette application (``create_app``);
* :mod:`~seamhost.console.server`: binding, the printed URL, Uvicorn.
"""
