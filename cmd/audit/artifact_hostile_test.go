package main

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The bad inputs issue 12 names, given to verify: each exits 2 naming the file and the
// problem, writes no report, and costs no more than its bytes (runHostile checks all three).
func TestHostileArtifacts(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.json")
	os.WriteFile(spec, []byte(`{"method": {"name": "d2d"}, "claim": {"epsilon": 1, "delta": 1e-6}}`), 0o644)
	good := filepath.Join("testdata", "verify", "retrained")
	// a folder holding one bad file among good models
	folder := func(name string, bad []byte) string {
		d := filepath.Join(dir, name)
		os.MkdirAll(d, 0o755)
		entries, _ := os.ReadDir(good)
		for _, e := range entries[:8] {
			b, _ := os.ReadFile(filepath.Join(good, e.Name()))
			os.WriteFile(filepath.Join(d, e.Name()), b, 0o644)
		}
		if bad != nil {
			os.WriteFile(filepath.Join(d, "zz_bad"+filepath.Ext(name)), bad, 0o644)
		}
		return d
	}
	mixed := folder("mixed.npy", must(os.ReadFile(filepath.Join("..", "..", "artifact", "testdata", "vector_f8.npy")))) // 7 parameters
	nanScores := filepath.Join(dir, "nan.csv")
	os.WriteFile(nanScores, []byte("1,2\n3,NaN\n"), 0o644)
	negSigma := filepath.Join(dir, "neg.json")
	os.WriteFile(negSigma, []byte(`{"method": {"name": "sglu", "params": {"sglu-sigma": -1}}}`), 0o644)
	unknown := filepath.Join(dir, "unknown.json")
	os.WriteFile(unknown, []byte(`{"method": {"name": "d2d"}, "trails": 8}`), 0o644)
	v := func(unlearned, retrained string, extra ...string) []string {
		return append([]string{"verify", "--spec", spec, "--out", "{out}", "--unlearned", unlearned, "--retrained", retrained}, extra...)
	}
	runHostile(t, []hostileCase{
		{"truncated safetensors", v(folder("trunc.safetensors", hostileFile("truncated-safetensors")), good),
			[]string{"zz_bad.safetensors", "file is truncated"}},
		{"safetensors header claiming 2^40 bytes", v(folder("huge.safetensors", hostileFile("huge-header-safetensors")), good), []string{"zz_bad.safetensors", "header of 1099511627776 bytes claimed"}},
		{"overlapping tensor offsets", v(folder("overlap.safetensors", hostileFile("overlapping-safetensors")), good),
			[]string{"zz_bad.safetensors", "b.data_offsets", "overlaps"}},
		{"npy with an unsupported dtype", v(folder("int.npy", hostileFile("int64-npy")), good), []string{"zz_bad.npy", `unsupported dtype "<i8"`}},
		{"a .pt whose pickle calls a function", v(folder("evil.pt", hostileFile("function-pt")), good), []string{"zz_bad.pt: archive/data.pkl: the pickle imports posix.system", "it is not read"}},
		{"a .pt deflate bomb", v(folder("bomb.pt", hostileFile("bomb-pt")), good), []string{"zz_bad.pt: inflates to 218488", "more than 100 to 1"}},
		{"a folder mixing dimensions", v(mixed, good), []string{"zz_bad.npy: 7 parameters", "the first model, has 31"}},
		{"scores with NaN", v(nanScores, nanScores, "--scores"), []string{"nan.csv", "NaN"}},
		{"a spec with a negative σ", []string{"verify", "--spec", negSigma, "--out", "{out}", "--unlearned", good, "--retrained", good}, []string{"neg.json", "method.params.sglu-sigma: -1: want a number in (0, inf)"}},
		{"a spec with an unknown field", []string{"run", "--spec", unknown, "--out", "{out}"}, []string{"unknown.json", "trails: unknown field"}},
	})
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// hostileFile is a malformed file of a kind the bad-input tests name (TestHostileArtifacts,
// and the scripts' "hostile" command); nil for an unknown kind.
func hostileFile(kind string) []byte {
	safetensors := func(header string, data []byte) []byte {
		var b bytes.Buffer
		binary.Write(&b, binary.LittleEndian, uint64(len(header)))
		b.WriteString(header)
		b.Write(data)
		return b.Bytes()
	}
	switch kind {
	case "truncated-safetensors": // 31 float64s declared, 2 present
		return safetensors(`{"w":{"dtype":"F64","shape":[31],"data_offsets":[0,248]}}`, make([]byte, 16))
	case "huge-header-safetensors": // 8 bytes claiming a header of 2^40
		return binary.LittleEndian.AppendUint64(nil, 1<<40)
	case "overlapping-safetensors":
		return safetensors(`{"a":{"dtype":"F64","shape":[2],"data_offsets":[0,16]},"b":{"dtype":"F64","shape":[1],"data_offsets":[8,16]}}`, make([]byte, 16))
	case "function-pt": // a .pt whose pickle calls posix.system("ls") when torch.load reads it
		return ptArchive(map[string][]byte{"data.pkl": []byte("\x80\x02cposix\nsystem\nq\x00X\x02\x00\x00\x00lsq\x01\x85R.")}, zip.Store)
	case "bomb-pt": // 200 MB of zeros in one storage, deflated to about 200 KB
		pk := "\x80\x02ccollections\nOrderedDict\n)R(X\x01\x00\x00\x00wctorch._utils\n_rebuild_tensor_v2\n((X\x07\x00\x00\x00storagectorch\nDoubleStorage\nX\x01\x00\x00\x000X\x03\x00\x00\x00cpuJ\x00\xbc\xa0\x01tQK\x00J\x00\xbc\xa0\x01\x85K\x01\x85\x89)R(tRu."
		return ptArchive(map[string][]byte{"data.pkl": []byte(pk), "data/0": make([]byte, 8*27_311_104)}, zip.Deflate)
	case "int64-npy": // 31 int64s, a dtype models are not read from
		h := "{'descr': '<i8', 'fortran_order': False, 'shape': (31,), }\n"
		b := append([]byte("\x93NUMPY\x01\x00"), byte(len(h)), byte(len(h)>>8))
		return append(append(b, h...), make([]byte, 31*8)...)
	}
	return nil
}

// ptArchive lays entries out as torch.save does, in one folder.
func ptArchive(entries map[string][]byte, method uint16) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, name := range slices.Sorted(maps.Keys(entries)) {
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: "archive/" + name, Method: method})
		w.Write(entries[name])
	}
	zw.Close()
	return b.Bytes()
}
