package evidence

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
)

// PAE is DSSE's pre-authentication encoding of a payload and its type, what a DSSE
// signature signs: "DSSEv1 LEN(type) type LEN(body) body", lengths in bytes, in decimal.
// Signing the type with the body means a signature never passes for another type's.
func PAE(payloadType string, payload []byte) []byte {
	var b bytes.Buffer
	b.WriteString("DSSEv1 ")
	b.WriteString(strconv.Itoa(len(payloadType)))
	b.WriteByte(' ')
	b.WriteString(payloadType)
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(len(payload)))
	b.WriteByte(' ')
	b.Write(payload)
	return b.Bytes()
}

// An Envelope is a DSSE envelope (github.com/secure-systems-lab/dsse, as in-toto and
// sigstore use): the payload, its type and signatures over PAE(type, payload). In JSON,
// payload and signatures are base64.
type Envelope struct {
	PayloadType string      `json:"payloadType"`
	Payload     string      `json:"payload"`
	Signatures  []Signature `json:"signatures"`
}

// A Signature is one signature of an Envelope. KeyID is a hint only, never trusted.
type Signature struct {
	KeyID string `json:"keyid,omitempty"`
	Sig   string `json:"sig"`
}

// KeyID names an Ed25519 public key: the SHA-256, in hex, of its PKIX (DER) encoding, as
// `openssl pkey -pubin -in PUB.pem -outform DER | sha256sum` prints it.
func KeyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(marshalPKIX(pub))
	return hex.EncodeToString(sum[:])
}

// Sign wraps payload in a DSSE envelope signed by priv and returns its JSON (indented, a
// final newline). Ed25519 is deterministic: the same key and payload give the same bytes.
func Sign(priv ed25519.PrivateKey, payloadType string, payload []byte) ([]byte, error) {
	if len(priv) != ed25519.PrivateKeySize {
		return nil, errors.New("sign: not an Ed25519 private key")
	}
	sig := ed25519.Sign(priv, PAE(payloadType, payload))
	env := Envelope{PayloadType: payloadType, Payload: base64.StdEncoding.EncodeToString(payload),
		Signatures: []Signature{{KeyID: KeyID(priv.Public().(ed25519.PublicKey)), Sig: base64.StdEncoding.EncodeToString(sig)}}}
	b, err := json.MarshalIndent(env, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	return append(b, '\n'), nil
}

// A Verified envelope: its payload, its type, and the key ids of the trusted keys whose
// signatures verified.
type Verified struct {
	PayloadType string
	Payload     []byte
	KeyIDs      []string
}

// ErrNotVerified is Verify's refusal of an envelope that is well formed but whose
// signatures or type do not meet the terms: the evidence is not what it claims.
var ErrNotVerified = errors.New("not verified")

// Verify checks a DSSE envelope's JSON as DSSE's protocol says: every signature is tried
// against every trusted key over PAE(payloadType, payload); at least threshold distinct
// keys must verify, and the type must be one of types. A malformed envelope is an error
// of its own; an envelope that fails the terms wraps ErrNotVerified. Base64 in either
// alphabet, padded or not, is read.
func Verify(envelope []byte, trusted []ed25519.PublicKey, threshold int, types ...string) (*Verified, error) {
	if threshold < 1 {
		return nil, errors.New("verify: threshold below 1")
	}
	dec := json.NewDecoder(bytes.NewReader(envelope))
	dec.DisallowUnknownFields()
	var env Envelope
	if err := dec.Decode(&env); err != nil {
		return nil, fmt.Errorf("not a DSSE envelope: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("not a DSSE envelope: data after the envelope")
	}
	payload, err := decodeB64(env.Payload)
	if err != nil {
		return nil, fmt.Errorf("not a DSSE envelope: field payload: %w", err)
	}
	if len(env.Signatures) == 0 {
		return nil, fmt.Errorf("%w: the envelope holds no signature", ErrNotVerified)
	}
	pae := PAE(env.PayloadType, payload)
	accepted := map[int]bool{}
	for i, s := range env.Signatures {
		sig, err := decodeB64(s.Sig)
		if err != nil {
			return nil, fmt.Errorf("not a DSSE envelope: field signatures[%d].sig: %w", i, err)
		}
		for j, pub := range trusted {
			if len(pub) == ed25519.PublicKeySize && ed25519.Verify(pub, pae, sig) {
				accepted[j] = true
			}
		}
	}
	if len(accepted) < threshold {
		return nil, fmt.Errorf("%w: %d of the envelope's %d signatures verify under the trusted keys (want %d distinct keys)", ErrNotVerified, len(accepted), len(env.Signatures), threshold)
	}
	supported := false
	for _, t := range types {
		supported = supported || env.PayloadType != "" && env.PayloadType == t
	}
	if !supported {
		return nil, fmt.Errorf("%w: payload type %s, want %q", ErrNotVerified, clip.Quote(env.PayloadType), types)
	}
	v := &Verified{PayloadType: env.PayloadType, Payload: payload}
	for j := range trusted {
		if accepted[j] {
			v.KeyIDs = append(v.KeyIDs, KeyID(trusted[j]))
		}
	}
	return v, nil
}

// decodeB64 reads base64 in the standard or the URL alphabet, padded or not: DSSE
// verifiers must accept either.
func decodeB64(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, errors.New("not base64")
}

// LoadSigningKey reads an Ed25519 private key: PKCS#8 in PEM ("PRIVATE KEY"), as
// `openssl genpkey -algorithm ed25519` and `audit keygen` write it. Like an evidence key,
// it must be a small regular file, here readable by its owner alone.
func LoadSigningKey(path string) (ed25519.PrivateKey, error) {
	b, err := readSecret(path, 0o077, "chmod 600")
	if err != nil {
		return nil, fmt.Errorf("signing key %s: %w", path, err)
	}
	p, _ := pem.Decode(b)
	if p == nil || p.Type != "PRIVATE KEY" {
		return nil, fmt.Errorf("signing key %s: not a PEM PRIVATE KEY (PKCS#8; make one with: openssl genpkey -algorithm ed25519 -out KEY.pem)", path)
	}
	priv, err := parsePKCS8(p.Bytes)
	if err != nil {
		return nil, fmt.Errorf("signing key %s: %w", path, err)
	}
	return priv, nil
}

// ParsePublicKey reads an Ed25519 public key: PKIX in PEM ("PUBLIC KEY"), as
// `openssl pkey -in KEY.pem -pubout` and `audit keygen` write it.
func ParsePublicKey(b []byte) (ed25519.PublicKey, error) {
	p, _ := pem.Decode(b)
	switch {
	case p != nil && p.Type == "PRIVATE KEY":
		return nil, errors.New("a private key: give the public key (openssl pkey -in KEY.pem -pubout -out PUB.pem)")
	case p == nil || p.Type != "PUBLIC KEY":
		return nil, errors.New("not a PEM PUBLIC KEY (make one with: openssl pkey -in KEY.pem -pubout -out PUB.pem)")
	}
	return parsePKIX(p.Bytes)
}

// GenerateKeys makes a new evidence key and Ed25519 key pair from rand: the evidence key
// file's content (hex), the private key (PKCS#8 PEM) and the public key (PKIX PEM).
func GenerateKeys(rand io.Reader) (evidenceKey, private, public []byte, err error) {
	k := make([]byte, MinKeyBytes)
	if _, err := io.ReadFull(rand, k); err != nil {
		return nil, nil, nil, fmt.Errorf("generate keys: %w", err)
	}
	pub, priv, err := ed25519.GenerateKey(rand)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("generate keys: %w", err)
	}
	return []byte(hex.EncodeToString(k) + "\n"), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: marshalPKCS8(priv)}),
		pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: marshalPKIX(pub)}), nil
}
