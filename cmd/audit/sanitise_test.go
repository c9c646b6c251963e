package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/unlearnaudit/unlearnaudit/audit/trials"

	"github.com/unlearnaudit/unlearnaudit/reports"
)

// hostileName is what a hostile file names things with (issue 41, items 7 and 8): a CSI
// colour, an OSC title sequence ended by BEL, a C1 CSI and a bidi override, then 8 MB.
var hostileName = "\x1b[31m\x1b]0;t\x07\u009b\u202e" + strings.Repeat("A", 8<<20)

// terminalHazard is the first thing in s a terminal would act on, or "": a C0 control
// but newline and tab, DEL, a C1 control (as a rune or as a lone byte), a bidi control.
func terminalHazard(s string) string {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1 && s[i] >= 0x80 && s[i] <= 0x9f:
			return fmt.Sprintf("byte %#x at %d", s[i], i)
		case r < 0x20 && r != '\n' && r != '\t', r == 0x7f, r >= 0x80 && r <= 0x9f,
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
			return fmt.Sprintf("%U at %d", r, i)
		}
		i += n
	}
	return ""
}

// sourceBound is how long a reader's own message may be when it clips what it quotes
// (clip.Bound, 674 bytes, per value; a path or two of the test's temporary folder): a
// message this long came from a reader that clips, and main's cap is not what kept it short.
const sourceBound = 8 << 10

// Every reader the CLI has, given a file (or a flag, or a variable) whose echoed name holds
// hostileName, exits 2 and prints at most 64 KiB with no raw escape (the issue's "no raw
// escape, stderr ≤ 64 KiB"). Before the sanitiser the messages were 8.4 MB long and held
// the escapes raw. The readers clip at the source (the message before main's last line of
// defence is at most sourceBound and escaped), but for the .pt reader, whose own fixes land
// elsewhere: errorText alone bounds it here.
func TestEveryReaderSanitisesWhatItEchoes(t *testing.T) {
	dir := t.TempDir()
	P := hostileName
	Pjson, _ := json.Marshal(P) // the name as a JSON string: escapes written \u001b
	// P cut to n bytes, for a reader whose cap on a whole file or header comes first
	Pn := func(n int) string { return P[:n] }
	Pjsonn := func(n int) string { b, _ := json.Marshal(Pn(n)); return string(b) }
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o600); err != nil { // 0600: as a key file must be
			t.Fatal(err)
		}
		return p
	}
	npy := func(descr string) []byte { // a version 2.0 header: 4-byte length
		h := "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (31,), }\n"
		b := binary.LittleEndian.AppendUint32([]byte("\x93NUMPY\x02\x00"), uint32(len(h)))
		return append(append(b, h...), make([]byte, 31*8)...)
	}
	safetensors := func(header string) []byte {
		b := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
		return append(append(b, header...), make([]byte, 16)...)
	}
	zipOf := func(name string, data []byte) []byte {
		var b bytes.Buffer
		zw := zip.NewWriter(&b)
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store}) // stored: no bomb
		w.Write(data)
		zw.Close()
		return b.Bytes()
	}
	good := filepath.Join("testdata", "verify", "retrained")
	// a model folder of one bad file among good models
	models := func(name string, bad []byte) string {
		d := filepath.Join(dir, name+".d")
		os.MkdirAll(d, 0o755)
		entries, _ := os.ReadDir(good)
		for _, e := range entries[:8] {
			b, _ := os.ReadFile(filepath.Join(good, e.Name()))
			os.WriteFile(filepath.Join(d, e.Name()), b, 0o644)
		}
		os.WriteFile(filepath.Join(d, "zz_bad"+filepath.Ext(name)), bad, 0o644)
		return d
	}
	spec := write("spec.json", []byte(`{"method": {"name": "d2d"}, "claim": {"epsilon": 1, "delta": 1e-6}}`))
	verify := func(unlearned string, extra ...string) []string {
		return append([]string{"verify", "--spec", spec, "--out", "{out}", "--unlearned", unlearned, "--retrained", good}, extra...)
	}
	pickle := "\x80\x02c" + Pn(200) + "\nsystem\nq\x00X\x02\x00\x00\x00lsq\x01\x85R."
	ptKey := "\x80\x02ccollections\nOrderedDict\n)R(X" + string(binary.LittleEndian.AppendUint32(nil, uint32(len(P)))) + P + "K\x01u."
	reportJSON := func(field string) string {
		return write("report-"+field+".json", []byte(`{"schema": "`+reports.Schema+`", "`+field+`": `+string(Pjson)+`}`))
	}
	cases := []struct {
		name     string
		args     []string
		atSource bool              // the reader's own message is clipped and escaped
		env      map[string]string // the shard variables the CLI sees
	}{
		{"csv cell", []string{"demo", "--out", "{out}", "--data", write("cell.csv", []byte("1,2,1\n"+P+",2,1\n")), "--format", "csv"}, true, nil},
		{"sklearn-csv header", []string{"demo", "--out", "{out}", "--data", write("sk.csv", []byte(P+",2\n")), "--format", "sklearn-csv"}, true, nil},
		{"libsvm token", []string{"demo", "--out", "{out}", "--data", write("d.svm", []byte("+1 "+P+"\n")), "--format", "libsvm"}, true, nil},
		{"npy dtype", verify(models("dtype.npy", npy(Pn(60000)))), true, nil}, // the header's cap: 64 KiB
		{"npz entry's dtype", verify(models("dtype.npz", zipOf("w.npy", npy(Pn(60000))))), true, nil},
		{"npz entry's name", verify(models("name.npz", zipOf(P[:60000]+".npy", npy("<i8")))), true, nil},
		{"safetensors tensor name", verify(models("name.safetensors", safetensors(`{`+string(Pjson)+`:{"dtype":"F64","shape":[31],"data_offsets":[0,248]}}`))), true, nil},
		{"safetensors dtype", verify(models("dtype.safetensors", safetensors(`{"w":{"dtype":`+string(Pjson)+`,"shape":[2],"data_offsets":[0,16]}}`))), true, nil},
		{"pt GLOBAL module", verify(models("global.pt", ptArchive(map[string][]byte{"data.pkl": []byte(pickle)}, zip.Store))), false, nil}, // GLOBAL's cap: 256 bytes
		{"pt state dict key", verify(models("key.pt", ptArchive(map[string][]byte{"data.pkl": []byte(ptKey)}, zip.Store))), false, nil},
		{"spec unknown field", []string{"run", "--out", "{out}", "--spec", write("unknown.json", []byte(`{"method": {"name": "d2d"}, `+Pjsonn(1000000)+`: 1}`))}, true, nil},
		{"spec method name", []string{"run", "--out", "{out}", "--spec", write("method.json", []byte(`{"method": {"name": `+Pjsonn(1000000)+`}}`))}, true, nil},
		{"spec variant", []string{"run", "--out", "{out}", "--spec", write("variant.json", []byte(`{"method": {"name": "d2d", "variants": [`+Pjsonn(1000000)+`]}}`))}, true, nil},
		{"scores csv", []string{"verify", "--epsilon", "1", "--delta", "1e-3", "--out", "{out}", "--scores", "--unlearned", write("scores.csv", []byte("1,2\n"+P+",3\n")), "--retrained", write("scores_r.csv", []byte("1,2\n3,4\n"))}, true, nil},
		{"report schema", []string{"report", "--in", write("schema.json", []byte(`{"schema": `+string(Pjson)+`}`))}, true, nil},
		{"report date", []string{"report", "--in", reportJSON("date")}, true, nil},
		{"merge manifest schema", []string{"merge", filepath.Dir(write("shard/"+trials.ShardManifestFile, []byte(`{"schema": `+Pjsonn(1000000)+`}`))), "--out", "{out}"}, true, nil},
		{"canary plan", []string{"verify", "--spec", spec, "--out", "{out}", "--one-run", write("plan.json", []byte(`{"schema": `+Pjsonn(3000000)+`}`)), "--unlearned", write("canary.csv", []byte("1,2\n"))}, true, nil},
		{"evidence key", []string{"demo", "--out", "{out}", "--evidence-key", write("evidence.key", []byte("\x1b[31m\x1b]0;t\x07\u009b\u202e"+strings.Repeat("zz", 32))), "--trials", "8"}, true, nil},
		{"signing key", []string{"demo", "--out", "{out}", "--sign-key", write("sign.key", []byte("-----BEGIN \x1b[31m\x1b]0;t\x07-----\nAAAA\n-----END \x1b[31m\x1b]0;t\x07-----\n")), "--trials", "8"}, true, nil},
		{"check-report key", []string{"check-report", "--key", write("pub.pem", []byte("\x1b[31m\x1b]0;t\x07")), write("r.dsse", []byte(`{"payloadType": `+string(Pjson)+`}`))}, true, nil},
		{"flag --variants", []string{"demo", "--out", "{out}", "--variants", P}, true, nil},
		{"flag --attacks", []string{"demo", "--out", "{out}", "--attacks", P}, true, nil},
		{"flag --formats", []string{"demo", "--out", "{out}", "--formats", P}, true, nil},
		{"flag --delete", []string{"demo", "--out", "{out}", "--delete", P}, true, nil},
		{"flag --classes", []string{"demo", "--out", "{out}", "--classes", P, "--data", write("c.csv", []byte(strings.Repeat("1,2,1\n3,1,0\n", 10))), "--format", "csv"}, true, nil},
		{"flag --preprocess", []string{"demo", "--out", "{out}", "--preprocess", P, "--data", write("p.csv", []byte(strings.Repeat("1,2,1\n3,1,0\n", 10))), "--format", "csv"}, true, nil},
		{"flag --tensor", verify(good, "--tensor", P+","+P), true, nil},
		{"flag --trials", []string{"demo", "--out", "{out}", "--trials", P}, true, nil},
		{"flag --date", []string{"report", "--in", reportJSON("x"), "--date", P}, true, nil},
		{"an unknown flag", []string{"demo", "--" + P}, true, nil},
		{"an unknown command", []string{P}, true, nil},
		{"bounds variant", []string{"bounds", "d2d", "--variant", P}, true, nil},
		{"reproduce experiment", []string{"reproduce", P}, true, nil},
		{"shard variable", []string{"run", "--out", "{out}", "--spec", spec}, true, map[string]string{"JOB_COMPLETION_INDEX": P, "JOB_COMPLETIONS": "3"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.env != nil {
				withEnv(t, c.env)
			}
			out := filepath.Join(t.TempDir(), "out")
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = strings.ReplaceAll(a, "{out}", out)
			}
			var o, e bytes.Buffer
			err := run(context.Background(), args, strings.NewReader(""), &o, &e)
			if code := exitCode(err); code != exitUsage {
				t.Fatalf("exit %d, want %d (bad input): %.300q", code, exitUsage, e.String())
			}
			stderr := e.String() + "audit: " + errorText(err) + "\n" // as main writes it
			t.Logf("%.250s", errorText(err))
			if h := terminalHazard(stderr); h != "" {
				t.Errorf("stderr holds %s: %.300q", h, stderr)
			}
			if len(stderr) > maxErrorBytes {
				t.Errorf("stderr is %d bytes, more than %d", len(stderr), maxErrorBytes)
			}
			if !c.atSource {
				return
			}
			if h := terminalHazard(err.Error()); h != "" {
				t.Errorf("the reader's message holds %s: %.300q", h, err.Error())
			}
			if n := len(err.Error()); n > sourceBound {
				t.Errorf("the reader's message is %d bytes, more than %d: %.300q", n, sourceBound, err.Error())
			}
		})
	}
}
