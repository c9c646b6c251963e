// Package corpus writes the hostile inputs of issue 41's red-team pass for the audit CLI:
// at least one case for each of causes 1–11, at the sizes the issue names, and a sample of
// the earlier passes' classes (the CLI tests hostile_test.go, artifact_hostile_test.go,
// overflow_test.go, fifo_test.go and nonregular_test.go, invoked the same way). Each case
// is a folder of files and a record of how the CLI is run on it and what a clean outcome
// is; bench/hostile/run runs them and checks each against the "done when" (exit 2
// with a clear message or the right verdict, ≤ 500 MB, ≤ 60 s, nothing lost, no raw
// escape, stderr ≤ 64 KiB, no stale lock).
//
// The corpus is deterministic: its bytes depend on this package alone (and the Go
// release's deflate), never on a clock or a random source.
package corpus

import (
	"archive/zip"
	_ "embed"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// A Case is one hostile input and what a clean outcome of it is. Paths are relative to
// the case's folder, which the runner copies afresh before each run (hard links,
// symbolic links and FIFOs kept as they are) and runs the commands in.
type Case struct {
	Name string `json:"name"`
	// Cause is the numbered cause of issue 41 the case reproduces, 0 for an earlier
	// pass's class.
	Cause int    `json:"cause"`
	What  string `json:"what"`
	// Setup are commands of the binary under test run before the case (untimed; each
	// must exit 0): shards to merge, a report to re-render.
	Setup [][]string `json:"setup,omitempty"`
	Args  []string   `json:"args"`
	// Exit are the clean exit statuses: 2 (bad input) for a refusal, the verdict's code
	// (0 PASS, 1 FAIL, 3 INCONCLUSIVE) where one is right, 130 for an interruption.
	Exit []int `json:"exit"`
	// Stderr must all appear on stderr when the exit is 2 (the file, the field); of
	// StderrAny one must; NotStderr none may.
	Stderr    []string `json:"stderr,omitempty"`
	StderrAny []string `json:"stderr_any,omitempty"`
	NotStderr []string `json:"not_stderr,omitempty"`
	// Keep are files and folders that must be byte-identical after the run (nothing
	// lost), links and all.
	Keep []string `json:"keep,omitempty"`
	// SigtermAfter, when set, is the seconds after which the runner sends SIGTERM; the
	// command must then exit within the runner's stop bound.
	SigtermAfter float64 `json:"sigterm_after,omitempty"`
}

// Options scale the corpus: Divide > 1 divides every size that costs bytes (the test
// writes the corpus at 1/1000 to check it cheaply); the full corpus has Divide 1.
type Options struct{ Divide int }

// IndexFile is the case list in the corpus's folder.
const IndexFile = "cases.json"

//go:embed testdata/torchscript.pt
var torchScript []byte // cause 9: written by testdata/make_torchscript.py

// Write writes the corpus into dir (which must not exist or be empty) and its case list
// as dir/cases.json, and returns the cases.
func Write(dir string, o Options) ([]Case, error) {
	var cases []Case
	for _, c := range build(o) {
		w := &writer{dir: filepath.Join(dir, c.Name)}
		if err := os.MkdirAll(w.dir, 0o755); err != nil {
			return nil, err
		}
		c.files(w)
		if w.err != nil {
			return nil, fmt.Errorf("case %s: %w", c.Name, w.err)
		}
		cases = append(cases, c.Case)
	}
	b, err := json.MarshalIndent(cases, "", "  ")
	if err != nil {
		return nil, err
	}
	return cases, os.WriteFile(filepath.Join(dir, IndexFile), append(b, '\n'), 0o644)
}

// Cases is the case list at the given scale, without writing a file.
func Cases(o Options) []Case {
	var cs []Case
	for _, c := range build(o) {
		cs = append(cs, c.Case)
	}
	return cs
}

// Read reads a corpus's case list.
func Read(dir string) ([]Case, error) {
	b, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if err != nil {
		return nil, err
	}
	var cs []Case
	if err := json.Unmarshal(b, &cs); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, IndexFile), err)
	}
	return cs, nil
}

// writer writes a case's files, keeping the first error.
type writer struct {
	dir string
	err error
}

func (w *writer) path(name string) string {
	p := filepath.Join(w.dir, name)
	if w.err == nil {
		w.err = os.MkdirAll(filepath.Dir(p), 0o755)
	}
	return p
}

func (w *writer) file(name string, b []byte) {
	p := w.path(name)
	if w.err == nil {
		w.err = os.WriteFile(p, b, 0o644)
	}
}

func (w *writer) text(name, s string) { w.file(name, []byte(s)) }

func (w *writer) hardlink(existing, name string) {
	p := w.path(name)
	if w.err == nil {
		w.err = os.Link(filepath.Join(w.dir, existing), p)
	}
}

func (w *writer) symlink(target, name string) {
	p := w.path(name)
	if w.err == nil {
		w.err = os.Symlink(target, p)
	}
}

func (w *writer) fifo(name string) {
	p := w.path(name)
	if w.err == nil {
		w.err = syscall.Mkfifo(p, 0o600)
	}
}

// sparse is a file of size bytes that holds no data blocks.
func (w *writer) sparse(name string, size int64) {
	p := w.path(name)
	if w.err != nil {
		return
	}
	f, err := os.Create(p)
	if err != nil {
		w.err = err
		return
	}
	w.err = f.Truncate(size)
	if err := f.Close(); w.err == nil {
		w.err = err
	}
}

type buildCase struct {
	Case
	files func(*writer)
}

const (
	claimSpec = `{"method": {"name": "d2d"}, "claim": {"epsilon": 1, "delta": 1e-6}}` + "\n"
	quiet     = "--quiet"
)

// verifyArgs is verify of the folders u and r against spec.json, into out.
func verifyArgs(extra ...string) []string {
	return append([]string{"verify", "--spec", "spec.json", "--unlearned", "u", "--retrained", "r", "--out", "out", quiet}, extra...)
}

// ptModels writes the folders u and r of eight .pt state dicts each, one float32 tensor
// "w" of n values, m0.pt … m7.pt; bad, when not nil, replaces u/m7.pt.
func ptModels(w *writer, n int, bad []byte) {
	r := &stream{s: uint64(n)}
	for _, side := range []string{"u", "r"} {
		for i := range 8 {
			b := pt(stateDict("FloatStorage", int32(n)), map[string][]byte{"0": float32s(r, n)})
			if side == "u" && i == 7 && bad != nil {
				b = bad
			}
			w.file(fmt.Sprintf("%s/m%d.pt", side, i), b)
		}
	}
	w.text("spec.json", claimSpec)
}

// npyModels writes the folder good of eight .npy models of 31 parameters (the shape of
// cmd/audit/testdata/verify's) and a folder u of the same beside bad as u/zz_bad.EXT.
func npyModels(w *writer, ext string, bad []byte) {
	r := &stream{s: 31}
	for i := range 8 {
		v := make([]float64, 31)
		for j := range v {
			v[j] = r.normal()
		}
		b := npy(31, 0, v)
		w.file(fmt.Sprintf("good/m%d.npy", i), b)
		w.file(fmt.Sprintf("u/m%d.npy", i), b)
	}
	if bad != nil {
		w.file("u/zz_bad"+ext, bad)
	}
	w.text("spec.json", claimSpec)
}

// a hostile pickle's tensor entry inside an otherwise well-formed state dict, its view
// of 10 elements past a storage of 3 (so every reader must name it in its error)
func badViewPT(name string) []byte {
	p := newPickle().orderedDict().op("(")
	p.tensor(name, "FloatStorage", "0", 3, 10, zeroOffset)
	return pt(p.op("u.").Bytes(), map[string][]byte{"0": make([]byte, 12)})
}

// an offset built by fn, in a tensor of one element of a 12-byte storage
func offsetPT(fn func(*pickle)) []byte {
	p := newPickle().orderedDict().op("(")
	p.tensor("w", "FloatStorage", "0", 3, 1, fn)
	return pt(p.op("u.").Bytes(), map[string][]byte{"0": make([]byte, 12)})
}

// nestedOffset is a storage offset that is a one-element tuple nested depth deep: one
// EMPTY_TUPLE and depth TUPLE1 opcodes.
func nestedOffset(depth int) func(*pickle) {
	return func(p *pickle) {
		p.op(")")
		p.Write([]byte(strings.Repeat("\x85", depth)))
	}
}

// padded is a .pt whose data.pkl is pkl deflated, beside an incompressible stored entry
// of a 64th of the pickle's size, so that the archive inflates about 60 to 1: under
// the 100-to-1 bound that refuses a deflate bomb unread, as the files were.
func padded(pkl []byte) []byte {
	pad := make([]byte, len(pkl)/64)
	r := &stream{s: uint64(len(pkl))}
	for i := range pad {
		pad[i] = byte(r.next())
	}
	return archive(deflated("archive/data.pkl", pkl), stored("archive/data/0", make([]byte, 12)), stored("archive/extra/pad", pad))
}

// csvRow is one CSV row of about size bytes: one-digit values ("3,": 2 bytes each, the
// density at which the rows cost 55 times their size) when short, else
// "0.123456,"-like ones (9 bytes each).
func csvRow(size int, short bool) []byte {
	var b strings.Builder
	b.Grow(size + 16)
	r := &stream{s: uint64(size)}
	for b.Len() < size {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		if short {
			b.WriteByte(byte('0' + r.next()%10))
		} else {
			fmt.Fprintf(&b, "0.%06d", r.next()%1_000_000)
		}
	}
	b.WriteByte('\n')
	return []byte(b.String())
}

// smallCSV is 50 rows of 3 columns, a sample estimate accepts.
func smallCSV() []byte {
	var b strings.Builder
	r := &stream{s: 50}
	for range 50 {
		fmt.Fprintf(&b, "%.4f,%.4f,%.4f\n", r.normal(), r.normal(), r.normal())
	}
	return []byte(b.String())
}

// demoArgs is the small demo the lock and link cases run in out (0.35 s on today's main).
var demoArgs = []string{"demo", "--trials", "8", "--variants", "strongly-convex", "--out", "out", quiet}

// build lists the cases; sizes that cost bytes are divided by o.Divide.
func build(o Options) []buildCase {
	d := max(o.Divide, 1)
	var cs []buildCase
	add := func(c Case, files func(*writer)) { cs = append(cs, buildCase{c, files}) }

	// cause 1: a storage offset that is a tuple nested 2 000 000 deep (a 2 MB .pt), and
	// 100 000 deep (the 200 KB message)
	for _, depth := range []int{2_000_000, 100_000} {
		add(Case{Name: fmt.Sprintf("c01-offset-tuple-nested-%d", depth/d), Cause: 1,
			What: fmt.Sprintf("u/m7.pt's storage offset is a one-element tuple nested %d deep", depth/d),
			Args: verifyArgs(), Exit: []int{2}, Stderr: []string{"m7.pt"}},
			func(w *writer) { ptModels(w, 31, offsetPT(nestedOffset(depth/d))) })
	}
	// cause 2: a 16 MiB pickle deflated in a .pt (}+TUPLE2 pairs), and the largest allowed
	// (64 MiB, TUPLE1 after TUPLE1) in a 1.1 MB .pt
	add(Case{Name: "c02-pickle-16MiB-dict-tuple2-deflated", Cause: 2,
		What: fmt.Sprintf("u/m7.pt holds a %d-byte pickle of } and TUPLE2 pairs, deflated (the archive inflates ~60:1)", 16<<20/d),
		Args: verifyArgs(), Exit: []int{2}, Stderr: []string{"m7.pt"}},
		func(w *writer) {
			n := 16 << 20 / d
			pkl := []byte("\x80\x02)" + strings.Repeat("}\x86", (n-4)/2) + ".")
			ptModels(w, 31, padded(pkl))
		})
	add(Case{Name: "c02-pickle-64MiB-max-tuple1-deflated", Cause: 2,
		What: fmt.Sprintf("u/m7.pt holds a %d-byte pickle (the largest allowed) of TUPLE1 opcodes, deflated", 64<<20/d),
		Args: verifyArgs(), Exit: []int{2}, Stderr: []string{"m7.pt"}},
		func(w *writer) {
			n := 64 << 20 / d
			pkl := []byte("\x80\x02)" + strings.Repeat("\x85", n-4) + ".")
			ptModels(w, 31, padded(pkl))
		})
	// cause 3: a pre-existing OUT/.audit.lock hard-linked to the user's file
	add(Case{Name: "c03-lock-hardlinked-to-user-file", Cause: 3,
		What: "out/.audit.lock is a hard link to notes.txt, a file the tool did not write",
		Args: demoArgs, Exit: []int{2}, Stderr: []string{".audit.lock"}, Keep: []string{"notes.txt"}},
		func(w *writer) {
			w.text("notes.txt", "the user's notes: not the tool's to truncate\n")
			w.hardlink("notes.txt", "out/.audit.lock")
		})
	// cause 4: one CSV row of 20 MB (10 million one-digit values: the 1.1 GB) and
	// of 63 MB (7 million 9-byte values, so that the issue's own bound for the fix, 2× the
	// values' float64 a side plus the line, stays under 500 MB with both sides read), in
	// verify and in estimate
	for _, mb := range []int{20, 63} {
		size, short := mb*1_000_000/d, mb == 20
		name := fmt.Sprintf("row%dMB.csv", mb)
		width := map[bool]string{true: "2-byte values", false: "9-byte values"}[short]
		add(Case{Name: fmt.Sprintf("c04-csv-row-%dMB-verify", mb), Cause: 4,
			What: fmt.Sprintf("%s is one row of %d bytes (%s), both sides of verify", name, size, width),
			Args: []string{"verify", "--spec", "spec.json", "--unlearned", name, "--retrained", name, "--out", "out", quiet},
			Exit: []int{2}, StderrAny: []string{name, "1 unlearned model"}},
			func(w *writer) { w.file(name, csvRow(size, short)); w.text("spec.json", claimSpec) })
		add(Case{Name: fmt.Sprintf("c04-csv-row-%dMB-estimate", mb), Cause: 4,
			What: fmt.Sprintf("%s is one row of %d bytes (%s), both samples of estimate", name, size, width),
			Args: []string{"estimate", "--a", name, "--b", name}, Exit: []int{2}, Stderr: []string{name}},
			func(w *writer) { w.file(name, csvRow(size, short)) })
	}
	// cause 5: SIGTERM to a merge reading 18 MB of shards (two parts of 150 trials of 4
	// subjects of 200 parameters: 18.96 MB on today's main)
	add(Case{Name: "c05-merge-18MB-sigterm", Cause: 5,
		What: "SIGTERM 0.5 s into merging two shards of 18 MB in all (made by the binary under test)",
		Setup: [][]string{
			{"run", "--spec", "shard.json", "--shard", "0/2", "--out", "shards", quiet},
			{"run", "--spec", "shard.json", "--shard", "1/2", "--out", "shards", quiet}},
		Args: []string{"merge", "shards", "--out", "merged", quiet}, Exit: []int{130, 0, 1, 3},
		Keep: []string{"shards"}, SigtermAfter: 0.5},
		func(w *writer) {
			w.text("shard.json", `{"schema": "unlearnaudit/spec/v1",
 "data": {"file": "data.csv", "format": "csv"},
 "method": {"name": "d2d", "variants": ["strongly-convex"], "params": {"iterations": 2}},
 "claim": {"epsilon": 1, "delta": 0.01}, "deletes": [5, 9], "trials": `+fmt.Sprint(max(8, 300/d))+`, "seed": 4}
`)
			var b strings.Builder
			r := &stream{s: 5}
			for i := range 120 {
				for range 200 {
					fmt.Fprintf(&b, "%.4f,", r.normal()+0.3*float64(i%2))
				}
				fmt.Fprintf(&b, "%d\n", i%2)
			}
			w.text("data.csv", b.String())
		})
	// cause 6: zip integrity of data entries
	add(Case{Name: "c06-pt-data0-wrong-crc", Cause: 6,
		What: "u/m7.pt's archive/data/0 is stored with a CRC-32 one bit off",
		Args: verifyArgs(), Exit: []int{2}, Stderr: []string{"m7.pt", "data/0"}},
		func(w *writer) {
			r := &stream{s: 6}
			bad := archive(stored("archive/data.pkl", stateDict("FloatStorage", 31)), wrongCRC("archive/data/0", float32s(r, 31)), version)
			ptModels(w, 31, bad)
		})
	add(Case{Name: "c06-pt-entry-inflates-50MB-declares-12", Cause: 6,
		What: fmt.Sprintf("u/m7.pt's archive/data/0 declares 12 bytes (3 float32) and inflates to %d", 50_000_000/d),
		Args: verifyArgs(), Exit: []int{2}, Stderr: []string{"m7.pt", "data/0"}},
		func(w *writer) {
			zeros := make([]byte, 50_000_000/d)
			bad := archive(stored("archive/data.pkl", stateDict("FloatStorage", 3)),
				entry{name: "archive/data/0", method: zip.Deflate, raw: deflate(zeros), crc: crc32.ChecksumIEEE(zeros[:12]), size: 12}, version)
			ptModels(w, 3, bad)
		})
	add(Case{Name: "c06-npz-wrong-crc", Cause: 6,
		What: "verify --scores: u.npz's scores.npy is stored with a CRC-32 one bit off",
		Args: []string{"verify", "--spec", "spec.json", "--scores", "--unlearned", "u.npz", "--retrained", "r.npz", "--out", "out", quiet},
		Exit: []int{2}, Stderr: []string{"u.npz"}},
		func(w *writer) {
			r := &stream{s: 66}
			scores := func() []byte {
				v := make([]float64, 8*20)
				for i := range v {
					v[i] = 1 + 0.1*r.normal()
				}
				return npy(8, 20, v)
			}
			w.file("u.npz", archive(wrongCRC("scores.npy", scores())))
			w.file("r.npz", archive(stored("scores.npy", scores())))
			w.text("spec.json", claimSpec)
		})
	// cause 7: terminal escapes echoed from input
	add(Case{Name: "c07-pickle-global-esc-osc", Cause: 7,
		What: "u/m7.pt's GLOBAL names os\\x1b[31m.\\x1b]0;owned\\x07 (a colour and an OSC title)",
		Args: verifyArgs(), Exit: []int{2}, Stderr: []string{"m7.pt"}},
		func(w *writer) {
			pkl := newPickle().global("os\x1b[31m", "\x1b]0;owned\x07system").op(")R.").Bytes()
			ptModels(w, 31, pt(pkl, nil))
		})
	add(Case{Name: "c07-tensor-name-c1-csi", Cause: 7,
		What: "u/m7.pt's tensor name holds U+009B (C1 CSI) and ESC[2J, and its view is past its storage",
		Args: verifyArgs(), Exit: []int{2}, Stderr: []string{"m7.pt"}},
		func(w *writer) { ptModels(w, 31, badViewPT("w\u009b2J\x1b[2J")) })
	add(Case{Name: "c07-csv-field-osc", Cause: 7,
		What: "esc.csv's second field is an OSC title sequence",
		Args: []string{"estimate", "--a", "esc.csv", "--b", "small.csv"}, Exit: []int{2}, Stderr: []string{"esc.csv"}},
		func(w *writer) {
			w.text("esc.csv", "1,\x1b]0;owned\x07,3\n"+string(smallCSV()))
			w.file("small.csv", smallCSV())
		})
	add(Case{Name: "c07-spec-field-esc", Cause: 7,
		What: "spec.json's unknown field is named \\u001b[31mtrails\\u0007",
		Args: []string{"run", "--spec", "spec.json", "--out", "out", quiet}, Exit: []int{2}, Stderr: []string{"spec.json"}},
		func(w *writer) {
			w.text("spec.json", `{"method": {"name": "d2d"}, "\u001b[31mtrails\u0007": 8}`+"\n")
		})
	add(Case{Name: "c07-safetensors-dtype-esc", Cause: 7,
		What: "u/zz_bad.safetensors's dtype is \\u001b]0;owned\\u0007",
		Args: []string{"verify", "--spec", "spec.json", "--unlearned", "u", "--retrained", "good", "--out", "out", quiet},
		Exit: []int{2}, Stderr: []string{"zz_bad.safetensors"}},
		func(w *writer) {
			npyModels(w, ".safetensors", safetensors(`{"w\u001b[31m":{"dtype":"\u001b]0;owned\u0007","shape":[31],"data_offsets":[0,248]}}`, make([]byte, 248)))
		})
	// cause 8: errors without a size bound
	mb8 := 8 << 20 / d
	add(Case{Name: "c08-module-name-8MB", Cause: 8,
		What: fmt.Sprintf("u/m7.pt's STACK_GLOBAL names a module of %d bytes", mb8),
		Args: verifyArgs(), Exit: []int{2}, Stderr: []string{"m7.pt"}},
		func(w *writer) {
			pkl := newPickle().str(strings.Repeat("M", mb8)).str("x").op("\x93)R.").Bytes()
			ptModels(w, 31, pt(pkl, nil))
		})
	add(Case{Name: "c08-tensor-name-8MB", Cause: 8,
		What: fmt.Sprintf("u/m7.pt's one tensor is named by %d bytes, and its view is past its storage", mb8),
		Args: verifyArgs(), Exit: []int{2}, Stderr: []string{"m7.pt"}},
		func(w *writer) { ptModels(w, 31, badViewPT(strings.Repeat("T", mb8))) })
	add(Case{Name: "c08-offset-string-8MB", Cause: 8,
		What: fmt.Sprintf("u/m7.pt's storage offset is a string of %d bytes", mb8),
		Args: verifyArgs(), Exit: []int{2}, Stderr: []string{"m7.pt"}},
		func(w *writer) { ptModels(w, 31, offsetPT(func(p *pickle) { p.str(strings.Repeat("O", mb8)) })) })
	// cause 9: a real TorchScript archive
	add(Case{Name: "c09-torchscript", Cause: 9,
		What: "u/m7.pt is torch.jit.save of a Linear(3, 2) (testdata/make_torchscript.py)",
		Args: verifyArgs(), Exit: []int{2}, Stderr: []string{"m7.pt", "TorchScript"},
		NotStderr: []string{"looks saved with torch.save(model)"}},
		func(w *writer) { ptModels(w, 31, torchScript) })
	// cause 10: OUT/trials a symbolic link to a folder outside --out
	add(Case{Name: "c10-out-trials-symlink", Cause: 10,
		What: "out/trials is a symbolic link to ../elsewhere, the user's folder",
		Args: demoArgs, Exit: []int{0, 2}, Keep: []string{"elsewhere"}},
		func(w *writer) {
			w.text("elsewhere/mine.txt", "the user's file, in the user's folder\n")
			w.symlink("../elsewhere", "out/trials")
		})
	// cause 11: a 32 MB float16 state dict
	add(Case{Name: "c11-float16-32MB", Cause: 11,
		What: fmt.Sprintf("u/w.pt and r/w.pt hold one float16 tensor of %d values (%d bytes)", 16<<20/d, 32<<20/d),
		Args: verifyArgs(), Exit: []int{0, 1, 2, 3}},
		func(w *writer) {
			n := 16 << 20 / d
			r := &stream{s: 11}
			for _, side := range []string{"u", "r"} {
				w.file(side+"/w.pt", pt(stateDict("HalfStorage", int32(n)), map[string][]byte{"0": float16s(r, n)}))
			}
			w.text("spec.json", claimSpec)
		})

	// earlier passes' classes, invoked as their CLI tests invoke them
	ahv := []string{"verify", "--spec", "spec.json", "--out", "out", "--unlearned", "u", "--retrained", "good", quiet}
	earlier := []struct {
		name string
		ext  string
		bad  func() []byte // built when the case is written
		want []string
	}{
		{"truncated-safetensors", ".safetensors", func() []byte {
			return safetensors(`{"w":{"dtype":"F64","shape":[31],"data_offsets":[0,248]}}`, make([]byte, 16))
		}, []string{"zz_bad.safetensors", "file is truncated"}},
		{"safetensors-header-2^40", ".safetensors", func() []byte { return binary.LittleEndian.AppendUint64(nil, 1<<40) }, []string{"zz_bad.safetensors", "header of 1099511627776 bytes claimed"}},
		{"overlapping-safetensors", ".safetensors", func() []byte {
			return safetensors(`{"a":{"dtype":"F64","shape":[2],"data_offsets":[0,16]},"b":{"dtype":"F64","shape":[1],"data_offsets":[8,16]}}`, make([]byte, 16))
		}, []string{"zz_bad.safetensors", "overlaps"}},
		{"npy-int64", ".npy", func() []byte {
			return npyDescr("<i8", 31, 0, func(b []byte) []byte { return append(b, make([]byte, 31*8)...) })
		}, []string{"zz_bad.npy", `unsupported dtype "<i8"`}},
		{"pt-calls-posix-system", ".pt", func() []byte { return pt([]byte("\x80\x02cposix\nsystem\nq\x00X\x02\x00\x00\x00lsq\x01\x85R."), nil) }, []string{"zz_bad.pt", "posix.system"}},
		{"pt-deflate-bomb", ".pt", func() []byte {
			return archive(deflated("archive/data.pkl", stateDict("DoubleStorage", 27_311_104/int32(d))), deflated("archive/data/0", make([]byte, 8*27_311_104/d)))
		}, []string{"zz_bad.pt", "more than 100 to 1"}},
		{"safetensors-dimension-past-2^31", ".safetensors", func() []byte {
			return safetensors(`{"w":{"dtype":"F64","shape":[3,99999999999],"data_offsets":[0,8]}}`, make([]byte, 8))
		}, []string{"zz_bad.safetensors", "more than the cap"}},
	}
	for _, e := range earlier {
		add(Case{Name: "e-" + e.name, What: "u/zz_bad" + e.ext + " among eight good .npy models (artifact_hostile_test.go, overflow_test.go)",
			Args: ahv, Exit: []int{2}, Stderr: e.want},
			func(w *writer) { npyModels(w, e.ext, e.bad()) })
	}
	add(Case{Name: "e-fifo-model", What: "u/zz_bad.npy is a FIFO (fifo_test.go)",
		Args: ahv, Exit: []int{2}, Stderr: []string{"zz_bad.npy", "not a regular file"}},
		func(w *writer) { npyModels(w, "", nil); w.fifo("u/zz_bad.npy") })
	add(Case{Name: "e-scores-nan", What: "nan.csv holds NaN (artifact_hostile_test.go)",
		Args: []string{"verify", "--spec", "spec.json", "--out", "out", "--scores", "--unlearned", "nan.csv", "--retrained", "nan.csv", quiet},
		Exit: []int{2}, Stderr: []string{"nan.csv", "NaN"}},
		func(w *writer) { w.text("nan.csv", "1,2\n3,NaN\n"); w.text("spec.json", claimSpec) })
	add(Case{Name: "e-scores-1e308-fail", What: "scores of 1e308 against scores near 1: the sides are far apart, FAIL (nonregular_test.go)",
		Args: []string{"verify", "--spec", "claim.json", "--scores", "--unlearned", "huge_u.npy", "--retrained", "ok_r.npy", "--out", "v", quiet},
		Exit: []int{1}},
		func(w *writer) {
			hu, or := make([]float64, 40*50), make([]float64, 40*50)
			for i := range hu {
				hu[i], or[i] = 1e308, 1+0.01*float64(i%17)
			}
			w.file("huge_u.npy", npy(40, 50, hu))
			w.file("ok_r.npy", npy(40, 50, or))
			w.text("claim.json", `{"method":{"name":"d2d"},"claim":{"epsilon":1,"delta":1e-5}}`)
		})
	add(Case{Name: "e-spec-unknown-field", What: "a spec's field trails (run; artifact_hostile_test.go)",
		Args: []string{"run", "--spec", "unknown.json", "--out", "out", quiet}, Exit: []int{2}, Stderr: []string{"unknown.json", "trails: unknown field"}},
		func(w *writer) { w.text("unknown.json", `{"method": {"name": "d2d"}, "trails": 8}`) })
	add(Case{Name: "e-report-in-oversized", What: fmt.Sprintf("report --in a sparse report.json of %d bytes (nonregular_test.go)", (64<<20)/d+1),
		Args: []string{"report", "--in", "big/report.json", "--format", "md"}, Exit: []int{2}, Stderr: []string{"big/report.json", "larger than"}},
		func(w *writer) { w.sparse("big/report.json", (64<<20)/int64(d)+1) })
	add(Case{Name: "e-report-out-symlink", What: "report --out a symbolic link to the user's file (nonregular_test.go)",
		Setup: [][]string{{"demo", "--trials", "8", "--variants", "strongly-convex", "--out", "d", quiet}},
		Args:  []string{"report", "--in", "d/report.json", "--format", "md", "--out", "link.md"}, Exit: []int{2},
		Stderr: []string{"link.md", "symbolic link"}, Keep: []string{"mine.md", "link.md"}},
		func(w *writer) { w.text("mine.md", "# the user's notes\n"); w.symlink("mine.md", "link.md") })
	flagCases := []struct {
		name string
		args []string
		want []string
	}{
		{"knn-negative-k", []string{"estimate", "--a", "a.csv", "--b", "a.csv", "--method", "knn", "--k", "-1"}, []string{"--k -1: want an integer in [0, 1000000]"}},
		{"trials-past-int64", []string{"demo", "--trials", "99999999999999999999", "--out", "out"}, []string{"--trials 99999999999999999999: overflows a 64-bit integer"}},
		{"demo-a-billion-trials", []string{"demo", "--out", "out", "--trials", "1000000000"}, []string{"--trials 1000000000: want an integer in [8, 1000000]"}},
		{"bounds-tiny-delta", []string{"bounds", "d2d", "--variant", "strongly-convex", "--lipschitz", "1", "--smoothness", "4", "--strong-convexity", "0.05",
			"--n", "1000", "--iterations", "5", "--epsilon", "1", "--delta", "4.9e-324"}, []string{"--delta 5e-324"}},
		// found by the range-edge sweep after the baseline: it spun forever, past SIGTERM
		{"sglu-confidence-edge", []string{"demo", "--variants", "sglu", "--trials", "8", "--quiet", "--confidence", "0.9999999999999999", "--out", "out"}, []string{"confidence"}},
	}
	for _, f := range flagCases {
		add(Case{Name: "e-" + f.name, What: "flags (hostile_test.go, overflow_test.go, redteam_low_test.go)", Args: f.args, Exit: []int{2}, Stderr: f.want},
			func(w *writer) { w.file("a.csv", smallCSV()) })
	}
	slices.SortStableFunc(cs, func(a, b buildCase) int { return strings.Compare(a.Name, b.Name) })
	return cs
}

// sortedKeys is m's keys in order (the archive's entries in a fixed order).
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
