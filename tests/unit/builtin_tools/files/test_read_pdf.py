"""Read on PDFs: the text of each page through pypdf, `pages` ranges, and the limits that keep it small."""

from __future__ import annotations

from pathlib import Path

from dispatch_harness import file_harness

from jupyter_agent.builtin_tools.files import ReadTool


def make_pdf(texts: list[str]) -> bytes:
    """A valid PDF with one line of Helvetica text per page, xref offsets computed (no PDF writer needed)."""
    count = len(texts)
    page_ids = [3 + 2 * i for i in range(count)]
    font_id = 3 + 2 * count
    objects: dict[int, bytes] = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids ["
        + b" ".join(b"%d 0 R" % p for p in page_ids)
        + b"] /Count %d >>" % count,
        font_id: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    }
    for page_id, text in zip(page_ids, texts, strict=True):
        stream = b"BT /F1 12 Tf 72 720 Td (" + text.encode("latin-1") + b") Tj ET"
        objects[page_id] = (
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
            b"/Resources << /Font << /F1 %d 0 R >> >> >>" % (page_id + 1, font_id)
        )
        objects[page_id + 1] = b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream"
    out = bytearray(b"%PDF-1.4\n")
    offsets: dict[int, int] = {}
    for number in sorted(objects):
        offsets[number] = len(out)
        out += b"%d 0 obj\n" % number + objects[number] + b"\nendobj\n"
    xref = len(out)
    size = max(objects) + 1
    out += b"xref\n0 %d\n0000000000 65535 f \n" % size
    out += b"".join(b"%010d 00000 n \n" % offsets[n] for n in range(1, size))
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (size, xref)
    return bytes(out)


def test_a_short_pdf_is_read_whole_page_by_page(tmp_path: Path) -> None:
    (tmp_path / "report.pdf").write_bytes(make_pdf(["March revenue 12000", "April revenue 9000"]))
    result = file_harness(tmp_path).ok("Read", file_path="report.pdf")
    assert result.content == (
        "--- Page 1 of 2 ---\nMarch revenue 12000\n\n--- Page 2 of 2 ---\nApril revenue 9000"
    )
    assert result.summary == "Read report.pdf (PDF, pages 1–2 of 2)"


def test_pages_picks_ranges_and_says_how_to_read_on(tmp_path: Path) -> None:
    (tmp_path / "long.pdf").write_bytes(make_pdf([f"text of page {n}" for n in range(1, 31)]))
    harness = file_harness(tmp_path)
    result = harness.ok("Read", file_path="long.pdf", pages="2-3")
    assert result.content == (
        "--- Page 2 of 30 ---\ntext of page 2\n\n--- Page 3 of 30 ---\ntext of page 3\n\n"
        '[Showing pages 2–3 of 30. Pass pages to read others, e.g. pages="4-8".]'
    )
    picked = harness.ok("Read", file_path="long.pdf", pages="5, 9-10")
    assert [line for line in picked.content.splitlines() if line.startswith("---")] == [
        "--- Page 5 of 30 ---",
        "--- Page 9 of 30 ---",
        "--- Page 10 of 30 ---",
    ]


def test_a_long_pdf_needs_pages_and_each_read_is_capped(tmp_path: Path) -> None:
    (tmp_path / "long.pdf").write_bytes(make_pdf([f"p{n}" for n in range(1, 31)]))
    harness = file_harness(tmp_path)
    whole = harness.call("Read", file_path="long.pdf")
    assert whole.error_code == "INVALID_ARGS"
    assert whole.content == (
        "INVALID_ARGS: 'long.pdf' has 30 pages; pass pages to read part of it (e.g. pages=\"1-5\"), "
        "at most 20 pages per call"
    )
    assert "read at most 20 per call" in harness.call("Read", file_path="long.pdf", pages="1-25").content
    assert "the PDF has 30 page(s)" in harness.call("Read", file_path="long.pdf", pages="31").content
    assert "not a page range" in harness.call("Read", file_path="long.pdf", pages="first").content


def test_pages_on_a_text_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello\n")
    result = file_harness(tmp_path).call("Read", file_path="notes.txt", pages="1")
    assert result.error_code == "INVALID_ARGS" and "pages only applies to PDF files" in result.content


def test_a_broken_pdf_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4\nthis is not really a pdf")
    result = file_harness(tmp_path).call("Read", file_path="broken.pdf")
    assert result.error_code == "BINARY_FILE"
    assert result.content.startswith("BINARY_FILE: 'broken.pdf' could not be read as a PDF")


def test_the_pages_field_the_model_sees_is_pinned() -> None:
    schema = ReadTool().to_param()["input_schema"]
    assert schema["properties"]["pages"] == {
        "anyOf": [{"type": "string"}, {"type": "null"}],
        "default": None,
        "description": 'For PDFs only: the pages to read, e.g. "3", "1-5" or "2,4-6" (at most 20 per call).',
    }
    assert "PDFs come back as text, page by page" in ReadTool().to_param()["description"]
