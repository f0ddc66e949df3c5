"""The console's Starlette application: its routes, the guard on each, the pages they render.

``create_app(profile_ref, token=..., origin=...)`` builds the profile's bundle once (its store is
where every page reads and every answer is written) and returns the ASGI application; the server
(:mod:`seamhost.console.server`) runs it under Uvicorn, tests under Starlette's ``TestClient``.

Routes: ``GET /login?token=`` (the one-time exchange, :mod:`~seamhost.console.guard`), ``/``
(sessions), ``/sessions/{id}`` (a timeline), ``/approvals`` and ``POST /approvals/{session}/
{approval}``, ``/unknowns`` and ``POST /unknowns/{session}/{call}``, ``/runs``, ``/events``
(server-sent events, :mod:`~seamhost.console.events`) and ``/static/`` (the stylesheet and
``live.js``). Reading pages run in Starlette's thread pool, so a slow store never stalls the
event stream; so do the answers, whose services run their own event loop to flush.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, quote

import jinja2
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from seamhost.cli.terminal import terminal_safe
from seamhost.console import answers, views
from seamhost.console.events import session_events
from seamhost.console.guard import COOKIE, Guard, SecurityHeaders
from seamhost.errors import ConfigError, SeamhostError
from seamhost.kernel.bundle import build_bundle
from seamhost.kernel.profile.pricing import pricing_of
from seamhost.kernel.profile.resolve import resolve_profile

if TYPE_CHECKING:
    from starlette.requests import Request

    from seamhost.kernel.bundle import Bundle

FORM_BYTES = 2 * 1024 * 1024  # a posted form: a result value of up to RESULT_BYTES, and the rest
FORM_TYPE = "application/x-www-form-urlencoded"
Page = Callable[["Console", "Request", str], Awaitable[Response]]


def create_app(profile_ref: str, *, token: str, origin: str, secure: bool = False) -> Starlette:
    """The console of profile `profile_ref`'s store, opened by the one-time `token`.

    `origin` is the origin the console is served at (``http://127.0.0.1:8765``): posts from any
    other are refused. `secure` marks the login cookie ``Secure`` (served over TLS).
    """
    bundle = build_bundle(resolve_profile(profile_ref))
    if bundle.seams.session_store() is None:
        raise ConfigError(
            str(bundle.profile.path),
            "plugins",
            "no plugin provides session/store, so there is nothing to show; use a profile "
            "with a session store (such as default or postgres)",
        )
    console = Console(bundle, profile_ref, Guard(token, origin, secure))
    routes = [
        Route("/login", console.login),
        Route("/", console.page(Console.sessions)),
        Route("/sessions/{session_id}", console.page(Console.timeline)),
        Route("/approvals", console.page(Console.approvals)),
        Route(
            "/approvals/{session_id}/{approval_id}",
            console.page(Console.answer),
            methods=["POST"],
        ),
        Route("/unknowns", console.page(Console.unknowns)),
        Route("/unknowns/{session_id}/{call_id}", console.page(Console.settle), methods=["POST"]),
        Route("/runs", console.page(Console.runs)),
        Route("/events", console.page(Console.events)),
        Mount("/static", StaticFiles(packages=[("seamhost.console", "static")]), name="static"),
    ]
    app = Starlette(routes=routes)
    app.add_middleware(SecurityHeaders)
    return app


def templates() -> jinja2.Environment:
    """The page templates, shipped as package data; everything interpolated is escaped."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("seamhost.console", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["shown"] = lambda value: terminal_safe(str(value))
    env.filters["path"] = lambda value: quote(str(value), safe="")
    return env


class Console:
    """The pages of one console: the profile's bundle and store, its guard, its templates."""

    def __init__(self, bundle: Bundle, profile_ref: str, guard: Guard) -> None:
        self.bundle, self.profile_ref, self.guard = bundle, profile_ref, guard
        self.store = bundle.store
        self.pricing = pricing_of(profile_ref)
        self.env = templates()

    # -- the guard ----------------------------------------------------------------------------

    async def login(self, request: Request) -> Response:
        """Exchange the one-time token for the login cookie, then show the sessions."""
        login = self.guard.exchange(request.query_params.get("token"))
        if login is None:
            return self.message(
                "Login refused",
                "This login link was already used, or its token is wrong. Each link opens the "
                "console once: restart `seamhost console` for a new one.",
                403,
            )
        cookie, _ = login
        response = RedirectResponse("/", status_code=303)
        response.set_cookie(
            COOKIE, cookie, httponly=True, samesite="strict", secure=self.guard.secure, path="/"
        )
        return response

    def page(self, handler: Page) -> Callable[[Request], Awaitable[Response]]:
        """`handler` behind the login cookie; a post also behind the Origin and CSRF checks."""

        @functools.wraps(handler)
        async def guarded(request: Request) -> Response:
            csrf = self.guard.csrf_of(request.cookies.get(COOKIE))
            if csrf is None:
                return self.message(
                    "Not logged in",
                    "Open the console with the URL `seamhost console` printed (it carries a "
                    "one-time token).",
                    401,
                )
            if request.method == "POST":
                form = await self.form(request)
                if isinstance(form, Response):
                    return form
                problem = self.guard.post_problem(
                    request.headers.get("origin"), csrf, form.get("csrf")
                )
                if problem is not None:
                    return self.message("Refused", problem + "; nothing was written.", 403)
                request.state.form = form
            return await handler(self, request, csrf)

        return guarded

    async def form(self, request: Request) -> dict[str, str] | Response:
        """The posted form (URL-encoded, as the pages post it), or the page refusing it."""
        kind = request.headers.get("content-type", "").partition(";")[0].strip()
        if kind != FORM_TYPE:
            return self.message("Refused", f"a post must be a form ({FORM_TYPE})", 415)
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > FORM_BYTES:
                return self.message("Refused", "the form is too large", 413)
        try:
            return dict(parse_qsl(body.decode("utf-8"), keep_blank_values=True))
        except (UnicodeDecodeError, ValueError):
            return self.message("Refused", "the form is not valid UTF-8", 400)

    # -- pages ---------------------------------------------------------------------------------

    async def sessions(self, request: Request, csrf: str) -> Response:
        rows = await run_in_threadpool(views.session_rows, self.store, self.pricing)
        return self.render("sessions.html", "Sessions", rows=rows, live=True)

    async def timeline(self, request: Request, csrf: str) -> Response:
        session_id = request.path_params["session_id"]
        try:
            text = await run_in_threadpool(
                views.timeline_text, self.store, session_id, self.pricing
            )
        except (SeamhostError, LookupError) as exc:
            return self.message("No such session", str(exc), 404)
        return self.render("session.html", f"Session {session_id}", id=session_id, text=text)

    async def approvals(self, request: Request, csrf: str) -> Response:
        rows = await run_in_threadpool(lambda: list(views.approval_rows(self.store)))
        return self.render("approvals.html", "Approvals", rows=rows, csrf=csrf)

    async def answer(self, request: Request, csrf: str) -> Response:
        params = request.path_params
        return await self.act(
            answers.answer_approval,
            params["session_id"],
            params["approval_id"],
            request.state.form,
            back="/approvals",
        )

    async def unknowns(self, request: Request, csrf: str) -> Response:
        rows = await run_in_threadpool(lambda: list(views.unknown_rows(self.store)))
        return self.render(
            "unknowns.html", "Unknown outcomes", rows=rows, csrf=csrf, codes=answers.FAILURE_CODES
        )

    async def settle(self, request: Request, csrf: str) -> Response:
        params = request.path_params
        return await self.act(
            answers.reconcile_call,
            params["session_id"],
            params["call_id"],
            request.state.form,
            back="/unknowns",
        )

    async def runs(self, request: Request, csrf: str) -> Response:
        view = await run_in_threadpool(views.queue_view, self.store, self.profile_ref)
        return self.render("runs.html", "Runs and workers", **view)

    async def events(self, request: Request, csrf: str) -> Response:
        return await session_events(request, self.store, self.pricing)

    # -- rendering -----------------------------------------------------------------------------

    async def act(
        self, action: Callable[..., str], subject: str, item: str, form: Any, *, back: str
    ) -> Response:
        try:
            done = await run_in_threadpool(action, self.bundle, subject, item, form)
        except answers.Refused as exc:
            return self.message("Refused", exc.reason + "; nothing was written.", exc.status, back)
        return self.message("Done", done, 200, back)

    def render(self, template: str, title: str, *, status: int = 200, **values: Any) -> Response:
        values.setdefault("live", False)
        page = self.env.get_template(template).render(title=title, **values)
        return HTMLResponse(page, status_code=status)

    def message(self, title: str, text: str, status: int, back: str | None = None) -> Response:
        return self.render("message.html", title, status=status, text=text, back=back)
