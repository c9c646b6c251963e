package reference

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/testenv"
)

// genReader produces head, then n items (item(dst, i) appends each), then tail, as it is
// read: a file of tens of megabytes that the test never holds, made without allocating
// (what it allocates would count against the reader measured).
type genReader struct {
	head, tail string
	item       func(dst []byte, i int) []byte
	n, i       int
	pending    []byte
	scratch    []byte
	read       int64 // bytes handed out
}

func (g *genReader) Read(p []byte) (int, error) {
	k := 0
	for k < len(p) {
		if len(g.pending) == 0 {
			switch {
			case g.head != "":
				g.scratch = append(g.scratch[:0], g.head...)
				g.pending, g.head = g.scratch, ""
			case g.i < g.n:
				g.scratch = g.item(g.scratch[:0], g.i)
				g.pending = g.scratch
				g.i++
			case g.tail != "":
				g.scratch = append(g.scratch[:0], g.tail...)
				g.pending, g.tail = g.scratch, ""
			default:
				g.read += int64(k)
				if k == 0 {
					return 0, io.EOF
				}
				return k, nil
			}
		}
		c := copy(p[k:], g.pending)
		g.pending = g.pending[c:]
		k += c
	}
	g.read += int64(k)
	return k, nil
}

// streamOverhead is what a text reader may allocate beyond twice what it keeps: its
// 64 KiB read buffer, a field's 1 KiB, and the unused part of the last block of each
// of its (at most four) stores, 512 KiB each at most.
const streamOverhead = 2 << 20

// A text reader's memory is twice the values it keeps (8 bytes a float64; 12 for a
// LIBSVM entry, its index and value) plus streamOverhead, and the dataset's own per-row
// index (its IDs and ID map, measured here by building it from ready slices), whatever
// the length of a line: one 8 MB row of 2²¹ values, 200 000 rows of ten, and a row four
// times past the cap (Limits.MaxValues), refused where it crosses the cap (and, for LIBSVM, where its
// index does) at a cost bounded by the cap, not the row. The readers before streaming
// (encoding/csv's whole record, a []string, doubling slices) cost 55 bytes a byte of a
// long row: 440 MB for the 8 MB row.
func TestTextReadersMemoryFollowsValuesKept(t *testing.T) {
	const (
		wide = 1 << 21 // values in the one long row
		rows = 200_000 // rows of the many-rows file
		cols = 10
	)
	text := func(s string) func([]byte, int) []byte {
		return func(dst []byte, _ int) []byte { return append(dst, s...) }
	}
	half := text("0.5,")
	entry := func(dst []byte, i int) []byte {
		return append(strconv.AppendInt(append(dst, ' '), int64(i+1), 10), ":0.5"...)
	}
	row := text(strings.Repeat("0.5,", cols-1) + "1\n")
	svmRow := text("1 1:0.5 2:0.5 3:0.5 4:0.5 5:0.5 6:0.5 7:0.5 8:0.5 9:0.5\n")
	type reader struct {
		name  string
		parse func(io.Reader, Limits) error
		// the bytes kept for a file of r rows of c values (c−1 features and a label)
		kept func(r, c int) int
		// the files: one long row, many rows, a row past the cap (of capValues values)
		long, many, past func(capValues int) *genReader
		pastLine         int // the line of that row
		pastRead         int // the most of it read before it is refused (0: all, to count its fields)

	}
	dense := func(r, c int) int { return 8 * r * c }
	dataset := func(r, c int) uint64 { // the dataset's own allocations beyond its values
		xs, ys := make([]float64, r*(c-1)), make([]float64, r)
		return testenv.Allocated(func() { denseDataset(xs, ys, c-1) })
	}
	readers := []reader{
		{"ParseCSV", func(r io.Reader, lim Limits) error {
			_, err := ParseCSV(r, "f.csv", CSVOptions{LabelColumn: -1, Limits: lim})
			return err
		}, dense,
			func(int) *genReader { return &genReader{item: half, n: wide - 1, tail: "1\n"} },
			func(int) *genReader { return &genReader{item: row, n: rows} },
			func(c int) *genReader { return &genReader{item: half, n: 4 * c, tail: "1\n"} }, 1, 4},
		{"ParseMatrixCSV", func(r io.Reader, lim Limits) error { _, err := ParseMatrixCSV(r, "m.csv", lim); return err }, dense,
			func(int) *genReader { return &genReader{item: half, n: wide - 1, tail: "1\n"} },
			func(int) *genReader { return &genReader{item: row, n: rows} },
			func(c int) *genReader { return &genReader{item: half, n: 4 * c, tail: "1\n"} }, 1, 4},
		{"ParseSklearnCSV", func(r io.Reader, lim Limits) error { _, err := ParseSklearnCSV(r, "s.csv", lim); return err }, dense,
			func(int) *genReader {
				return &genReader{head: fmt.Sprintf("1,%d,a,b\n", wide-1), item: half, n: wide - 1, tail: "1\n"}
			},
			func(int) *genReader {
				return &genReader{head: fmt.Sprintf("%d,%d\n", rows, cols-1), item: row, n: rows}
			},
			// the header allows the cap; the row holds four times as many fields
			func(c int) *genReader {
				return &genReader{head: fmt.Sprintf("1,%d\n", c), item: half, n: 4 * c, tail: "1\n"}
			}, 2, 0},
		{"ParseLIBSVM", func(r io.Reader, lim Limits) error {
			_, err := ParseLIBSVM(r, "h", LIBSVMOptions{Limits: lim})
			return err
		},
			func(r, c int) int { return 12*r*(c-1) + 16*r }, // entries, and a label and row end a row
			func(int) *genReader { return &genReader{head: "1", item: entry, n: wide - 1, tail: "\n"} },
			func(int) *genReader { return &genReader{item: svmRow, n: rows} },
			func(c int) *genReader { return &genReader{head: "1", item: entry, n: 4 * c, tail: "\n"} }, 1, 11},
	}
	for _, rd := range readers {
		t.Run(rd.name, func(t *testing.T) {
			for _, c := range []struct {
				name string
				gen  *genReader
				r, c int
			}{{"one long row", rd.long(0), 1, wide}, {"many rows", rd.many(0), rows, cols}} {
				var err error
				got := testenv.Allocated(func() { err = rd.parse(c.gen, Limits{}) })
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				limit := uint64(2*rd.kept(c.r, c.c)+streamOverhead) + dataset(c.r, c.c)
				t.Logf("%s: %d bytes read, %d allocated (bound %d)", c.name, c.gen.read, got, limit)
				if got > limit {
					t.Errorf("%s: %d bytes of text (%d values) allocated %d bytes; want at most 2 × %d kept + %d + the dataset's index = %d",
						c.name, c.gen.read, c.r*c.c, got, rd.kept(c.r, c.c), streamOverhead, limit)
				}
			}
			const capValues = 1 << 18
			gen := rd.past(capValues)
			var err error
			got := testenv.Allocated(func() { err = rd.parse(gen, Limits{MaxValues: capValues}) })
			var le *LimitError
			var ie *InputError
			if !errors.As(err, &ie) || ie.Line != rd.pastLine || !(errors.As(err, &le) || strings.Contains(err.Error(), "cap of") || strings.Contains(err.Error(), "fields, want")) {
				t.Fatalf("a row of %d values under a cap of %d: %.200v; want it refused at line %d", 4*capValues, capValues, err, rd.pastLine)
			}
			limit := uint64(2*rd.kept(1, capValues+2) + streamOverhead)
			t.Logf("past the cap: %.120v; %d bytes read, %d allocated (bound %d)", err, gen.read, got, limit)
			// refused where it crosses the cap: what was read is the values up to it (pastRead
			// bytes each at most) and what the read buffer holds beyond
			if most := int64(rd.pastRead*(capValues+2) + readBufferBytes); rd.pastRead > 0 && gen.read > most {
				t.Errorf("%d bytes of the row read before it was refused; want at most %d", gen.read, most)
			}
			if got > limit {
				t.Errorf("refusing a row of %d values under a cap of %d allocated %d bytes; want at most %d", 4*capValues, capValues, got, limit)
			}
		})
	}
}

// BenchmarkParseCSV reads a 4 MB matrix (100 000 rows of five values as an exporter
// writes them) with the streaming reader and with the encoding/csv reader it replaced,
// in MB/s of text.
func BenchmarkParseCSV(b *testing.B) {
	var text strings.Builder
	for i := range 100_000 {
		fmt.Fprintf(&text, "%.6f,%.6f,%d,%g,%.3e\n", float64(i)/7, -float64(i)/3, i%10, float64(i)*0.25, float64(i)*1e-3)
	}
	in := text.String()
	for _, c := range []struct {
		name  string
		parse func(io.Reader, string) error
	}{
		{"streaming", func(r io.Reader, n string) error { _, err := ParseMatrixCSV(r, n, Limits{}); return err }},
		{"encoding-csv", func(r io.Reader, n string) error { _, err := legacyParseMatrixCSV(r, n); return err }},
		{"streaming-dataset", func(r io.Reader, n string) error { _, err := ParseCSV(r, n, CSVOptions{LabelColumn: 2}); return err }},
		{"encoding-csv-dataset", func(r io.Reader, n string) error {
			_, err := legacyParseCSV(r, n, CSVOptions{LabelColumn: 2})
			return err
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				if err := c.parse(strings.NewReader(in), "bench.csv"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A field past MaxFieldBytes (here 8 MB of digits in the second line's second column) is
// refused naming the file, the line and the column, at the cost of the read buffer, not
// of the field: the readers before streaming kept it whole (and read it as a number that
// overflows float64).
func TestLongFieldIsRefusedNotKept(t *testing.T) {
	const digits = 8 << 20
	one := func(dst []byte, _ int) []byte { return append(dst, "1111111111111111"...) }
	for _, c := range []struct {
		name, want string
		parse      func(io.Reader) error
		gen        *genReader
	}{
		{"ParseCSV", "f.csv:2: column 2: ", func(r io.Reader) error { _, err := ParseCSV(r, "f.csv", CSVOptions{}); return err },
			&genReader{head: "1,2,3\n4,", item: one, n: digits / 16, tail: ",6\n"}},
		{"ParseCSV quoted", "f.csv:2: column 2: ", func(r io.Reader) error { _, err := ParseCSV(r, "f.csv", CSVOptions{}); return err },
			&genReader{head: "1,2,3\n4,\"", item: one, n: digits / 16, tail: "\",6\n"}},
		{"ParseMatrixCSV", "m.csv:2: column 2: ", func(r io.Reader) error { _, err := ParseMatrixCSV(r, "m.csv", Limits{}); return err },
			&genReader{head: "1,2,3\n4,", item: one, n: digits / 16, tail: ",6\n"}},
		{"ParseSklearnCSV", "s.csv:3: column 2: ", func(r io.Reader) error { _, err := ParseSklearnCSV(r, "s.csv", Limits{}); return err },
			&genReader{head: "2,2\n1,2,0\n4,", item: one, n: digits / 16, tail: ",1\n"}},
		{"ParseLIBSVM", "h:2: the entry after index 1: ", func(r io.Reader) error { _, err := ParseLIBSVM(r, "h", LIBSVMOptions{}); return err },
			&genReader{head: "1 1:2\n1 1:3 2:", item: one, n: digits / 16, tail: " 3:1\n"}},
	} {
		var err error
		got := testenv.Allocated(func() { err = c.parse(c.gen) })
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || !strings.Contains(err.Error(), fmt.Sprintf("runs past %d bytes", MaxFieldBytes)) {
			t.Errorf("%s: %.200v; want %q… runs past %d bytes", c.name, err, c.want, MaxFieldBytes)
		}
		if got > streamOverhead {
			t.Errorf("%s: refusing an %d-byte field allocated %d bytes; want at most %d", c.name, digits, got, streamOverhead)
		}
	}
}
