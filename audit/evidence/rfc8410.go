package evidence

import (
	"bytes"
	"crypto/ed25519"
	"encoding/asn1"
	"errors"
	"fmt"
)

// Ed25519 keys in DER as RFC 8410 writes them: the public key as a SubjectPublicKeyInfo
// (PKIX), the private key as a OneAsymmetricKey (PKCS#8, RFC 5958) holding the 32-byte
// seed. This is what crypto/x509's Marshal/Parse functions do for Ed25519, written here
// for that one algorithm because crypto/x509 imports net, and net links the C resolver
// into any build with cgo on: with it, a plain `go build` of the audit binary was
// dynamically linked (TestAuditBinaryIsStatic). The bytes are x509's (TestRFC8410IsX509s).

// oidEd25519 is id-Ed25519 (RFC 8410, section 3).
var oidEd25519 = asn1.ObjectIdentifier{1, 3, 101, 112}

// algorithmIdentifier for Ed25519 has no parameters: the field must be absent.
type algorithmIdentifier struct {
	Algorithm  asn1.ObjectIdentifier
	Parameters asn1.RawValue `asn1:"optional"`
}

type subjectPublicKeyInfo struct {
	Algorithm algorithmIdentifier
	PublicKey asn1.BitString
}

// oneAsymmetricKey is PKCS#8's PrivateKeyInfo (version 0) or RFC 5958's version 1, which
// may carry the public key too.
type oneAsymmetricKey struct {
	Version    int
	Algorithm  algorithmIdentifier
	PrivateKey []byte         // a CurvePrivateKey: an OCTET STRING of the 32-byte seed, in DER
	Attributes asn1.RawValue  `asn1:"optional,tag:0"`
	PublicKey  asn1.BitString `asn1:"optional,tag:1"`
}

// marshalPKIX is pub's SubjectPublicKeyInfo in DER.
func marshalPKIX(pub ed25519.PublicKey) []byte {
	return mustMarshal(subjectPublicKeyInfo{Algorithm: algorithmIdentifier{Algorithm: oidEd25519},
		PublicKey: asn1.BitString{Bytes: pub, BitLength: 8 * len(pub)}})
}

// marshalPKCS8 is priv's OneAsymmetricKey (version 0, the seed alone) in DER.
func marshalPKCS8(priv ed25519.PrivateKey) []byte {
	return mustMarshal(oneAsymmetricKey{Algorithm: algorithmIdentifier{Algorithm: oidEd25519}, PrivateKey: mustMarshal(priv.Seed())})
}

// mustMarshal is asn1.Marshal of the fixed shapes above (OIDs, integers and bytes), which
// always marshal.
func mustMarshal(v any) []byte {
	der, err := asn1.Marshal(v)
	if err != nil {
		panic(err)
	}
	return der
}

// parsePKIX reads an Ed25519 SubjectPublicKeyInfo in DER.
func parsePKIX(der []byte) (ed25519.PublicKey, error) {
	var spki subjectPublicKeyInfo
	if err := unmarshalAll(der, &spki); err != nil {
		return nil, fmt.Errorf("not a PKIX public key: %w", err)
	}
	if err := ed25519Algorithm(spki.Algorithm); err != nil {
		return nil, err
	}
	if spki.PublicKey.BitLength != 8*ed25519.PublicKeySize || len(spki.PublicKey.Bytes) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("an Ed25519 public key of %d bits, want %d", spki.PublicKey.BitLength, 8*ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(bytes.Clone(spki.PublicKey.Bytes)), nil
}

// parsePKCS8 reads an Ed25519 OneAsymmetricKey in DER (version 0, or 1 with the public
// key, which must then be the seed's).
func parsePKCS8(der []byte) (ed25519.PrivateKey, error) {
	var k oneAsymmetricKey
	if err := unmarshalAll(der, &k); err != nil {
		return nil, fmt.Errorf("not a PKCS#8 private key: %w", err)
	}
	if k.Version != 0 && k.Version != 1 {
		return nil, fmt.Errorf("a PKCS#8 key of version %d, want 0 or 1", k.Version)
	}
	if err := ed25519Algorithm(k.Algorithm); err != nil {
		return nil, err
	}
	var seed []byte
	if err := unmarshalAll(k.PrivateKey, &seed); err != nil {
		return nil, fmt.Errorf("an Ed25519 private key that is not an OCTET STRING: %w", err)
	}
	if len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("an Ed25519 private key of %d bytes, want %d", len(seed), ed25519.SeedSize)
	}
	priv := ed25519.NewKeyFromSeed(seed)
	if k.PublicKey.BitLength > 0 && !bytes.Equal(k.PublicKey.Bytes, priv.Public().(ed25519.PublicKey)) {
		return nil, errors.New("an Ed25519 private key whose public key is not its seed's")
	}
	return priv, nil
}

// ed25519Algorithm refuses any algorithm but Ed25519, and Ed25519 with parameters.
func ed25519Algorithm(a algorithmIdentifier) error {
	switch {
	case !a.Algorithm.Equal(oidEd25519):
		return fmt.Errorf("a key of algorithm %v, want an Ed25519 key (%v)", a.Algorithm, oidEd25519)
	case len(a.Parameters.FullBytes) > 0:
		return errors.New("an Ed25519 key with algorithm parameters, which RFC 8410 forbids")
	}
	return nil
}

// unmarshalAll is asn1.Unmarshal with nothing after the value.
func unmarshalAll(der []byte, v any) error {
	rest, err := asn1.Unmarshal(der, v)
	if err == nil && len(rest) > 0 {
		err = fmt.Errorf("%d bytes after the value", len(rest))
	}
	return err
}
