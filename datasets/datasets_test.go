package datasets

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sums reads SHA256SUMS: path (relative, slash-separated) → hex digest.
func sums(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("SHA256SUMS")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for line := 1; sc.Scan(); line++ {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(sum) != 64 {
			t.Fatalf("SHA256SUMS:%d: %q is not \"DIGEST  PATH\"", line, sc.Text())
		}
		out[strings.TrimPrefix(name, "./")] = sum
	}
	if len(out) == 0 {
		t.Fatal("SHA256SUMS lists no files")
	}
	return out
}

func digest(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// The committed files and the embedded ones are the bytes SHA256SUMS names, and every
// data file embedded is listed there (only the provenance, the checksums and the licence
// notes are not).
func TestFilesMatchSHA256SUMS(t *testing.T) {
	want := sums(t)
	for name, sum := range want {
		disk, err := os.ReadFile(filepath.FromSlash(name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got := digest(disk); got != sum {
			t.Errorf("%s (committed): SHA-256 %s, SHA256SUMS says %s", name, got, sum)
		}
		emb, err := fs.ReadFile(FS(), name)
		if err != nil {
			t.Errorf("%s: not embedded: %v", name, err)
			continue
		}
		if got := digest(emb); got != sum {
			t.Errorf("%s (embedded): SHA-256 %s, SHA256SUMS says %s", name, got, sum)
		}
	}
	err := fs.WalkDir(FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch filepath.Base(p) {
		case "PROVENANCE.md", "SHA256SUMS", "LICENSE":
			return nil
		}
		if want[p] == "" {
			t.Errorf("%s is embedded but not in SHA256SUMS", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Dir's folder holds the embedded bytes; a file there that was changed or removed is
// written again, and one already right is left alone.
func TestWriteOutRestoresTheEmbeddedFiles(t *testing.T) {
	dir := t.TempDir()
	if err := writeOut(dir); err != nil {
		t.Fatal(err)
	}
	bc := filepath.Join(dir, "sklearn", "breast_cancer.csv")
	if err := os.WriteFile(bc, []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hs := filepath.Join(dir, "liblinear", "heart_scale")
	if err := os.Remove(hs); err != nil {
		t.Fatal(err)
	}
	kept := filepath.Join(dir, "sklearn", "iris.csv")
	old := time.Unix(1e9, 0)
	if err := os.Chtimes(kept, old, old); err != nil {
		t.Fatal(err)
	}
	if err := writeOut(dir); err != nil {
		t.Fatal(err)
	}
	checked := 0
	err := fs.WalkDir(FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		want, _ := fs.ReadFile(FS(), p)
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes, %v; want the embedded %d", p, len(got), err, len(want))
		}
		checked++
		return nil
	})
	if err != nil || checked < 10 {
		t.Fatalf("%d files compared, %v", checked, err)
	}
	if st, err := os.Stat(kept); err != nil || !st.ModTime().Equal(old) {
		t.Errorf("iris.csv, already right, was rewritten: %v", err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*", ".*"))
	if len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// Dir names a folder holding the embedded files (under the user's cache when it can be written).
func TestDirHoldsTheEmbeddedFiles(t *testing.T) {
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "mnist-t10k", "t10k-labels-idx1-ubyte.gz"))
	want, _ := fs.ReadFile(FS(), "mnist-t10k/t10k-labels-idx1-ubyte.gz")
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%s: %d bytes, %v", dir, len(got), err)
	}
	if cache, err := os.UserCacheDir(); err == nil && !strings.HasPrefix(dir, filepath.Join(cache, "unlearnaudit")+string(filepath.Separator)) {
		t.Logf("the cache %s could not be written: %s", cache, dir)
	}
}
