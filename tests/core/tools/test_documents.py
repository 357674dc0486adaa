"""read_file on PDF and Office documents, and documents attached to a message.

The documents are real: Word, Excel and PowerPoint files are made with python-docx, openpyxl
and python-pptx; the PDF is written by hand (a valid file with a Type1 font and one text line
per page), then read back by pypdf through the tool.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from desktop.core.assembly import build_runtime
from desktop.core.config.schema import Config
from desktop.core.tools.base import ToolContext
from desktop.core.tools.documents import MAX_UNPACKED_BYTES, attachment_text
from desktop.core.tools.filesystem import ReadFileTool
from tests.core.agent.conftest import make_provider
from tests.fakes.openai_server import Reply, ScriptedOpenAIServer


def make_pdf(pages: list[str]) -> bytes:
    """A small valid PDF with one line of Helvetica text per page."""
    count = len(pages)
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids ["
        + b" ".join(f"{4 + 2 * i} 0 R".encode() for i in range(count))
        + f"] /Count {count} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    for index, text in enumerate(pages):
        stream = f"BT /F1 18 Tf 72 720 Td ({text}) Tj ET".encode()
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {5 + 2 * index} 0 R "
            "/Resources << /Font << /F1 3 0 R >> >> >>".encode()
        )
        objects.append(f"<< /Length {len(stream)} >>\nstream\n".encode() + stream + b"\nendstream")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    return bytes(out)


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return ToolContext(workspace=workspace)


async def test_pdf_pages_are_read_in_ranges(ctx: ToolContext) -> None:
    (ctx.workspace / "book.pdf").write_bytes(make_pdf([f"Chapter {n} text" for n in range(1, 26)]))
    tool = ReadFileTool()
    first = await tool.execute(ctx, path="book.pdf")
    assert not first.is_error, first.text
    assert "--- Page 1 ---\nChapter 1 text" in first.text and "Chapter 20 text" in first.text
    assert "Chapter 21" not in first.text and "pages='21-25'" in first.text
    assert first.text.startswith("<<<untrusted")
    one = await tool.execute(ctx, path="book.pdf", pages="23")
    assert "Chapter 23 text" in one.text and "Chapter 22" not in one.text
    bad = await tool.execute(ctx, path="book.pdf", pages="40-41")
    assert bad.is_error and "past the end" in bad.text


async def test_office_documents_are_read_as_numbered_lines(ctx: ToolContext) -> None:
    import docx
    import openpyxl
    import pptx

    document = docx.Document()
    document.add_heading("Quarterly plan", level=1)
    document.add_paragraph("Hire two engineers.")
    table = document.add_table(rows=1, cols=2)
    table.rows[0].cells[0].text, table.rows[0].cells[1].text = "Budget", "12k"
    document.save(str(ctx.workspace / "plan.docx"))
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Costs"
    sheet.append(["item", "eur"])
    sheet.append(["laptop", 1200])
    book.save(str(ctx.workspace / "costs.xlsx"))
    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Roadmap"
    slide.placeholders[1].text = "Ship the beta"
    deck.save(str(ctx.workspace / "road.pptx"))

    tool = ReadFileTool()
    word = await tool.execute(ctx, path="plan.docx")
    assert "# Quarterly plan" in word.text and "Hire two engineers." in word.text
    assert "| Budget | 12k |" in word.text
    excel = await tool.execute(ctx, path="costs.xlsx")
    assert "## Sheet: Costs" in excel.text and "laptop | 1200" in excel.text
    slides = await tool.execute(ctx, path="road.pptx")
    assert (
        "## Slide 1" in slides.text and "Roadmap" in slides.text and "Ship the beta" in slides.text
    )
    paged = await tool.execute(ctx, path="plan.docx", offset=2, limit=1)
    assert "2| Hire two engineers." in paged.text and "offset=3" in paged.text


async def test_a_zip_bomb_and_a_damaged_file_are_refused(ctx: ToolContext) -> None:
    bomb = ctx.workspace / "bomb.docx"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("word/document.xml", b"\0" * (MAX_UNPACKED_BYTES + 1))
    result = await ReadFileTool().execute(ctx, path="bomb.docx")
    assert result.is_error and "unpack" in result.text
    (ctx.workspace / "broken.pdf").write_bytes(b"%PDF-1.4\nnot really a pdf")
    broken = await ReadFileTool().execute(ctx, path="broken.pdf")
    assert broken.is_error and "broken.pdf" in broken.text


async def test_an_attached_document_is_read_into_the_message(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """A PDF attached to a message: the model gets its text (framed) and its path."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    media = workspace / "media"
    media.mkdir()
    (media / "invoice.pdf").write_bytes(make_pdf(["Invoice 4711 total 99 EUR"]))
    config = Config.model_validate({"agents": {"defaults": {"workspace": str(workspace)}}})
    runtime = build_runtime(config, make_provider(scripted_server.url))
    scripted_server.push(Reply("99 EUR."))
    try:
        out = await runtime.agent.process_direct(
            "what is the total?", session_key="cli:inv", media=[str(media / "invoice.pdf")]
        )
    finally:
        await runtime.stop()
    assert out == "99 EUR."
    sent = json.dumps(scripted_server.chat_requests()[0].body["messages"][-1]["content"])
    assert "Invoice 4711 total 99 EUR" in sent and "[Attachment: " in sent
    assert attachment_text(str(tmp_path / "nothing.txt")) is None


async def test_the_model_reads_pdf_pages_through_read_file(
    scripted_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """Through the real runner: read_file with ``pages`` returns those pages to the model."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "report.pdf").write_bytes(make_pdf(["Intro", "Results: 42 percent", "End"]))
    config = Config.model_validate({"agents": {"defaults": {"workspace": str(workspace)}}})
    runtime = build_runtime(config, make_provider(scripted_server.url))
    scripted_server.push(
        Reply(tool_calls=[("read_file", json.dumps({"path": "report.pdf", "pages": "2"}))]),
        Reply("42 percent."),
    )
    try:
        assert (
            await runtime.agent.process_direct("results?", session_key="cli:pdf") == "42 percent."
        )
    finally:
        await runtime.stop()
    body = scripted_server.chat_requests()[1].body
    (result,) = [m["content"] for m in body["messages"] if m["role"] == "tool"]
    assert "--- Page 2 ---\nResults: 42 percent" in result and "Intro" not in result
