package reference

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
)

// The text readers (CSV, scikit-learn's CSV, LIBSVM) stream: they scan their input in
// place in one fixed read buffer, parse each field to a float64 as it ends, and keep only
// the float64s, in blocks that are never regrown (chunks). A whole record was kept before
// (encoding/csv's record and a []string of its fields, then slices that doubled): one
// 20 MB row cost 1.1 GB. Now a file costs its values twice (the blocks, then the one
// contiguous copy a matrix needs) plus a constant, and a record that crosses
// Limits.MaxValues is refused at the field that crosses it.

// MaxFieldBytes is the longest field a text reader reads: a float64 written in full takes
// 24 characters, and 1 KiB leaves room for any padding a real exporter writes. A longer
// field is refused as it passes this length (its first bytes quoted), never kept whole.
// The length counts the field as the reader sees it: after the spaces CSV trims before
// a field, before the ones a number's parser trims after it.
const MaxFieldBytes = 1024

// readBufferBytes is the text readers' one buffer: the only memory a long line costs.
const readBufferBytes = 64 << 10

// A field up to MaxFieldBytes is scanned in place, so it must fit the buffer with room
// to spare (this fails to compile otherwise).
const _ = uint(readBufferBytes - 2*MaxFieldBytes)

// textReader is a buffer over r that the parsers scan in place: buf[pos:end] is read and
// not yet consumed.
type textReader struct {
	r        io.Reader
	buf      []byte
	pos, end int
	err      error // what ended reading (io.EOF at the end); the buffered bytes still count
}

func newTextReader(r io.Reader) *textReader {
	return &textReader{r: r, buf: make([]byte, readBufferBytes)}
}

// fill moves the unconsumed bytes to the front and reads more. It returns false when
// nothing more can be read (t.err says why).
func (t *textReader) fill() bool {
	if t.err != nil {
		return false
	}
	if t.pos > 0 {
		t.end = copy(t.buf, t.buf[t.pos:t.end])
		t.pos = 0
	}
	if t.end == len(t.buf) {
		return true // full: the caller consumes before it asks again
	}
	for range 100 {
		k, err := t.r.Read(t.buf[t.end:])
		t.end += k
		if err != nil {
			t.err = err
			return k > 0
		}
		if k > 0 {
			return true
		}
	}
	t.err = io.ErrNoProgress
	return false
}

// ensure buffers at least n unconsumed bytes (at most the buffer's size), or all that
// are left, and returns how many are buffered.
func (t *textReader) ensure(n int) int {
	for t.end-t.pos < min(n, len(t.buf)) && t.fill() {
	}
	return t.end - t.pos
}

// failed is the read error that stopped t, nil at a clean end.
func (t *textReader) failed() error {
	if t.err == io.EOF {
		return nil
	}
	return t.err
}

// chunks holds values appended one at a time in blocks that are never regrown or copied:
// the blocks double from 256 values up to 65 536 and stay there, so what they hold beyond
// the values is at most one block's unused part (512 KiB of float64), where a doubling
// slice held up to twice the values and copied them at each growth. flatten makes the one
// contiguous copy a matrix needs: the values twice in all.
type chunks[T any] struct {
	done [][]T
	cur  []T
	n    int
}

const (
	firstChunk = 256
	maxChunk   = 1 << 16
)

func (c *chunks[T]) add(v T) {
	if len(c.cur) == cap(c.cur) {
		c.grow()
	}
	c.cur = append(c.cur, v)
	c.n++
}

func (c *chunks[T]) grow() {
	size := firstChunk
	if cap(c.cur) > 0 {
		c.done = append(c.done, c.cur)
		size = min(2*cap(c.cur), maxChunk)
	}
	c.cur = make([]T, 0, size)
}

// appendTo appends the values to dst in order.
func (c *chunks[T]) appendTo(dst []T) []T {
	for _, b := range c.done {
		dst = append(dst, b...)
	}
	return append(dst, c.cur...)
}

// flatten returns the values in one slice of exactly their length.
func (c *chunks[T]) flatten() []T { return c.appendTo(make([]T, 0, c.n)) }

// each calls f on every block in order.
func (c *chunks[T]) each(f func([]T)) {
	for _, b := range c.done {
		f(b)
	}
	f(c.cur)
}

// cursor reads a chunks' values in order.
type cursor[T any] struct {
	c    *chunks[T]
	b, i int
}

func (k *cursor[T]) next() T {
	for {
		blk := k.c.cur
		if k.b < len(k.c.done) {
			blk = k.c.done[k.b]
		}
		if k.i < len(blk) {
			v := blk[k.i]
			k.i++
			return v
		}
		k.b, k.i = k.b+1, 0
	}
}

// fieldReader splits text into fields: CSV as encoding/csv reads it with
// TrimLeadingSpace (quoted fields, "" for a quote, \r\n read as \n, a bare quote refused),
// or, when plain, only at its separator (scikit-learn's layout, split at each comma).
type fieldReader struct {
	t     *textReader
	name  string
	comma []byte // the separator, UTF-8
	plain bool   // no quoting: a quote is text
	line  int    // the line being read, 1-based
	text  []byte // a quoted field's text, or the first bytes of a long field
}

func newFieldReader(r io.Reader, name string, comma rune, plain bool) *fieldReader {
	return &fieldReader{t: newTextReader(r), name: name, comma: utf8.AppendRune(nil, comma), plain: plain, line: 1}
}

// errInvalidDelim is encoding/csv's refusal of a separator it cannot split at.
var errInvalidDelim = errors.New("csv: invalid field or comment delimiter")

// validDelim is encoding/csv's rule for a separator.
func validDelim(r rune) bool {
	return r != 0 && r != '"' && r != '\r' && r != '\n' && utf8.ValidRune(r) && r != utf8.RuneError
}

func (f *fieldReader) quoteError(err error, line int) error {
	return &InputError{File: f.name, Line: line, Msg: err.Error()}
}

// startRecord skips empty lines ("\n", "\r\n", a last "\r") as encoding/csv does and
// reports whether a record starts here.
func (f *fieldReader) startRecord() (bool, error) {
	t := f.t
	for {
		n := t.ensure(2)
		switch {
		case n == 0:
			return false, t.failed()
		case t.buf[t.pos] == '\n':
			t.pos++
			f.line++
		case t.buf[t.pos] == '\r' && n >= 2 && t.buf[t.pos+1] == '\n':
			t.pos += 2
			f.line++
		case t.buf[t.pos] == '\r' && n == 1:
			if err := t.failed(); err != nil {
				return false, err
			}
			t.pos++
			return false, nil
		default:
			return true, nil
		}
	}
}

// isSpace is unicode.IsSpace of the rune at b[0], and its length.
func isSpace(b []byte) (bool, int) {
	if c := b[0]; c < utf8.RuneSelf {
		return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r', 1
	}
	r, size := utf8.DecodeRune(b)
	return unicode.IsSpace(r), size
}

// skipSpace consumes white space up to the end of the line (not the '\n').
func (f *fieldReader) skipSpace() {
	t := f.t
	for t.ensure(utf8.UTFMax) > 0 && t.buf[t.pos] != '\n' {
		sp, size := isSpace(t.buf[t.pos:t.end])
		if !sp {
			return
		}
		t.pos += size
	}
}

// field reads one CSV field after the spaces before it, and what ends it: last is true
// when the record ends with it. text is valid until the next call; long reports a field
// longer than MaxFieldBytes (text then holds its first bytes).
func (f *fieldReader) field() (text []byte, long, last bool, err error) {
	f.skipSpace()
	t := f.t
	if t.ensure(1) == 0 {
		return nil, false, true, t.failed()
	}
	if t.buf[t.pos] == '\n' {
		t.pos++
		f.line++
		return nil, false, true, nil
	}
	if t.buf[t.pos] == '"' && !f.plain {
		return f.quoted()
	}
	return f.unquoted()
}

// ended is a field's text once its end is found: the field itself when it is short, else
// the head keepLong kept (and long set).
func (f *fieldReader) ended(text []byte, long bool) ([]byte, bool) {
	if !long && len(text) > MaxFieldBytes {
		f.keepLong(text)
		long = true
	}
	if long {
		text = f.text
	}
	return text, long
}

// refill reads more input for a field whose end is not yet in the buffer, scanned up to
// k: a long field's bytes so far are dropped (its head kept), and k moves with the bytes
// fill moves. more is fill's answer.
func (f *fieldReader) refill(k int, long bool) (next int, isLong, more bool) {
	t := f.t
	if !long && k-t.pos > MaxFieldBytes {
		f.keepLong(t.buf[t.pos:k])
		long = true
	}
	if long {
		t.pos = k
	}
	before := t.pos
	more = t.fill()
	return k - (before - t.pos), long, more
}

// keepLong remembers the first bytes of a long field for its error message.
func (f *fieldReader) keepLong(b []byte) { f.text = append(f.text[:0], b[:min(len(b), 2*clip.Max)]...) }

// unquoted reads a field up to its separator or the end of its line, in place when it is
// short; a long one is scanned to its end without being kept.
func (f *fieldReader) unquoted() (text []byte, long, last bool, err error) {
	t := f.t
	t.ensure(MaxFieldBytes + 2*utf8.UTFMax)
	c0 := f.comma[0]
	k := t.pos
	for {
		lim := t.end
		if t.err == nil {
			lim -= len(f.comma) - 1 // a separator cut by the buffer's end is seen whole after fill
		}
		for ; k < lim; k++ {
			b := t.buf[k]
			if b != '\n' && b != c0 && (b != '"' || f.plain) {
				continue
			}
			if b == '"' {
				return nil, false, false, f.quoteError(csv.ErrBareQuote, f.line)
			}
			if b == c0 && !bytes.HasPrefix(t.buf[k:t.end], f.comma) {
				continue
			}
			text = t.buf[t.pos:k]
			if b == '\n' {
				text = bytes.TrimSuffix(text, []byte{'\r'})
				t.pos = k + 1
				f.line++
				last = true
			} else {
				t.pos = k + len(f.comma)
			}
			text, long = f.ended(text, long)
			return text, long, last, nil
		}
		var more bool
		k, long, more = f.refill(k, long)
		if !more && k >= t.end {
			if err := t.failed(); err != nil {
				return nil, false, false, err
			}
			// the end of the input ends the field (a last \r is dropped, as encoding/csv does)
			text = bytes.TrimSuffix(t.buf[t.pos:t.end], []byte{'\r'})
			t.pos = t.end
			if long {
				text = f.text
			}
			return text, long, true, nil
		}
	}
}

// quoted reads a quoted CSV field, as encoding/csv does, into f.text (up to
// MaxFieldBytes; the rest of a long one is scanned, not kept).
func (f *fieldReader) quoted() (text []byte, long, last bool, err error) {
	t := f.t
	t.pos++ // the opening quote
	f.text = f.text[:0]
	lineBytes := 1 // read on the current line: where encoding/csv places an unclosed quote
	put := func(b byte) {
		if len(f.text) < MaxFieldBytes {
			f.text = append(f.text, b)
		} else {
			long = true
		}
	}
	for {
		if t.ensure(1) == 0 {
			if err := t.failed(); err != nil {
				return nil, false, false, err
			}
			line := f.line
			if lineBytes == 0 {
				line--
			}
			return nil, false, false, f.quoteError(csv.ErrQuote, line)
		}
		switch b := t.buf[t.pos]; b {
		case '"':
			t.pos++
			n := t.ensure(max(len(f.comma), 2))
			switch {
			case n == 0:
				if err := t.failed(); err != nil {
					return nil, false, false, err
				}
				return f.text, long, true, nil
			case t.buf[t.pos] == '"':
				put('"')
				t.pos++
				lineBytes += 2
			case bytes.HasPrefix(t.buf[t.pos:t.end], f.comma):
				t.pos += len(f.comma)
				return f.text, long, false, nil
			case t.buf[t.pos] == '\n':
				t.pos++
				f.line++
				return f.text, long, true, nil
			case t.buf[t.pos] == '\r' && n >= 2 && t.buf[t.pos+1] == '\n':
				t.pos += 2
				f.line++
				return f.text, long, true, nil
			case t.buf[t.pos] == '\r' && n == 1 && t.err == io.EOF:
				t.pos++
				return f.text, long, true, nil
			default:
				return nil, false, false, f.quoteError(csv.ErrQuote, f.line)
			}
		case '\n':
			put('\n')
			t.pos++
			f.line++
			lineBytes = 0
		case '\r':
			n := t.ensure(2)
			switch {
			case n >= 2 && t.buf[t.pos+1] == '\n':
				put('\n')
				t.pos += 2
				f.line++
				lineBytes = 0
			case n == 1 && t.err == io.EOF: // dropped before the end, as encoding/csv does
				t.pos++
			default:
				put('\r')
				t.pos++
				lineBytes++
			}
		default:
			put(b)
			t.pos++
			lineBytes++
		}
	}
}

// skipLine consumes the rest of the line, its '\n' included.
func (f *fieldReader) skipLine() error {
	t := f.t
	for {
		if i := bytes.IndexByte(t.buf[t.pos:t.end], '\n'); i >= 0 {
			t.pos += i + 1
			f.line++
			return nil
		}
		t.pos = t.end
		if !t.fill() {
			return t.failed()
		}
	}
}

// longField is the refusal of a field past MaxFieldBytes, quoting its first bytes.
func longField(name string, line int, field string, head []byte) error {
	return &InputError{File: name, Line: line, Field: field,
		Msg: fmt.Sprintf("the field starting %s runs past %d bytes; a number takes a few dozen", clip.Quote(string(head[:min(len(head), clip.Max)])), MaxFieldBytes)}
}

// parseField is parseFloat of a field read in place, allocating only to describe an
// error; the field is named format with col (format alone when col < 0).
func parseField(name string, line int, format string, col int, b []byte) (float64, error) {
	if v, ok := parseNumberBytes(b); ok {
		return v, nil
	}
	return parseFloat(name, line, fieldName(format, col), string(b))
}

func fieldName(format string, col int) string {
	if col < 0 {
		return format
	}
	return fmt.Sprintf(format, col)
}

// parseNumberBytes is parseFloat's success path on bytes: the value when b is a plain,
// finite decimal (spaces around it allowed), else false. strconv reads a copy of the
// trimmed text that does not escape (on the stack when short).
func parseNumberBytes(b []byte) (float64, bool) {
	b = bytes.TrimSpace(b)
	if !plainDecimal(b) {
		return 0, false
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// token reads the next token of a LIBSVM line, as strings.Fields splits the line once a
// '#' and what follows it are cut off: up to white space, a '#' or the end of the line.
// ok is false at the end of the line (its '\n', and any comment, consumed).
func (f *fieldReader) token() (text []byte, long, ok bool, err error) {
	t := f.t
	f.skipSpace()
	if t.ensure(1) == 0 {
		return nil, false, false, t.failed()
	}
	switch t.buf[t.pos] {
	case '\n':
		t.pos++
		f.line++
		return nil, false, false, nil
	case '#':
		return nil, false, false, f.skipLine()
	}
	t.ensure(MaxFieldBytes + 2*utf8.UTFMax)
	k := t.pos
	for {
		lim := t.end
		if t.err == nil {
			lim -= utf8.UTFMax - 1 // a space cut by the buffer's end is seen whole after fill
		}
		for ; k < lim; k++ {
			if b := t.buf[k]; b < utf8.RuneSelf {
				if b != '#' && b != ' ' && b != '\t' && b != '\n' && b != '\v' && b != '\f' && b != '\r' {
					continue
				}
			} else if sp, _ := isSpace(t.buf[k:t.end]); !sp {
				continue
			}
			text, t.pos = t.buf[t.pos:k], k // the separator is read by the next call
			text, long = f.ended(text, long)
			return text, long, true, nil
		}
		var more bool
		k, long, more = f.refill(k, long)
		if !more && k >= t.end {
			if err := t.failed(); err != nil {
				return nil, false, false, err
			}
			text, t.pos = t.buf[t.pos:t.end], t.end
			if long {
				text = f.text
			}
			return text, long, true, nil
		}
	}
}
