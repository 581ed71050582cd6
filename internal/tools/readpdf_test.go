package tools

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image/png"
	"os/exec"
	"strings"
	"testing"
)

// testPDF writes a PDF of n pages by hand, page i showing the text "Page i" (a valid xref
// table, one Helvetica font): a real file for poppler, made without a PDF library.
func testPDF(n int) string {
	var objs []string
	kids := make([]string, n)
	for i := range n {
		kids[i] = fmt.Sprintf("%d 0 R", 3+2*i)
	}
	objs = append(objs, "<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n))
	for i := range n {
		s := fmt.Sprintf("BT /F1 24 Tf 20 40 Td (Page %d) Tj ET", i+1)
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents %d 0 R /Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >>", 4+2*i),
			fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(s), s))
	}
	var b strings.Builder
	b.WriteString("%PDF-1.4\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	x := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, x)
	return b.String()
}

func needPoppler(t *testing.T) {
	t.Helper()
	for _, n := range []string{"pdfinfo", "pdftotext", "pdftoppm"} {
		if _, err := exec.LookPath(n); err != nil {
			t.Skipf("%s not on PATH (install poppler-utils; .ci/run does)", n)
		}
	}
}

// TestClaudeReadPDFPages: Read renders a PDF's pages as the seed says (pages "N" or "N-M"):
// the header names the range, then per page its text and a PNG of the page.
func TestClaudeReadPDFPages(t *testing.T) {
	needPoppler(t)
	e := newFileEnv(t, "claude-code")
	p := e.write("doc.pdf", testPDF(3))
	r := e.call("Read", map[string]any{"file_path": p, "pages": "2-3"})
	if r.IsError {
		t.Fatalf("error %q", r.Text())
	}
	if len(r.Content) != 5 || r.Content[0].Text != "Read PDF file [pages 2-3 of 3]" ||
		r.Content[1].Text != "Page 2:\nPage 2" || r.Content[3].Text != "Page 3:\nPage 3" {
		t.Fatalf("content %+v", r.Content)
	}
	for _, c := range []int{2, 4} {
		img := r.Content[c]
		raw, err := base64.StdEncoding.DecodeString(img.Data)
		if img.Type != "image" || img.MimeType != "image/png" || err != nil {
			t.Fatalf("page image %d: %s %s %v", c, img.Type, img.MimeType, err)
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(raw))
		// 200×100 points at 100 dpi.
		if err != nil || cfg.Width != 278 || cfg.Height != 139 {
			t.Errorf("page image %d: %+v %v", c, cfg, err)
		}
	}
	// A small PDF is read whole without pages; one page alone; the end of a range past the
	// last page is cut to it.
	r = e.call("Read", map[string]any{"file_path": p})
	if r.IsError || len(r.Content) != 7 || r.Content[0].Text != "Read PDF file [pages 1-3 of 3]" {
		t.Errorf("whole: %q %d", r.Text(), len(r.Content))
	}
	r = e.call("Read", map[string]any{"file_path": p, "pages": "1"})
	if r.IsError || len(r.Content) != 3 || r.Content[1].Text != "Page 1:\nPage 1" {
		t.Errorf("one page: %q", r.Text())
	}
	r = e.call("Read", map[string]any{"file_path": p, "pages": "3-9"})
	if r.IsError || r.Content[0].Text != "Read PDF file [pages 3-3 of 3]" {
		t.Errorf("clamped: %q", r.Text())
	}
	// The read is recorded (not text-editable): Write refuses it as a binary file.
	e.fail("Write", map[string]any{"file_path": p, "content": "x"}, "Cannot edit or overwrite a binary file with a text tool: "+p)

	e.fail("Read", map[string]any{"file_path": p, "pages": "0"}, `Invalid pages parameter "0": give one page ("3") or a range ("1-5"), pages counted from 1.`)
	e.fail("Read", map[string]any{"file_path": p, "pages": "3-2"}, `Invalid pages parameter "3-2": give one page ("3") or a range ("1-5"), pages counted from 1.`)
	e.fail("Read", map[string]any{"file_path": p, "pages": "x"}, `Invalid pages parameter "x": give one page ("3") or a range ("1-5"), pages counted from 1.`)
	e.fail("Read", map[string]any{"file_path": p, "pages": "1-21"}, `The pages range "1-21" covers 21 pages; at most 20 pages are read per request. Read the PDF in smaller ranges.`)
	e.fail("Read", map[string]any{"file_path": p, "pages": "4"}, p+` has 3 page(s); the pages range "4" starts after the last page.`)
	big := e.write("big.pdf", testPDF(11))
	e.fail("Read", map[string]any{"file_path": big}, big+` has 11 pages, too many to read at once. Give the pages parameter (e.g. "1-5"), at most 20 pages per request.`)
	r = e.call("Read", map[string]any{"file_path": big, "pages": "10-11"})
	if r.IsError || r.Content[0].Text != "Read PDF file [pages 10-11 of 11]" || r.Content[1].Text != "Page 10:\nPage 10" {
		t.Errorf("pages of a big PDF: %q", r.Text())
	}
	bad := e.write("bad.pdf", "%PDF-1.4 not really")
	if r := e.call("Read", map[string]any{"file_path": bad}); !r.IsError || !strings.HasPrefix(r.Text(), "Cannot read PDF "+bad+": ") {
		t.Errorf("broken PDF: %q", r.Text())
	}
	e.fail("Read", map[string]any{"file_path": e.write("a.txt", "a\n"), "pages": "1"}, "The pages parameter applies to PDF files only; use offset and limit for other files.")
}

// TestClaudeReadPDFWithoutPoppler: without poppler's programs, Read names the one missing and
// the package that has it.
func TestClaudeReadPDFWithoutPoppler(t *testing.T) {
	e := newFileEnv(t, "claude-code")
	p := e.write("doc.pdf", testPDF(1))
	t.Setenv("PATH", t.TempDir())
	e.fail("Read", map[string]any{"file_path": p}, "Reading a PDF needs pdfinfo, pdftotext and pdftoppm from poppler (the Debian/Ubuntu package poppler-utils, Homebrew's poppler), and pdfinfo is not on PATH.")
}
