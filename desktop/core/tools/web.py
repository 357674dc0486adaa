"""Web tools: ``web_fetch`` (SSRF-guarded, readable markdown) and ``web_search``.

``web_fetch`` resolves the host itself, refuses any non-public address
(:mod:`desktop.core.security.network`), then connects to the checked address — the request
URL carries the IP while the ``Host`` header and TLS SNI/certificate check use the name — so
DNS cannot change the answer between check and connect. Redirects are followed by hand, at
most :data:`MAX_REDIRECTS`, each hop checked the same way. With ``tools.web.proxy`` set, the
plain-HTTP request still goes to the pinned IP, but an HTTPS request must name the host for
the CONNECT tunnel, so the proxy resolves it again (the local check still applies).

Every ``web_fetch`` result text, errors included, and every ``web_search`` result list is
framed as untrusted (:func:`desktop.core.tools.untrusted.frame`): an opening and a closing
marker with a random id the page cannot know, look-alike markers inside neutralised.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar
from urllib.parse import parse_qs, urlparse

import httpx

from desktop.core.config.schema import WebToolsConfig
from desktop.core.security.network import BlockedAddressError, resolve_public
from desktop.core.tools.base import Tool, ToolContext, ToolResult
from desktop.core.tools.untrusted import frame
from desktop.core.utils.validate import parse_json

MAX_REDIRECTS = 5
MAX_BYTES = 2_000_000
FETCH_TIMEOUT = 60.0
SHORT_PAGE = 2_000  # characters of markdown below which the whole body is kept
DDG_URL = "https://html.duckduckgo.com/html/"
BRAVE_URL = "https://api.search.brave.com/res/v1/web/search"
USER_AGENT = (
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) nanobot-desktop"
)

Resolver = Callable[[str, int], Awaitable[list[str]]]

_SKIP = {
    "script",
    "style",
    "noscript",
    "template",
    "svg",
    "iframe",
    "head",
    "form",
    "button",
    "select",
    "input",
    "textarea",
    "canvas",
    "object",
    "embed",
    "img",
    "picture",
    "video",
    "nav",
}
_BLOCK = {
    "p",
    "div",
    "section",
    "article",
    "main",
    "header",
    "footer",
    "aside",
    "figure",
    "figcaption",
    "dl",
    "dt",
    "dd",
    "address",
    "details",
    "summary",
    "body",
    "html",
}
_HTML_TYPES = ("text/html", "application/xhtml+xml")


def _marked(text: str, source: str, *, error: bool = False) -> ToolResult:
    """A result whose text is framed as untrusted content from ``source``."""
    body = frame(text, source)
    return ToolResult.error(body) if error else ToolResult(body)


def _client(config: WebToolsConfig) -> httpx.AsyncClient:
    """An HTTP client that ignores proxy/SSL environment variables unless configured."""
    return httpx.AsyncClient(
        proxy=config.proxy or None,
        trust_env=False,
        follow_redirects=False,
        timeout=httpx.Timeout(30.0, connect=10.0),
        headers={"User-Agent": USER_AGENT},
    )


# --- HTML to markdown -------------------------------------------------------------------------

_INDENT = "\x02"  # list indentation that survives whitespace clean-up


def _children_md(el: Any, base: str) -> str:
    text = re.sub(r"\s+", " ", el.text or "")
    for child in el:
        text += _md(child, base) + re.sub(r"\s+", " ", child.tail or "")
    return text


def _list_md(el: Any, base: str) -> str:
    lines = []
    for index, item in enumerate(el.iterchildren("li"), 1):
        bullet = f"{index}. " if el.tag == "ol" else "- "
        body = re.sub(r"\n{2,}", "\n", _children_md(item, base).strip())
        lines.append(bullet + body.replace("\n", "\n" + _INDENT * len(bullet)))
    return "\n\n" + "\n".join(lines) + "\n\n"


def _table_md(el: Any, base: str) -> str:
    rows = []
    for tr in el.iter("tr"):
        cells = [
            _children_md(td, base).strip().replace("|", "\\|").replace("\n", " ")
            for td in tr
            if td.tag in ("td", "th")
        ]
        if cells:
            rows.append("| " + " | ".join(cells) + " |")
            if len(rows) == 1:
                rows.append("|" + " --- |" * len(cells))
    return "\n\n" + "\n".join(rows) + "\n\n" if rows else ""


def _md(el: Any, base: str) -> str:  # noqa: C901  # one branch per HTML tag
    """Markdown for one element (its tail is added by the caller)."""
    tag = el.tag.lower() if isinstance(el.tag, str) else ""
    if not tag or tag in _SKIP:
        return ""
    if tag == "pre":
        code: str = el.text_content()
        return "\n\n```\n" + code.strip("\n") + "\n```\n\n"
    if tag in ("ul", "ol"):
        return _list_md(el, base)
    if tag == "table":
        return _table_md(el, base)
    if tag == "br":
        return "\n"
    if tag == "hr":
        return "\n\n---\n\n"
    inner = _children_md(el, base)
    if re.fullmatch(r"h[1-6]", tag):
        return f"\n\n{'#' * int(tag[1])} {inner.strip()}\n\n" if inner.strip() else ""
    if tag == "blockquote":
        return "\n\n" + "\n".join("> " + line for line in inner.strip().splitlines()) + "\n\n"
    if tag in _BLOCK or tag in ("li", "tr"):
        return f"\n\n{inner.strip()}\n\n"
    if tag == "a":
        href = (el.get("href") or "").strip()
        label = inner.strip()
        if label and href and not href.startswith(("#", "javascript:", "mailto:")):
            try:
                href = str(httpx.URL(base).join(href)) if base else href
            except httpx.InvalidURL:
                pass
            return f"[{label}]({href})"
        return inner
    if tag in ("strong", "b") and inner.strip():
        return f"**{inner.strip()}**"
    if tag in ("em", "i") and inner.strip():
        return f"*{inner.strip()}*"
    if tag == "code" and inner.strip():
        return f"`{inner.strip()}`"
    return inner


def _tidy(markdown: str) -> str:
    """Trim lines and blank runs outside code fences; keep code blocks verbatim."""
    out: list[str] = []
    fenced = False
    for line in markdown.splitlines():
        if line.strip().startswith("```"):
            fenced = not fenced
            out.append(line.strip())
        elif fenced:
            out.append(line.rstrip())
        elif line.strip() or (out and out[-1]):
            out.append(line.strip().replace(_INDENT, " "))
    return "\n".join(out).strip()


def html_to_markdown(html: str, base_url: str = "") -> tuple[str, str]:
    """Readable markdown of a page's main content.

    The main content is chosen by readability (``readability-lxml``). Short pages (where
    boilerplate costs little and readability tends to drop small tables and lists) and pages
    where it keeps less than a fifth of the text (list-like pages) use the whole body; script,
    style, nav and form elements are always left out.

    Args:
        html: The page.
        base_url: URL used to make links absolute.

    Returns:
        ``(title, markdown)``.
    """
    # lxml and readability (≈12 MB) load on the first page read, not with the app.
    import lxml.html
    from lxml import etree
    from readability import Document

    html = re.sub(r"^\s*<\?xml[^>]*\?>", "", html)  # lxml refuses str with an encoding declaration
    try:
        page = lxml.html.fromstring(html)
    except (etree.ParserError, ValueError):
        return "", html
    title = (page.findtext(".//title") or "").strip()
    full = _tidy(_md(page.find("body") if page.find("body") is not None else page, base_url))
    try:
        doc = Document(html, url=base_url or None)
        title = doc.short_title() or title
        main = _tidy(_md(lxml.html.fromstring(doc.summary(html_partial=True)), base_url))
    except Exception:  # noqa: BLE001 - readability raises on odd documents; use the body
        main = ""
    use_main = len(full) > SHORT_PAGE and len(main) >= 0.2 * len(full)
    return re.sub(r"\s+", " ", title), main if use_main else full


# --- fetching ---------------------------------------------------------------------------------


class FetchError(Exception):
    """A fetch that must stop, with a message for the model."""


def _decode(body: bytes, response: httpx.Response, html: bool) -> str:
    charset = response.charset_encoding
    if not charset and html:
        found = re.search(rb"""<meta[^>]+charset=["']?([\w-]+)""", body[:4096], re.IGNORECASE)
        charset = found.group(1).decode("ascii") if found else None
    try:
        return body.decode(charset or "utf-8", errors="replace")
    except LookupError:
        return body.decode("utf-8", errors="replace")


class WebFetchTool(Tool):
    """Fetch a public web page as readable markdown (see the module docstring)."""

    name = "web_fetch"
    description = "Fetch a public http(s) URL and return its readable content as markdown."
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "url": {"type": "string", "description": "http or https URL."},
            "max_chars": {
                "type": "integer",
                "minimum": 500,
                "maximum": 100_000,
                "description": "Maximum characters returned (default 20000).",
            },
        },
        "required": ["url"],
    }
    read_only = True

    def __init__(
        self, config: WebToolsConfig | None = None, *, resolver: Resolver = resolve_public
    ) -> None:
        """Create the tool.

        Args:
            config: ``tools.web`` settings (proxy).
            resolver: ``async (host, port) -> [ip, ...]`` that raises
                :class:`BlockedAddressError` for non-public hosts; tests inject fakes.
        """
        self.config = config or WebToolsConfig()
        self.resolver = resolver

    async def _open(self, client: httpx.AsyncClient, url: httpx.URL) -> httpx.Response:
        """Check ``url`` and send a GET to its pinned address (streaming)."""
        if url.scheme not in ("http", "https"):
            raise FetchError(f"only http and https URLs can be fetched, not {url.scheme or 'this'}")
        host = url.raw_host.decode("ascii")
        if not host:
            raise FetchError("the URL has no host")
        port = url.port or (443 if url.scheme == "https" else 80)
        try:
            addresses = await self.resolver(host, port)
        except BlockedAddressError as exc:
            raise FetchError(f"refused: {exc} (only public addresses can be fetched)") from exc
        except OSError as exc:
            raise FetchError(f"cannot resolve {host}: {exc}") from exc
        pinned = url.copy_with(host=addresses[0], username=None, password=None)
        if self.config.proxy and url.scheme == "https":
            pinned = url  # the CONNECT tunnel must name the host (see module docstring)
        extensions = {"sni_hostname": host} if url.scheme == "https" else {}
        request = client.build_request(
            "GET", pinned, headers={"Host": url.netloc.decode("ascii")}, extensions=extensions
        )
        client.cookies.clear()
        return await client.send(request, stream=True)

    async def fetch(self, url: str) -> tuple[httpx.URL, httpx.Response, bytes, bool]:
        """GET ``url`` following at most :data:`MAX_REDIRECTS` checked redirects.

        Returns:
            Final URL, response (closed), body (at most :data:`MAX_BYTES`), truncated flag.

        Raises:
            FetchError: Refused or failed, with a message for the model.
        """
        try:
            current = httpx.URL(url.strip())
        except httpx.InvalidURL as exc:
            raise FetchError(f"invalid URL: {exc}") from exc
        async with _client(self.config) as client:
            for hop in range(MAX_REDIRECTS + 1):
                response = await self._open(client, current)
                try:
                    if response.is_redirect:
                        if hop == MAX_REDIRECTS:
                            raise FetchError(f"too many redirects (more than {MAX_REDIRECTS})")
                        try:
                            current = current.join(response.headers["location"])
                        except httpx.InvalidURL as exc:
                            raise FetchError(f"invalid redirect target: {exc}") from exc
                        continue
                    body, truncated = bytearray(), False
                    async for chunk in response.aiter_bytes():
                        body += chunk
                        if len(body) > MAX_BYTES:
                            del body[MAX_BYTES:]
                            truncated = True
                            break
                    return current, response, bytes(body), truncated
                finally:
                    await response.aclose()
        raise AssertionError("unreachable")

    async def execute(self, ctx: ToolContext, **kwargs: Any) -> ToolResult:  # noqa: C901  # the fetch's failures, each with its own message for the model
        """Fetch the URL and return its readable text, framed as untrusted."""
        max_chars = int(kwargs.get("max_chars") or 20_000)
        try:
            async with asyncio.timeout(FETCH_TIMEOUT):
                final, response, body, truncated = await self.fetch(str(kwargs.get("url") or ""))
        except FetchError as exc:
            return _marked(f"Error: {exc}", "web_fetch", error=True)
        except TimeoutError:
            message = f"Error: fetching took longer than {FETCH_TIMEOUT:.0f}s"
            return _marked(message, "web_fetch", error=True)
        except httpx.HTTPError as exc:
            message = f"Error: request failed: {type(exc).__name__}: {exc}"
            return _marked(message, "web_fetch", error=True)
        ctype = response.headers.get("content-type", "").split(";")[0].strip().lower()
        is_html = ctype in _HTML_TYPES or (
            not ctype and body.lstrip()[:15].lower().startswith((b"<!doctype html", b"<html"))
        )
        if (
            ctype
            and not is_html
            and not ctype.startswith("text/")
            and not re.search(r"json|xml|javascript|csv|yaml", ctype)
        ):
            message = f"Error: unsupported content type {ctype} ({len(body):,} bytes)"
            return _marked(message, "web_fetch", error=True)
        text, title = _decode(body, response, is_html), ""
        if is_html:
            title, text = await asyncio.to_thread(html_to_markdown, text, str(final))
        elif "json" in ctype:
            try:
                text = json.dumps(parse_json(text), indent=2, ensure_ascii=False)
            except ValueError:
                pass
        header = [f"URL: {final}"] + ([f"Title: {title}"] if title else [])
        if response.status_code != 200:
            header.append(f"Status: {response.status_code}")
        if truncated:
            header.append(f"Note: the response was cut at {MAX_BYTES:,} bytes")
        if len(text) > max_chars:
            note = f"[truncated: {max_chars:,} of {len(text):,} characters shown]"
            text = f"{text[:max_chars]}\n\n{note}"
        failed = response.status_code >= 400
        return _marked("\n".join(header) + "\n\n" + text, "web_fetch", error=failed)


# --- search -----------------------------------------------------------------------------------

_DDG_RESULT = '//div[contains(concat(" ", normalize-space(@class), " "), " result ")]'
_Hit = tuple[str, str, str]  # title, url, snippet


def _ddg_results(html: str, count: int) -> list[_Hit]:
    """``(title, url, snippet)`` from a DuckDuckGo HTML results page (ads skipped).

    Raises:
        ValueError: The page cannot be parsed.
    """
    import lxml.html
    from lxml import etree

    try:
        page = lxml.html.fromstring(html)
    except etree.ParserError as exc:
        raise ValueError(f"unreadable results page: {exc}") from exc
    results = []
    for node in page.xpath(_DDG_RESULT):
        if "result--ad" in (node.get("class") or ""):
            continue
        links = node.xpath('.//a[contains(@class, "result__a")]')
        if not links:
            continue
        href = links[0].get("href") or ""
        target = parse_qs(urlparse(href).query).get("uddg", [href])[0]
        if target.startswith("//"):
            target = "https:" + target
        snippet = node.xpath('.//*[contains(@class, "result__snippet")]')
        results.append(
            (
                links[0].text_content().strip(),
                target,
                snippet[0].text_content().strip() if snippet else "",
            )
        )
        if len(results) >= count:
            break
    return results


def _strip_tags(text: str) -> str:
    return re.sub(r"<[^>]+>", "", text or "").strip()


class WebSearchTool(Tool):
    """Search the web: keyless DuckDuckGo, or Brave Search when an API key is configured."""

    name = "web_search"
    description = "Search the web; returns titles, URLs and snippets."
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1},
            "count": {
                "type": "integer",
                "minimum": 1,
                "maximum": 20,
                "description": "Results (default 5).",
            },
        },
        "required": ["query"],
    }
    read_only = True

    def __init__(
        self,
        config: WebToolsConfig | None = None,
        *,
        ddg_url: str = DDG_URL,
        brave_url: str = BRAVE_URL,
    ) -> None:
        """Create the tool.

        Args:
            config: ``tools.web`` settings (proxy, search provider, API key, max results).
            ddg_url: DuckDuckGo HTML endpoint (tests point it at a local server).
            brave_url: Brave Search API endpoint (likewise).
        """
        self.config = config or WebToolsConfig()
        self.ddg_url = ddg_url
        self.brave_url = brave_url

    @property
    def uses_brave(self) -> bool:
        """Brave is used when an API key is set or ``provider`` is ``brave``."""
        search = self.config.search
        return bool(search.api_key) or search.provider.lower() == "brave"

    async def _brave(self, client: httpx.AsyncClient, query: str, count: int) -> list[_Hit]:
        if not self.config.search.api_key:
            raise FetchError("Brave Search needs tools.web.search.apiKey")
        response = await client.get(
            self.brave_url,
            params={"q": query, "count": count},
            headers={
                "Accept": "application/json",
                "X-Subscription-Token": self.config.search.api_key,
            },
        )
        response.raise_for_status()
        items = (response.json().get("web") or {}).get("results") or []
        return [
            (
                _strip_tags(item.get("title", "")),
                item.get("url", ""),
                _strip_tags(item.get("description", "")),
            )
            for item in items[:count]
        ]

    async def _duckduckgo(self, client: httpx.AsyncClient, query: str, count: int) -> list[_Hit]:
        response = await client.post(self.ddg_url, data={"q": query})
        response.raise_for_status()
        return await asyncio.to_thread(_ddg_results, response.text, count)

    async def execute(self, ctx: ToolContext, **kwargs: Any) -> ToolResult:
        """Run the search and return a numbered list, framed as untrusted."""
        query = str(kwargs.get("query") or "").strip()
        if not query:
            return ToolResult.error("Error: query is empty.")
        count = max(1, min(int(kwargs.get("count") or self.config.search.max_results), 20))
        engine = "Brave Search" if self.uses_brave else "DuckDuckGo"
        try:
            async with _client(self.config) as client:
                search = self._brave if self.uses_brave else self._duckduckgo
                results = await search(client, query, count)
        except FetchError as exc:
            return ToolResult.error(f"Error: {exc}")
        except (httpx.HTTPError, ValueError) as exc:
            message = f"Error: {engine} search failed: {type(exc).__name__}: {exc}"
            return _marked(message, "web_search", error=True)
        if not results:
            return _marked(f"No results from {engine} for: {query}", "web_search")
        lines = [f"Results for: {query}"]
        for index, (title, url, snippet) in enumerate(results, 1):
            lines.append(f"{index}. {title}\n   {url}" + (f"\n   {snippet}" if snippet else ""))
        return _marked("\n".join(lines), "web_search")


def web_tools(config: WebToolsConfig | None = None) -> list[Tool]:
    """The web tool family: ``web_fetch`` and ``web_search``."""
    return [WebFetchTool(config), WebSearchTool(config)]
