package evidence

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/unlearnaudit/unlearnaudit/internal/regular"
)

// KeyEnv names the environment variable that gives the evidence key's file when no
// --evidence-key flag does: the deploy files set it once for every task of a sharded run
// and its merge.
const KeyEnv = "UNLEARNAUDIT_EVIDENCE_KEY_FILE"

// MinKeyBytes is the least key material an evidence key holds: HMAC-SHA256's own strength.
const MinKeyBytes = 32

// maxKeyFileBytes bounds a key file: a key is a line of hex, never a large file.
const maxKeyFileBytes = 4096

// TagHexLen is the length of a tag as written: HMAC-SHA256's 32 bytes in hex.
const TagHexLen = 2 * sha256.Size

// A Key is the secret that authenticates trial evidence: HMAC-SHA256 under it tags every
// checkpoint line and shard manifest, so only a holder of the key can write evidence the
// audit accepts. Its bytes are never printed: String and GoString say only what it is.
type Key struct {
	k []byte
}

func (k *Key) String() string   { return "evidence key (HMAC-SHA256)" }
func (k *Key) GoString() string { return "evidence.Key{…}" }

// ParseKey reads a key file's content: the key in hex (as `openssl rand -hex 32` or
// `audit keygen` writes it), at least 2·MinKeyBytes hex digits, surrounding whitespace
// ignored.
func ParseKey(content []byte) (*Key, error) {
	s := bytes.TrimSpace(content)
	if len(s) == 0 {
		return nil, errors.New("empty: want the key in hex (make one with: openssl rand -hex 32)")
	}
	k := make([]byte, hex.DecodedLen(len(s)))
	if _, err := hex.Decode(k, s); err != nil || len(s)%2 != 0 {
		return nil, errors.New("not a key in hex (make one with: openssl rand -hex 32)")
	}
	if len(k) < MinKeyBytes {
		return nil, fmt.Errorf("%d bytes of key, want at least %d (%d hex digits; make one with: openssl rand -hex 32)", len(k), MinKeyBytes, 2*MinKeyBytes)
	}
	return &Key{k: k}, nil
}

// LoadKey reads an evidence key from its file. The file must be a regular file of at
// most 4 KiB that no other user can read and only its owner can write: a key others can
// read lets them forge evidence, and one others can write lets them replace it with
// theirs (on Windows the mode is not checked).
func LoadKey(path string) (*Key, error) {
	b, err := readSecret(path, 0o027, "chmod 600 (or 640 to share it with the group)")
	if err != nil {
		return nil, fmt.Errorf("evidence key %s: %w", path, err)
	}
	k, err := ParseKey(b)
	if err != nil {
		return nil, fmt.Errorf("evidence key %s: %w", path, err)
	}
	return k, nil
}

// KeyFile is the evidence key's file to use: flagValue if given, else the file KeyEnv
// names in the environment (getenv), else "" (no key: the evidence is unauthenticated).
func KeyFile(flagValue string, getenv func(string) string) string {
	if flagValue != "" {
		return flagValue
	}
	return getenv(KeyEnv)
}

// readSecret reads a small secret file, refusing anything but a regular file, a file
// larger than maxKeyFileBytes, and (off Windows) a file whose mode has any of the bits in
// badPerm; fix says how to mend the mode.
func readSecret(path string, badPerm os.FileMode, fix string) ([]byte, error) {
	// regular.Open: a FIFO named as a key returns at once instead of blocking the command
	f, err := regular.Open(path)
	var re *regular.Error
	if errors.As(err, &re) {
		return nil, fmt.Errorf("%w (%s)", regular.ErrNotRegular, re.Kind) // the caller names the path
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if runtime.GOOS != "windows" && st.Mode().Perm()&badPerm != 0 {
		return nil, fmt.Errorf("mode %04o lets other users read or change it; %s", st.Mode().Perm(), fix)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxKeyFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxKeyFileBytes {
		return nil, fmt.Errorf("larger than %d bytes: not a key file", maxKeyFileBytes)
	}
	return b, nil
}

// mac is HMAC-SHA256 under k of the domain, the context and the body, each but the last
// length-prefixed, so no two different (domain, context, body) share an input.
func (k *Key) mac(domain string, context, body []byte) []byte {
	h := hmac.New(sha256.New, k.k)
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(domain)))
	h.Write(n[:])
	io.WriteString(h, domain)
	binary.BigEndian.PutUint64(n[:], uint64(len(context)))
	h.Write(n[:])
	h.Write(context)
	h.Write(body)
	return h.Sum(nil)
}

// Tag is the tag of body, in hex, under the domain (what kind of evidence it is) and the
// context (what it belongs to: a trial line's checkpoint header), so a tag never passes for
// another kind of evidence or another audit's.
func (k *Key) Tag(domain string, context, body []byte) []byte {
	out := make([]byte, TagHexLen)
	hex.Encode(out, k.mac(domain, context, body))
	return out
}

// Verify reports whether tag, in hex, is body's Tag under domain and context. It compares
// in constant time (hmac.Equal) and only whole tags: a prefix, a longer string or a tag in
// upper case is refused.
func (k *Key) Verify(domain string, context, body, tag []byte) bool {
	if len(tag) != TagHexLen {
		return false
	}
	got := make([]byte, sha256.Size)
	if _, err := hex.Decode(got, tag); err != nil {
		return false
	}
	for _, c := range tag { // one spelling only: lower-case hex, as Tag writes it
		if 'A' <= c && c <= 'F' {
			return false
		}
	}
	return hmac.Equal(got, k.mac(domain, context, body))
}

// Seal frames body with its tag, as Open reads it: the tag in hex, sep, body.
func (k *Key) Seal(domain string, context, body []byte, sep byte) []byte {
	out := make([]byte, 0, TagHexLen+1+len(body))
	out = append(out, k.Tag(domain, context, body)...)
	out = append(out, sep)
	return append(out, body...)
}

// ErrUntagged is Open's refusal of data that does not begin with a tag.
var ErrUntagged = errors.New("no tag")

// ErrBadTag is Open's refusal of a tag that does not match its data under the key.
var ErrBadTag = errors.New("tag does not match")

// Open checks framed data (Seal's) and returns its body: ErrUntagged if it does not begin
// with a tag and sep, ErrBadTag if the tag is not the body's. The body is checked before
// anything reads it, so forged data is refused however large or malformed it is.
func (k *Key) Open(domain string, context, framed []byte, sep byte) ([]byte, error) {
	if !Tagged(framed, sep) {
		return nil, ErrUntagged
	}
	tag, body := framed[:TagHexLen], framed[TagHexLen+1:]
	if !k.Verify(domain, context, body, tag) {
		return nil, ErrBadTag
	}
	return body, nil
}

// Tagged reports whether data begins as Seal's output does: TagHexLen hex digits and sep.
// It says nothing of the tag's validity: without the key, it tells tagged evidence from
// untagged, to name the mismatch.
func Tagged(data []byte, sep byte) bool {
	if len(data) <= TagHexLen || data[TagHexLen] != sep {
		return false
	}
	for _, c := range data[:TagHexLen] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
