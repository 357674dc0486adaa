"""Reading a received mail: who sent it, its thread, its text (HTML turned into plain text,
the quoted history told apart from the new part) and its attachments.

Pure functions on :class:`email.message.EmailMessage` (stdlib parser, ``policy.default``).
"""

from __future__ import annotations

import contextlib
import hashlib
import re
from dataclasses import dataclass
from email import policy
from email.header import decode_header, make_header
from email.message import EmailMessage, Message
from email.parser import BytesParser
from email.utils import getaddresses

import lxml.html
from lxml import etree

MAX_REFERENCES = 20  # ids kept in an answer's References header

_BLOCKS = frozenset(
    {
        "address",
        "article",
        "aside",
        "blockquote",
        "div",
        "dl",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hr",
        "main",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "table",
        "ul",
    }
)
_LINES = frozenset({"li", "tr", "dt", "dd"})  # one line each, no blank line between
_DROPPED = ("script", "style", "head", "title", "noscript", "template")
_QUOTE_STARTS = (
    re.compile(r"^\s*>"),
    re.compile(r"^\s*On\b.*\bwrote:\s*$", re.IGNORECASE),
    re.compile(r"^\s*Am\b.*\bschrieb\b.*:\s*$", re.IGNORECASE),
    re.compile(r"^\s*Le\b.*\ba écrit\s*:\s*$", re.IGNORECASE),
    re.compile(r"^\s*-{2,}\s*(Original Message|Forwarded message)\s*-{2,}", re.IGNORECASE),
    re.compile(r"^\s*_{10,}\s*$"),  # Outlook's line above the quoted header block
    re.compile(r"^-- ?$"),  # signature delimiter
)
_MESSAGE_ID = re.compile(r"<[^<>\s]+>")


def parse_bytes(raw: bytes) -> EmailMessage:
    """Parse a mail (or just its header block)."""
    message = BytesParser(policy=policy.default).parsebytes(raw)
    assert isinstance(message, EmailMessage)
    return message


def header_text(message: Message, name: str) -> str:
    """A header decoded to text (RFC 2047 words), or ``""``; never raises."""
    try:
        value = message.get(name)
    except Exception:  # noqa: BLE001 - a malformed header must not stop the channel
        value = None
        for key, raw in message.raw_items():
            if key.lower() == name.lower():
                value = raw
                break
    if value is None:
        return ""
    text = str(value)
    if "=?" in text:
        with contextlib.suppress(Exception):  # undecodable: keep the raw text
            text = str(make_header(decode_header(text)))
    return " ".join(text.split())


def sender_address(message: Message) -> str:
    """The one ``From`` address, lower case; ``""`` when there is not exactly one usable one."""
    froms = [raw for key, raw in message.raw_items() if key.lower() == "from"]
    if len(froms) != 1:
        return ""
    addresses = [addr for _, addr in getaddresses([" ".join(str(froms[0]).split())]) if addr]
    if len(addresses) != 1:
        return ""
    address = addresses[0].strip().lower()
    local, at, domain = address.rpartition("@")
    if not at or not local or not domain or any(c.isspace() or c in '<>,;"' for c in address):
        return ""
    return address


def normalise_address(value: str) -> str:
    """An address or ``Name <address>`` as a lower-case address (``""`` if there is none)."""
    pairs = [addr for _, addr in getaddresses([value or ""]) if "@" in addr]
    return pairs[0].strip().lower() if pairs else ""


def message_ids(value: str) -> list[str]:
    """The ``<id>`` tokens of a Message-ID / In-Reply-To / References value."""
    return _MESSAGE_ID.findall(value or "")


def dedupe_key(message: Message, raw: bytes) -> str:
    """What identifies a mail across restarts: its Message-ID, else a hash of its bytes."""
    ids = message_ids(header_text(message, "Message-ID"))
    return ids[0] if ids else "sha256:" + hashlib.sha256(raw).hexdigest()


def thread_references(message: Message) -> list[str]:
    """The References an answer to ``message`` carries (its References, then its id)."""
    refs = message_ids(header_text(message, "References"))
    if not refs:
        refs = message_ids(header_text(message, "In-Reply-To"))[:1]
    own = message_ids(header_text(message, "Message-ID"))[:1]
    chain = [r for r in refs if r not in own] + own
    return chain[-MAX_REFERENCES:]


def is_auto_submitted(message: Message) -> bool:
    """Auto-replies, bounces and lists (RFC 3834): an agent must not answer them."""
    auto = header_text(message, "Auto-Submitted").lower()
    if auto and not auto.startswith("no"):
        return True
    precedence = header_text(message, "Precedence").lower()
    return precedence in {"bulk", "junk", "list", "auto_reply"}


# -- text --------------------------------------------------------------------------------
def _decoded(part: Message) -> str:
    """A text part's content as ``str``; unknown charsets and bad bytes are replaced."""
    with contextlib.suppress(Exception):  # unknown charset, bad transfer encoding: raw bytes
        content = part.get_content()  # type: ignore[attr-defined]  # an EmailMessage (policy=default) typed as Message
        if isinstance(content, str):
            return content
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    charset = part.get_content_charset() or "utf-8"
    try:
        return payload.decode(charset, errors="replace")
    except LookupError:
        return payload.decode("utf-8", errors="replace")


def html_to_text(html: str) -> str:  # noqa: C901  # one branch per kind of HTML element
    """Readable plain text of an HTML mail: scripts and styles dropped, blocks on their own
    lines, list items bulleted, link targets kept in parentheses. Never fetches anything."""
    html = re.sub(r"^\s*<\?xml[^>]*\?>", "", html)
    if not html.strip():
        return ""
    try:
        root = lxml.html.document_fromstring(html)
    except (etree.ParserError, ValueError):
        return re.sub(r"<[^>]+>", " ", html).strip()
    for element in root.iter(*_DROPPED):
        element.drop_tree()
    for element in root.iter(etree.Comment):
        element.drop_tree()
    for element in root.iter():
        tag = element.tag if isinstance(element.tag, str) else ""
        if tag == "br":
            element.tail = "\n" + (element.tail or "")
        elif tag == "a":
            href = (element.get("href") or "").strip()
            label = element.text_content().strip()
            if href.startswith(("http://", "https://", "mailto:")) and href != label:
                element.tail = f" ({href})" + (element.tail or "")
        elif tag in ("td", "th"):
            element.tail = " " + (element.tail or "")
        if tag in _LINES:
            element.text = ("- " if tag == "li" else "") + (element.text or "")
            element.tail = "\n" + (element.tail or "")
        elif tag in _BLOCKS:
            element.text = "\n" + (element.text or "")
            element.tail = "\n\n" + (element.tail or "")
    text = root.text_content()
    lines = [" ".join(line.split()) for line in text.replace("\xa0", " ").splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def body_text(message: EmailMessage) -> str:
    """The mail's text: its plain-text parts, else its HTML parts as text."""
    plain: list[str] = []
    html: list[str] = []
    for part in message.walk():
        if part.is_multipart() or part.get_content_disposition() == "attachment":
            continue
        kind = part.get_content_type()
        if kind == "text/plain":
            plain.append(_decoded(part))
        elif kind == "text/html":
            html.append(_decoded(part))
    if any(p.strip() for p in plain):
        return "\n\n".join(p.strip() for p in plain if p.strip())
    return "\n\n".join(html_to_text(h) for h in html).strip()


def reply_part(text: str) -> str:
    """The new text of a reply: everything before the quoted history or the signature."""
    kept: list[str] = []
    quoted = False
    for line in text.replace("\r\n", "\n").split("\n"):
        if any(pattern.match(line) for pattern in _QUOTE_STARTS):
            quoted = True
            break
        kept.append(line)
    while kept and not kept[-1].strip():
        kept.pop()
    if quoted:  # an attribution wrapped over lines ("On Mon, … Alice <\nalice@…> wrote:")
        block = 0
        while block < len(kept) and kept[len(kept) - 1 - block].strip():
            block += 1
        if 0 < block <= 3 and block < len(kept) and kept[-1].rstrip().endswith(":"):
            del kept[len(kept) - block :]
    return "\n".join(kept).strip()


# -- attachments -------------------------------------------------------------------------
@dataclass(frozen=True)
class Attachment:
    """A file in a mail."""

    name: str
    content_type: str
    data: bytes

    @property
    def size(self) -> int:
        """Bytes."""
        return len(self.data)


def attachments(message: EmailMessage) -> list[Attachment]:
    """Files attached to the mail (attachment parts, and inline parts that are not text)."""
    found: list[Attachment] = []
    for part in message.walk():
        if part.is_multipart():
            continue
        disposition = part.get_content_disposition()
        kind = part.get_content_type()
        name = part.get_filename() or ""
        if disposition != "attachment" and not (name and not kind.startswith("text/")):
            continue
        payload = part.get_payload(decode=True)
        if not isinstance(payload, bytes) or not payload:
            continue
        found.append(Attachment(name or "attachment", kind, payload))
    return found


def safe_filename(name: str, limit: int = 100) -> str:
    """A file name without directories or odd characters (never empty or hidden)."""
    base = re.split(r"[\\/]", name)[-1]
    base = re.sub(r"[^\w.+-]+", "_", base, flags=re.UNICODE).strip("._")
    if len(base) > limit:
        stem, dot, ext = base.rpartition(".")
        base = (stem[: limit - len(ext) - 1] + "." + ext) if dot and len(ext) < 10 else base[:limit]
    return base or "attachment"
