"""A streamable-HTTP MCP server behind OAuth, with its own authorization server.

Run as a script: ``python mcp_oauth_server.py http PORT`` (the arguments of the other test
servers); prints the port, then serves on
``127.0.0.1``. It speaks the documented MCP authorization flow:

- ``/mcp``: the MCP server (the SDK's), 401 with ``WWW-Authenticate: Bearer
  resource_metadata=…`` unless the request carries an access token it issued;
- ``/.well-known/oauth-protected-resource[/mcp]`` (RFC 9728) naming this origin as the
  authorization server; ``/.well-known/oauth-authorization-server`` (RFC 8414);
- ``POST /register``: dynamic client registration (RFC 7591), public clients;
- ``GET /authorize``: the "browser page" — checks the request (S256 challenge, a loopback
  redirect URI registered for the client) and redirects with a code and the state;
- ``POST /token``: ``authorization_code`` (the PKCE verifier must match) and ``refresh_token``
  (tokens rotate; the old access token stops working);
- ``GET /stats``: counts of what happened, for the test.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import socket
import sys
from collections import Counter
from typing import Any
from urllib.parse import urlencode, urlsplit

import uvicorn
from mcp.server.mcpserver import MCPServer
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

PORT = int(sys.argv[2]) if len(sys.argv) > 2 else 0
sock = socket.socket()
sock.bind(("127.0.0.1", PORT))
BASE = f"http://127.0.0.1:{sock.getsockname()[1]}"

stats: Counter[str] = Counter()
clients: dict[str, list[str]] = {}  # client id -> redirect URIs
codes: dict[str, tuple[str, str, str]] = {}  # code -> (client, challenge, redirect uri)
access: set[str] = set()
refresh: dict[str, str] = {}  # refresh token -> client

server = MCPServer("secured")


@server.tool()
def whoami() -> str:
    """Say that the caller got in."""
    return "signed in"


mcp_app = server.streamable_http_app()


def _issue(client: str) -> dict[str, Any]:
    token, renew = f"at-{secrets.token_hex(8)}", f"rt-{secrets.token_hex(8)}"
    access.add(token)
    refresh[renew] = client
    return {
        "access_token": token,
        "token_type": "Bearer",
        "expires_in": 3600,
        "refresh_token": renew,
    }


async def _endpoint(request: Request) -> Response:
    path = request.url.path
    if path.startswith("/.well-known/oauth-protected-resource"):
        stats["resource-metadata"] += 1
        return JSONResponse({"resource": f"{BASE}/mcp", "authorization_servers": [BASE]})
    if path == "/.well-known/oauth-authorization-server":
        stats["server-metadata"] += 1
        return JSONResponse(
            {
                "issuer": BASE,
                "authorization_endpoint": f"{BASE}/authorize",
                "token_endpoint": f"{BASE}/token",
                "registration_endpoint": f"{BASE}/register",
                "response_types_supported": ["code"],
                "grant_types_supported": ["authorization_code", "refresh_token"],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["none"],
            }
        )
    if path == "/register":
        body = await request.json()
        client = f"client-{secrets.token_hex(4)}"
        clients[client] = list(body.get("redirect_uris") or [])
        stats["register"] += 1
        return JSONResponse({**body, "client_id": client}, status_code=201)
    if path == "/authorize":
        return _authorize(dict(request.query_params))
    if path == "/token":
        return _token(dict(await request.form()))
    if path == "/stats":
        return JSONResponse(dict(stats))
    return JSONResponse({"error": "not_found"}, status_code=404)


def _authorize(query: dict[str, str]) -> Response:
    stats["authorize"] += 1
    client, redirect = query.get("client_id", ""), query.get("redirect_uri", "")
    ok = (
        query.get("response_type") == "code"
        and query.get("code_challenge_method") == "S256"
        and query.get("code_challenge")
        and redirect in clients.get(client, [])
        and urlsplit(redirect).hostname == "127.0.0.1"
    )
    if not ok:
        return JSONResponse({"error": "invalid_request"}, status_code=400)
    code = f"code-{secrets.token_hex(6)}"
    codes[code] = (client, query["code_challenge"], redirect)
    answer = {"code": code, "state": query.get("state", ""), "iss": BASE}
    return RedirectResponse(f"{redirect}?{urlencode(answer)}", status_code=302)


def _token(form: dict[str, Any]) -> Response:
    grant = form.get("grant_type")
    if grant == "authorization_code":
        stats["token-code"] += 1
        client, challenge, redirect = codes.pop(str(form.get("code")), ("", "", ""))
        verifier = str(form.get("code_verifier", ""))
        digest = hashlib.sha256(verifier.encode()).digest()
        expected = base64.urlsafe_b64encode(digest).decode().rstrip("=")
        if not client or expected != challenge or form.get("redirect_uri") != redirect:
            return JSONResponse({"error": "invalid_grant"}, status_code=400)
        return JSONResponse(_issue(client))
    if grant == "refresh_token":
        stats["token-refresh"] += 1
        client = refresh.pop(str(form.get("refresh_token")), "")
        if not client or client != form.get("client_id"):
            return JSONResponse({"error": "invalid_grant"}, status_code=400)
        access.clear()  # the old access token stops working
        return JSONResponse(_issue(client))
    return JSONResponse({"error": "unsupported_grant_type"}, status_code=400)


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        await mcp_app(scope, receive, send)
        return
    if scope["path"].startswith("/mcp"):
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        token = headers.get("authorization", "").removeprefix("Bearer ")
        if token not in access:
            stats["unauthorized"] += 1
            challenge = (
                f'Bearer resource_metadata="{BASE}/.well-known/oauth-protected-resource/mcp"'
            )
            response: Response = JSONResponse(
                {"error": "invalid_token"}, status_code=401, headers={"WWW-Authenticate": challenge}
            )
            await response(scope, receive, send)
            return
        stats["mcp"] += 1
        await mcp_app(scope, receive, send)
        return
    answer = await _endpoint(Request(scope, receive))
    await answer(scope, receive, send)


if __name__ == "__main__":
    print(sock.getsockname()[1], flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="error", lifespan="on")).run(sockets=[sock])
