package evidence

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// WriteKeyFiles writes a new evidence key and Ed25519 key pair drawn from rand
// (GenerateKeys) into dir, made if missing: evidence.key and sign.key (mode 0600) and
// sign.pub (0644). It never replaces a file: one already there is refused before any is
// written, and one that appears meanwhile is refused by O_EXCL.
func WriteKeyFiles(dir string, rand io.Reader) error {
	ek, priv, pub, err := GenerateKeys(rand)
	if err != nil {
		return err
	}
	files := []struct {
		name string
		body []byte
		mode os.FileMode
	}{{"evidence.key", ek, 0o600}, {"sign.key", priv, 0o600}, {"sign.pub", pub, 0o644}}
	for _, f := range files {
		if _, err := os.Lstat(filepath.Join(dir, f.name)); err == nil {
			return fmt.Errorf("%s exists; keys are never replaced (remove it, or give another --out)", filepath.Join(dir, f.name))
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		// O_EXCL: a file that appeared since the check is not replaced either
		w, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, f.mode)
		if err != nil {
			return err
		}
		_, err = w.Write(f.body)
		if err = errors.Join(err, w.Chmod(f.mode), w.Close()); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	return nil
}
