"""Is a mail really from its ``From`` address? Authentication-Results (RFC 8601) checks.

The receiving provider records SPF and DKIM verdicts in an ``Authentication-Results`` header
named after itself (the *authserv-id*, e.g. ``mx.google.com``). Only headers from a trusted
authserv-id count, and exactly one of them must be present: a second one may be a header the
sender forged and the provider kept. A verdict counts when it is ``pass`` and its domain is
aligned with the ``From`` domain — DMARC's relaxed alignment: both have the same organizational
domain, the registrable name the Public Suffix List gives (``mail.example.com`` and
``example.com`` are aligned; ``com`` and ``example.com``, ``co.uk`` and ``example.co.uk`` are
not) — ``smtp.mailfrom`` for SPF, ``header.d`` (else the domain of ``header.i``) for DKIM.

The header is parsed as wire text (comments dropped, quoted strings kept, nothing decoded).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import getaddresses

from publicsuffixlist import PublicSuffixList

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]*")
_KEY = re.compile(r"\s*([A-Za-z][A-Za-z0-9_-]*(?:\.[A-Za-z][A-Za-z0-9_-]*|/[0-9]+)?)\s*=\s*")
_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")


@dataclass(frozen=True)
class Verdict:
    """One ``method=result`` entry with its ``ptype.property`` values."""

    method: str
    result: str
    properties: dict[str, str]


def _strip_comments(text: str) -> str | None:  # noqa: C901  # a character scanner (quotes, escapes, nesting)
    """``text`` without ``(comments)``; ``None`` when quotes or parentheses do not close."""
    out: list[str] = []
    depth = 0
    quoted = False
    escaped = False
    for char in text:
        if escaped:
            if depth == 0:
                out.append(char)
            escaped = False
        elif char == "\\" and (quoted or depth):
            escaped = True
            if depth == 0:
                out.append(char)
        elif depth:
            depth += {"(": 1, ")": -1}.get(char, 0)
            if depth == 0:
                out.append(" ")
        elif quoted:
            out.append(char)
            quoted = char != '"'
        elif char == "(":
            depth = 1
        else:
            quoted = char == '"'
            out.append(char)
    if depth or quoted or escaped:
        return None
    return "".join(out)


def _split_semicolons(text: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    quoted = False
    escaped = False
    for char in text:
        if escaped:
            escaped = False
        elif char == "\\" and quoted:
            escaped = True
        elif char == '"':
            quoted = not quoted
        elif char == ";" and not quoted:
            parts.append("".join(current).strip())
            current = []
            continue
        current.append(char)
    parts.append("".join(current).strip())
    return parts


def _pairs(text: str) -> list[tuple[str, str]] | None:  # noqa: C901  # a small tokenizer for key=value results (quotes, escapes)
    """``key=value`` pairs of one result (values unquoted); ``None`` if it does not parse."""
    pairs: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        match = _KEY.match(text, pos)
        if match is None:
            return None
        key, pos = match.group(1), match.end()
        if pos < len(text) and text[pos] == '"':
            end = pos + 1
            value_chars: list[str] = []
            while end < len(text) and text[end] != '"':
                if text[end] == "\\" and end + 1 < len(text):
                    end += 1
                value_chars.append(text[end])
                end += 1
            if end >= len(text):
                return None
            value, pos = "".join(value_chars), end + 1
            # a quoted local part followed by @domain (smtp.mailfrom="a b"@example.org)
            tail = re.match(r"@[A-Za-z0-9.-]+", text[pos:])
            if tail:
                value += tail.group(0)
                pos += tail.end()
        else:
            end = pos
            while end < len(text) and not text[end].isspace():
                end += 1
            value, pos = text[pos:end], end
        if not value and key.lower() != "reason":
            return None
        if pos < len(text) and not text[pos].isspace():
            return None
        pairs.append((key, value))
    return pairs or None


def parse_header(value: str) -> tuple[str, list[Verdict]] | None:
    """``(authserv-id, verdicts)`` of one header; ``None`` when no authserv-id is readable.

    A header whose results do not parse still names its producer (with no verdicts), so it
    counts against the "exactly one trusted header" rule.
    """
    text = _strip_comments(" ".join(value.split()))
    if text is None:
        return None
    parts = _split_semicolons(text)
    head = parts[0].split()
    if not head or len(head) > 2 or (len(head) == 2 and not head[1].isdigit()):
        return None
    ident = head[0].strip('"').casefold().rstrip(".")
    if not _TOKEN.fullmatch(ident):
        return None
    verdicts: list[Verdict] = []
    for part in parts[1:]:
        if part.lower() == "none":
            continue
        pairs = _pairs(part)
        if pairs is None:
            return ident, []
        method = pairs[0][0].casefold().partition("/")[0]
        result = pairs[0][1].casefold()
        if "." in method or not re.fullmatch(r"[a-z][a-z0-9_-]*", result):
            return ident, []
        keys = [k.casefold() for k, _ in pairs[1:]]
        if len(keys) != len(set(keys)):
            return ident, []
        props = {k.casefold(): v for k, v in pairs[1:] if "." in k}
        verdicts.append(Verdict(method, result, props))
    return ident, verdicts


def domain_of(value: str) -> str:
    """The normalised (IDNA, lower case) domain of an address or domain; ``""`` if invalid."""
    candidate = value.strip().strip("<>").rstrip(".")
    candidate = candidate.rpartition("@")[2].lower().rstrip(".")
    if not candidate or any(c.isspace() for c in candidate):
        return ""
    try:
        ascii_domain = candidate.encode("idna").decode("ascii")
    except UnicodeError:
        return ""
    if len(ascii_domain) > 253 or not all(_LABEL.fullmatch(p) for p in ascii_domain.split(".")):
        return ""
    return ascii_domain


@functools.cache
def _public_suffixes() -> PublicSuffixList:
    """The Public Suffix List shipped with the library (read once; no network)."""
    return PublicSuffixList()


def organizational_domain(domain: str) -> str:
    """The registrable domain of a normalised domain (:func:`domain_of`): its public suffix
    plus one label (``mail.example.co.uk`` → ``example.co.uk``); ``""`` for a public suffix
    itself (``com``, ``co.uk``, ``github.io``) or an empty one."""
    if not domain:
        return ""
    return _public_suffixes().privatesuffix(domain) or ""


def aligned(a: str, b: str) -> bool:
    """DMARC's relaxed alignment (RFC 7489, 3.1.1): the same organizational domain.

    A public suffix has none, so it is aligned with nothing: a signature by ``com`` vouches
    for no ``example.com`` mail.
    """
    org = organizational_domain(a)
    return bool(org) and org == organizational_domain(b)


def _passes(verdicts: Iterable[Verdict], method: str, sender_domain: str) -> bool:
    for verdict in verdicts:
        if verdict.method != method or verdict.result != "pass":
            continue
        if method == "spf":
            domain = domain_of(verdict.properties.get("smtp.mailfrom", ""))
        elif "header.d" in verdict.properties:
            raw = verdict.properties["header.d"]
            domain = "" if any(c in raw for c in "@<>") else domain_of(raw)
        else:
            raw = verdict.properties.get("header.i", "")
            domain = domain_of(raw) if "@" in raw else ""
        if aligned(domain, sender_domain):
            return True
    return False


def verify(message: EmailMessage, sender: str, trusted: Iterable[str]) -> tuple[bool, bool]:
    """``(spf_pass, dkim_pass)`` for ``message`` claimed to be from ``sender``.

    Both are ``False`` unless there is exactly one ``From`` with exactly one address, and
    exactly one ``Authentication-Results`` header from a ``trusted`` authserv-id.
    """
    froms = message.get_all("From") or []
    if len(froms) != 1 or len(getaddresses([str(froms[0])])) != 1:
        return False, False
    sender_domain = domain_of(sender)
    trusted_ids = {t.casefold().rstrip(".") for t in trusted}
    if not sender_domain or not trusted_ids:
        return False, False
    found: list[list[Verdict]] = []
    for name, raw in message.raw_items():
        if name.casefold() != "authentication-results":
            continue
        parsed = parse_header(str(raw))
        if parsed is not None and parsed[0] in trusted_ids:
            found.append(parsed[1])
    if len(found) != 1:
        return False, False
    return _passes(found[0], "spf", sender_domain), _passes(found[0], "dkim", sender_domain)
