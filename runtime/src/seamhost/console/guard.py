"""Who may use the console: a one-time token, then a cookie, then CSRF and Origin on each post.

The console prints a URL carrying a random token. ``GET /login?token=...`` exchanges it, once, for
an HTTP-only, ``SameSite=Strict`` cookie naming a login and for that login's CSRF token; the token
is spent whether or not the browser keeps the cookie, so a URL seen in a shell history or a
process list later opens nothing. Every other page needs the cookie (401 without it). Every
``POST`` needs, besides the cookie, an ``Origin`` header equal to the origin the console serves
(a page of another site cannot post, nor can a DNS-rebound name) and the login's CSRF token in
the form's hidden ``csrf`` field. Secrets are compared in constant time.

Every answer carries the security headers: a Content Security Policy allowing only the console's
own scripts, styles, forms and connections, no framing, no MIME sniffing, no referrer beyond the
console itself (``same-origin``: with ``no-referrer`` a browser posts ``Origin: null`` even from the
console's own forms, and the Origin check would refuse every answer), and
``Cache-Control: no-store`` (a page shows arguments and outputs that should not linger in a
cache).
"""

from __future__ import annotations

import hmac
import secrets
import threading
from typing import TYPE_CHECKING

import attrs

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

COOKIE = "seamhost_console"
SECURITY_HEADERS = (
    (
        b"content-security-policy",
        b"default-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    ),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
)


def new_secret() -> str:
    """A random token fit for a URL: 256 bits."""
    return secrets.token_urlsafe(32)


def same(given: str | None, expected: str) -> bool:
    """Whether `given` equals `expected`, compared in constant time."""
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


@attrs.define
class Guard:
    """The console's one-time token, its logins (cookie → CSRF token) and its origin."""

    token: str
    origin: str  # scheme://host:port as the printed URL names it
    secure: bool = False  # served over TLS: the cookie is marked Secure
    logins: dict[str, str] = attrs.field(factory=dict)  # cookie value -> its CSRF token
    spent: bool = False
    _lock: threading.Lock = attrs.field(factory=threading.Lock)

    def exchange(self, token: str | None) -> tuple[str, str] | None:
        """A new login (cookie, CSRF token) for the one-time token; ``None`` once it is spent
        or when `token` is not it."""
        with self._lock:
            if self.spent or not same(token, self.token):
                return None
            self.spent = True
            cookie, csrf = new_secret(), new_secret()
            self.logins[cookie] = csrf
            return cookie, csrf

    def csrf_of(self, cookie: str | None) -> str | None:
        """The CSRF token of the login `cookie` names; ``None`` for no or an unknown cookie."""
        if cookie is None:
            return None
        for known, csrf in self.logins.items():
            if same(cookie, known):
                return csrf
        return None

    def post_problem(self, origin: str | None, csrf: str, posted: str | None) -> str | None:
        """Why a post of a logged-in browser is refused (``None``: it is not)."""
        if origin is None:
            return "the request has no Origin header; post from the console's own pages"
        if origin != self.origin:
            return f"the request comes from {origin}, not from this console ({self.origin})"
        if not same(posted, csrf):
            return "the form's CSRF token is missing or wrong; reload the page and try again"
        return None


class SecurityHeaders:
    """ASGI middleware adding :data:`SECURITY_HEADERS` to every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)

        await self.app(scope, receive, with_headers)
