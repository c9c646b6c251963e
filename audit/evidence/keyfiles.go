package evidence

import (
	"crypto/ed25519"
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

// LoadKeys reads an audit's keys before any work: the evidence key from keyFile (KeyFile
// picks it: a flag, else KeyEnv) and the signing key from signFile, each only when its
// file is named ("" : none, and a nil key). A signing key's error names --sign-key, the
// flag that gave it; an evidence key's names its file (LoadKey).
func LoadKeys(keyFile, signFile string) (*Key, ed25519.PrivateKey, error) {
	var (
		key    *Key
		signer ed25519.PrivateKey
		err    error
	)
	if keyFile != "" {
		if key, err = LoadKey(keyFile); err != nil {
			return nil, nil, err
		}
	}
	if signFile != "" {
		if signer, err = LoadSigningKey(signFile); err != nil {
			return nil, nil, fmt.Errorf("--sign-key: %w", err)
		}
	}
	return key, signer, nil
}
