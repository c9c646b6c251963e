package evidence

import (
	"bytes"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// WriteKeyFiles writes three loadable keys with their modes, and a second call into the
// same folder is refused, naming the file, with nothing replaced.
func TestWriteKeyFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "keys")
	if err := WriteKeyFiles(dir, rand.Reader); err != nil {
		t.Fatal(err)
	}
	for name, mode := range map[string]os.FileMode{"evidence.key": 0o600, "sign.key": 0o600, "sign.pub": 0o644} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != mode {
			t.Errorf("%s: mode %v, want %v", name, st.Mode().Perm(), mode)
		}
	}
	if _, err := LoadKey(filepath.Join(dir, "evidence.key")); err != nil {
		t.Errorf("LoadKey: %v", err)
	}
	if _, err := LoadSigningKey(filepath.Join(dir, "sign.key")); err != nil {
		t.Errorf("LoadSigningKey: %v", err)
	}
	before, _ := os.ReadFile(filepath.Join(dir, "sign.pub"))
	err := WriteKeyFiles(dir, rand.Reader)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "evidence.key")+" exists; keys are never replaced") {
		t.Fatalf("second WriteKeyFiles: %v, want a refusal naming evidence.key", err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "sign.pub")); !bytes.Equal(before, after) {
		t.Error("sign.pub was replaced")
	}
}

// LoadKeys reads only the keys whose files are named, names --sign-key in the signing
// key's error, and reads keygen's files back.
func TestLoadKeys(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "keys")
	if err := WriteKeyFiles(dir, rand.Reader); err != nil {
		t.Fatal(err)
	}
	ek, sk := filepath.Join(dir, "evidence.key"), filepath.Join(dir, "sign.key")
	if k, s, err := LoadKeys("", ""); k != nil || s != nil || err != nil {
		t.Errorf(`LoadKeys("", "") = %v, %v, %v; want no keys and no error`, k, s, err)
	}
	if k, s, err := LoadKeys(ek, sk); k == nil || s == nil || err != nil {
		t.Errorf("LoadKeys(keygen's files) = %v, %v, %v; want both keys", k, s, err)
	}
	if k, s, err := LoadKeys(ek, ""); k == nil || s != nil || err != nil {
		t.Errorf("LoadKeys(evidence key only) = %v, %v, %v; want the evidence key alone", k, s, err)
	}
	if _, _, err := LoadKeys(sk, ""); err == nil || strings.HasPrefix(err.Error(), "--sign-key") {
		t.Errorf("LoadKeys(a signing key as the evidence key): %v; want LoadKey's refusal", err)
	}
	if _, _, err := LoadKeys(ek, ek); err == nil || !strings.HasPrefix(err.Error(), "--sign-key: ") {
		t.Errorf("LoadKeys(an evidence key as the signing key): %v; want a refusal naming --sign-key", err)
	}
}
