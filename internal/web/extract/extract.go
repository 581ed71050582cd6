// Package extract is web_fetch's page extractor, run in the pigo-engines helper
// (internal/engines): readability picks a page's main content and html-to-markdown converts
// it. pigo does not link it (their package initialisation cost every pigo start ~0.6 ms); its
// client is internal/web, the protocol package extractwire.
package extract

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"runtime/debug"
	"strings"
	"time"
	"unicode/utf16"

	readability "codeberg.org/readeck/go-readability/v2"
	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"golang.org/x/net/html"

	"github.com/pigo-agent/pigo/internal/engines"
	"github.com/pigo-agent/pigo/internal/web/extractwire"
)

// MinUsefulContent is the least extracted text a page must have, in UTF-16 units (the seed's).
const MinUsefulContent = 200

// Serve is the engine's server (engines.Server): `extract URL`, the page on stdin, one
// extractwire.Answer on stdout. It bounds itself first (extractwire.CPU, extractwire.Mem) and reads at
// most extractwire.MaxPage bytes.
func Serve(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return serve(args, stdin, stdout, stderr, extractwire.CPU, extractwire.Mem)
}

// Limited is Serve with other limits (the tests' helper reaches them with small pages).
func Limited(cpu time.Duration, mem uint64) engines.Server {
	return func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
		return serve(args, stdin, stdout, stderr, cpu, mem)
	}
}

func serve(args []string, stdin io.Reader, stdout, stderr io.Writer, cpu time.Duration, mem uint64) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: "+engines.Name+" "+extractwire.Engine+" URL < page.html")
		return 64
	}
	if err := engines.SetLimits(cpu, mem); err != nil {
		fmt.Fprintln(stderr, "extract: limits:", err)
		return 1
	}
	// The collector works harder as the heap nears the limit, rather than the allocation
	// beyond it ending the helper: a heavy page still gets its answer.
	if mem > 0 {
		debug.SetMemoryLimit(int64(mem / 4 * 3))
	}
	page, err := io.ReadAll(io.LimitReader(stdin, extractwire.MaxPage+1))
	if err != nil {
		fmt.Fprintln(stderr, "extract: reading the page:", err)
		return 1
	}
	var a extractwire.Answer
	if len(page) > extractwire.MaxPage {
		a.Error = fmt.Sprintf("页面过大，上限 %d bytes", extractwire.MaxPage)
	} else if a.Title, a.Markdown, err = Markdown(string(page), args[0]); err != nil {
		a = extractwire.Answer{Error: err.Error()}
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(a); err != nil {
		fmt.Fprintln(stderr, "extract: writing the answer:", err)
		return 1
	}
	return 0
}

var reactSlot = regexp.MustCompile(`^S:\d+$`)

// Markdown is the seed's extractMarkdown: React streaming slots (<div hidden id="S:N">) are
// unhidden, readability picks the main content and it is converted to Markdown (ATX headings,
// fenced code); a page with less than 200 characters of content is an error. It returns the
// title (readability's, else the document's, else sourceURL) and the Markdown.
func Markdown(page, sourceURL string) (title, markdown string, err error) {
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		return "", "", err
	}
	docTitle := ""
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			if n.Data == "title" && docTitle == "" && n.FirstChild != nil {
				docTitle = textOf(n)
			}
			id, hidden := -1, -1
			for i, a := range n.Attr {
				switch a.Key {
				case "id":
					id = i
				case "hidden":
					hidden = i
				}
			}
			if hidden >= 0 && id >= 0 && reactSlot.MatchString(n.Attr[id].Val) {
				n.Attr = append(n.Attr[:hidden], n.Attr[hidden+1:]...)
			}
		}
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			walk(ch)
		}
	}
	walk(doc)
	bodyText := ""
	if b := findBody(doc); b != nil {
		bodyText = textOf(b)
	}
	pageURL, _ := url.Parse(sourceURL)
	var content string
	if art, err := readability.FromDocument(doc, pageURL); err == nil && art.Node != nil {
		var sb strings.Builder
		if art.RenderHTML(&sb) == nil {
			content = sb.String()
		}
		title = art.Title()
	}
	if title == "" {
		title = extractwire.Trim(docTitle)
	}
	if title == "" {
		title = sourceURL
	}
	body := content
	if body == "" {
		body = bodyText
	}
	if len(utf16.Encode([]rune(extractwire.Trim(body)))) < MinUsefulContent {
		return "", "", errors.New("页面没有可提取的正文内容")
	}
	md, err := htmltomarkdown.ConvertString(body)
	if err != nil {
		return "", "", err
	}
	return title, extractwire.Trim(md), nil
}

func findBody(n *html.Node) *html.Node {
	if n.Type == html.ElementNode && n.Data == "body" {
		return n
	}
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		if b := findBody(ch); b != nil {
			return b
		}
	}
	return nil
}

// textOf is the DOM's textContent.
func textOf(n *html.Node) string {
	var sb strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			sb.WriteString(n.Data)
		}
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			walk(ch)
		}
	}
	walk(n)
	return sb.String()
}
