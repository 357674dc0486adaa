"""Text out of documents: PDF pages (pypdf) and Word, Excel and PowerPoint files.

``read_file`` calls :func:`read_document` for a file whose first bytes or name say it is one of
these; attachments of these types get the start of their text in the message
(:func:`attachment_text`). Everything reads from an already opened file object (the file tools
open it race-free), in a worker thread, within limits: at most :data:`MAX_PDF_PAGES` pages per
call, :data:`MAX_DOC_CHARS` characters, and an Office file (a ZIP archive) is refused when it
would unpack to more than :data:`MAX_UNPACKED_BYTES` or has more than :data:`MAX_ZIP_MEMBERS`
members (a ZIP bomb). The libraries are imported on first use; a missing one is an error
result that names the package, not a crash.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

MAX_PDF_PAGES = 20
MAX_DOC_CHARS = 128_000
MAX_DOC_BYTES = 100 * 1024 * 1024
MAX_UNPACKED_BYTES = 400 * 1024 * 1024
MAX_ZIP_MEMBERS = 20_000
MAX_SHEET_ROWS = 5_000
ATTACHMENT_CHARS = 6_000

OFFICE_SUFFIXES = {".docx": "docx", ".xlsx": "xlsx", ".pptx": "pptx"}
PACKAGES = {"pdf": "pypdf", "docx": "python-docx", "xlsx": "openpyxl", "pptx": "python-pptx"}


class DocumentError(ValueError):
    """A document that cannot be read (damaged, encrypted, too large, a bad page range)."""


def document_kind(name: str, head: bytes) -> str | None:
    """``pdf``, ``docx``, ``xlsx``, ``pptx``, or ``None`` for anything else.

    A PDF is known by its first bytes; an Office file by its suffix and the ZIP signature.
    """
    if head.startswith(b"%PDF-"):
        return "pdf"
    kind = OFFICE_SUFFIXES.get(Path(name).suffix.lower())
    return kind if kind is not None and head.startswith(b"PK\x03\x04") else None


@dataclass(frozen=True)
class PdfPages:
    """The text of a range of PDF pages.

    Attributes:
        text: ``--- Page N ---`` headed page texts.
        first: The first page shown (1-based).
        last: The last page shown.
        total: Pages in the document.
        cut: The character limit stopped it before ``last`` was complete.
    """

    text: str
    first: int
    last: int
    total: int
    cut: bool = False


def page_range(pages: str | None, total: int) -> tuple[int, int]:
    """``"7"`` → (7, 7), ``"3-9"`` → (3, 9), ``None`` → the first pages; at most 20 pages.

    Raises:
        DocumentError: Not a page or range within the document.
    """
    if total < 1:
        raise DocumentError("the PDF has no pages")
    if not pages or not pages.strip():
        return 1, min(total, MAX_PDF_PAGES)
    start_text, _, end_text = pages.replace(" ", "").partition("-")
    try:
        start = int(start_text)
        end = int(end_text) if end_text else start
    except ValueError:
        raise DocumentError(f"pages must look like '7' or '1-5', not {pages!r}") from None
    if start < 1 or end < start:
        raise DocumentError(f"bad page range {pages!r}")
    if start > total:
        raise DocumentError(f"page {start} is past the end (the PDF has {total} pages)")
    return start, min(end, total, start + MAX_PDF_PAGES - 1)


def _pdf_reader(handle: BinaryIO) -> Any:
    from pypdf import PdfReader

    reader = PdfReader(handle)
    if reader.is_encrypted:
        try:
            opened = reader.decrypt("")  # many PDFs are "encrypted" with an empty password
        except Exception as exc:
            raise DocumentError(f"the PDF is encrypted ({exc})") from exc
        if not opened:
            raise DocumentError("the PDF is encrypted with a password")
    return reader


def read_pdf(handle: BinaryIO, pages: str | None) -> PdfPages:
    """The text of ``pages`` (see :func:`page_range`).

    Raises:
        DocumentError: Damaged, encrypted, or a bad page range.
    """
    from pypdf.errors import PdfReadError

    try:
        reader = _pdf_reader(handle)
        total = len(reader.pages)
        first, last = page_range(pages, total)
        parts: list[str] = []
        size = 0
        for number in range(first, last + 1):
            text = (reader.pages[number - 1].extract_text() or "").strip()
            block = f"--- Page {number} ---\n{text or '(no text on this page)'}"
            if size + len(block) > MAX_DOC_CHARS and parts:
                return PdfPages("\n\n".join(parts), first, number - 1, total, cut=True)
            parts.append(block[:MAX_DOC_CHARS])
            size += len(block) + 2
        return PdfPages("\n\n".join(parts), first, last, total)
    except (PdfReadError, OSError, ValueError, KeyError, TypeError) as exc:
        if isinstance(exc, DocumentError):
            raise
        raise DocumentError(f"the PDF cannot be read ({type(exc).__name__}: {exc})") from exc


def _check_archive(handle: BinaryIO) -> None:
    """Refuse a ZIP that is not one, or unpacks to too much (read from its directory only)."""
    try:
        with zipfile.ZipFile(handle) as archive:
            members = archive.infolist()
    except zipfile.BadZipFile as exc:
        raise DocumentError(f"not a valid Office file ({exc})") from exc
    finally:
        handle.seek(0)
    if len(members) > MAX_ZIP_MEMBERS:
        raise DocumentError(f"the archive has {len(members)} members; refusing to unpack it")
    unpacked = sum(m.file_size for m in members)
    if unpacked > MAX_UNPACKED_BYTES:
        raise DocumentError(
            f"the file would unpack to {unpacked // (1024 * 1024)} MB; refusing to read it"
        )


def _cells(values: Any) -> str:
    return " | ".join("" if v is None else " ".join(str(v).split()) for v in values).rstrip(" |")


def _docx_lines(handle: BinaryIO) -> Iterator[str]:
    from docx import Document
    from docx.table import Table

    for block in Document(handle).iter_inner_content():
        if isinstance(block, Table):
            for row in block.rows:
                yield "| " + " | ".join(" ".join(c.text.split()) for c in row.cells) + " |"
            continue
        text = block.text
        style = (block.style.name if block.style is not None else "") or ""
        level = style.removeprefix("Heading").strip()
        if text.strip() and style.startswith("Heading") and level.isdigit():
            text = "#" * min(6, int(level)) + " " + text
        yield text


def _xlsx_lines(handle: BinaryIO) -> Iterator[str]:
    from openpyxl import load_workbook

    workbook = load_workbook(handle, read_only=True, data_only=True)
    try:
        for sheet in workbook.worksheets:
            yield f"## Sheet: {sheet.title}"
            for count, row in enumerate(sheet.iter_rows(values_only=True), start=1):
                if count > MAX_SHEET_ROWS:
                    yield f"… (more rows; only the first {MAX_SHEET_ROWS} are read)"
                    break
                line = _cells(row)
                if line:
                    yield line
    finally:
        workbook.close()


def _shape_texts(shape: Any) -> Iterator[str]:
    if getattr(shape, "has_text_frame", False):
        for paragraph in shape.text_frame.paragraphs:
            text = "".join(run.text for run in paragraph.runs).strip()
            if text:
                yield text
    if getattr(shape, "has_table", False):
        for row in shape.table.rows:
            yield "| " + " | ".join(" ".join(c.text.split()) for c in row.cells) + " |"
    for inner in getattr(shape, "shapes", ()):  # a group
        yield from _shape_texts(inner)


def _pptx_lines(handle: BinaryIO) -> Iterator[str]:
    from pptx import Presentation

    presentation = Presentation(handle)
    for number, slide in enumerate(presentation.slides, start=1):
        yield f"## Slide {number}"
        for shape in slide.shapes:
            yield from _shape_texts(shape)
        if slide.has_notes_slide:
            notes = slide.notes_slide.notes_text_frame
            if notes is not None and notes.text.strip():
                yield "Notes: " + " ".join(notes.text.split())


_OFFICE = {"docx": _docx_lines, "xlsx": _xlsx_lines, "pptx": _pptx_lines}


def office_lines(handle: BinaryIO, kind: str) -> list[str]:
    """The extracted lines of a Word, Excel or PowerPoint file (at most ~:data:`MAX_DOC_CHARS`
    characters; a last line says when more was left out).

    Raises:
        DocumentError: Damaged, or an archive too large to unpack.
    """
    _check_archive(handle)
    lines: list[str] = []
    size = 0
    try:
        for line in _OFFICE[kind](handle):
            size += len(line) + 1
            if size > MAX_DOC_CHARS * 4:
                lines.append("… (the rest of the document is not read: too long)")
                break
            lines.append(line)
    except (zipfile.BadZipFile, KeyError, ValueError, OSError, TypeError) as exc:
        raise DocumentError(f"the file cannot be read ({type(exc).__name__}: {exc})") from exc
    return lines


def missing_library(kind: str) -> str | None:
    """The package to install when the library for ``kind`` is missing, else ``None``."""
    module = {"pdf": "pypdf", "docx": "docx", "xlsx": "openpyxl", "pptx": "pptx"}[kind]
    try:
        __import__(module)
    except ImportError:
        return PACKAGES[kind]
    return None


def attachment_text(path: str) -> str | None:
    """For an attached document: its path and the start of its text, framed as untrusted;
    ``None`` for anything else (images, plain files: the model reads those with read_file).

    Reads the file the person attached (not the model's choice of path); blocking.
    """
    from desktop.core.tools.untrusted import frame

    file = Path(path).expanduser()
    try:
        with file.open("rb") as handle:
            head = handle.read(8)
            kind = document_kind(file.name, head)
            if kind is None:
                return None
            handle.seek(0)
            data = handle.read(MAX_DOC_BYTES + 1)
    except OSError:
        return None
    note = f"[Attachment: {file}]"
    if len(data) > MAX_DOC_BYTES:
        return f"{note} (too large to read here; use read_file)"
    if missing_library(kind):
        return f"{note} ({kind.upper()} text cannot be read: {PACKAGES[kind]} is not installed)"
    try:
        if kind == "pdf":
            pages = read_pdf(io.BytesIO(data), None)
            text, more = pages.text, pages.last < pages.total or pages.cut
        else:
            text = "\n".join(office_lines(io.BytesIO(data), kind))
            more = False
    except DocumentError as exc:
        return f"{note} ({exc})"
    if len(text) > ATTACHMENT_CHARS:
        text, more = text[:ATTACHMENT_CHARS], True
    tail = "\n(The text goes on: read_file the path for the rest.)" if more else ""
    return f"{note}\n{frame(text, f'attachment {file.name}')}{tail}"
