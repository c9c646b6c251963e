package reports

import (
	"strings"
	"unicode"
)

// Every string a report holds may come from its input — a file name, a data description,
// a report.json someone else wrote for `audit report` — so the Markdown rendering never
// writes one raw: it goes through text (running text, list items, headings), cell (a
// table cell) or code (a code span). Each makes the string one inline run of literal
// text: no heading, list, quote, table cell, link, emphasis or HTML can start inside it.

// markdownPunct are the ASCII characters that can start or delimit Markdown inline
// syntax (escapes, code, emphasis, links, strikethrough, tables, headings): each is
// written backslash-escaped, which CommonMark reads as the literal character.
const markdownPunct = "\\`*_[]#~|!"

// flat turns every run of line breaks, tabs and other white space or control characters
// into one space and trims the ends: a string cannot end the line it was put on (and so
// start a block of its own), nor indent it into a code block.
func flat(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// text escapes s for running Markdown text that may open a line (a paragraph, a list
// item, a quote): inline, and with what would start a block there (a list marker "-",
// "+" or "1.", a setext "=") escaped too.
func text(s string) string { return escape(s, true) }

// cell escapes s for a table cell or for text in the middle of a line: inline, with "|"
// escaped, which cannot end the cell.
func cell(s string) string { return escape(s, false) }

// escape writes s on one line with every Markdown delimiter backslash-escaped and <, >
// and & as HTML entities, so that no renderer sees a tag, an autolink or an entity of
// the input's; lineStart also escapes what opens a block at the start of a line.
func escape(s string, lineStart bool) string {
	s = flat(s)
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	for i, r := range s {
		switch {
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '&':
			b.WriteString("&amp;")
		case r < 128 && strings.ContainsRune(markdownPunct, r),
			lineStart && i == 0 && strings.ContainsRune("-+=", r),
			lineStart && (r == '.' || r == ')') && isDigits(s[:i]): // "1." or "1)" opening a line is an ordered list
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// code writes s as a code span: on one line, fenced by one backtick more than the
// longest run inside it, padded with a space where it begins or ends with a backtick
// (CommonMark strips one space from each side). For a table cell, pass through
// codeCell instead: a table splits its row on "|" before it reads code spans.
func code(s string) string {
	s = flat(s)
	run, longest := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	if s == "" {
		return "` `"
	}
	fence := strings.Repeat("`", longest+1)
	if s[0] == '`' || s[len(s)-1] == '`' {
		s = " " + s + " "
	}
	return fence + s + fence
}

// codeCell is code for a table cell: its pipes escaped, which GitHub-flavoured tables
// read as a literal "|" even inside a code span.
func codeCell(s string) string { return strings.ReplaceAll(code(s), "|", `\|`) }
