"""``seamhost console``: serve the web console of a profile's store (docs/console.md).

It listens on loopback unless told otherwise: another host needs ``--allow-remote`` and TLS
(``--tls-cert`` and ``--tls-key``), since the login cookie and every answer cross the network.
Each refusal is a usage error (exit 2) naming the option, and so is a port already in use. On
start it prints one line, ``seamhost console: URL``, the URL carrying the one-time login token.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from seamhost.cli import started
from seamhost.cli.options import profile_option


@click.command()
@profile_option("the one whose store the console shows and answers in")
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8765,
    show_default=True,
    help="The port to listen on; 0 picks a free one (the URL printed names it).",
)
@click.option(
    "--allow-remote",
    is_flag=True,
    help="Listen on an address other than loopback (needs --tls-cert and --tls-key).",
)
@click.option(
    "--tls-cert",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A PEM certificate (chain): serve over HTTPS.",
)
@click.option(
    "--tls-key",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The PEM private key of --tls-cert.",
)
def console(
    *,
    profile_ref: str,
    host: str,
    port: int,
    allow_remote: bool,
    tls_cert: Path | None,
    tls_key: Path | None,
) -> None:
    """Serve a web console: sessions, timelines, approvals and unknown outcomes to answer.

    Prints a URL with a one-time token that logs the browser in; answers are recorded as the
    CLI's are, with the source `console`. Stop it with Ctrl-C.
    """
    # Imported here: Starlette, Uvicorn and Jinja2 load only when the console runs.
    from seamhost.console import server
    from seamhost.console.app import create_app
    from seamhost.console.guard import new_secret

    if server.is_wildcard(host):
        raise click.BadParameter(
            f"{host} is every address; give the address or name browsers will use, since "
            "posts are only accepted from that origin",
            param_hint="--host",
        )
    if (tls_cert is None) != (tls_key is None):
        raise click.UsageError("give --tls-cert and --tls-key together")
    if not server.is_loopback(host):
        if not allow_remote:
            raise click.BadParameter(
                f"{host} is not a loopback address; to serve other machines pass "
                "--allow-remote with --tls-cert and --tls-key",
                param_hint="--host",
            )
        if tls_cert is None:
            raise click.BadParameter(
                f"serving {host} needs TLS: give --tls-cert and --tls-key",
                param_hint="--allow-remote",
            )
    tls = tls_cert is not None
    try:
        sock = server.listen(host, port)
    except OSError as exc:
        raise click.BadParameter(
            f"cannot listen on {host} port {port}: {exc.strerror or exc}; pick another "
            "--port (0 picks a free one)",
            param_hint="--port",
        ) from None
    try:
        real_port = int(sock.getsockname()[1])
        token = new_secret()
        app = create_app(
            profile_ref, token=token, origin=server.origin(host, real_port, tls=tls), secure=tls
        )
        started()
        url = f"{server.origin(host, real_port, tls=tls)}/login?token={token}"
        click.echo(f"seamhost console: {url}")
        sys.stdout.flush()
        server.serve(app, sock, tls_cert=tls_cert, tls_key=tls_key)
    finally:
        sock.close()
