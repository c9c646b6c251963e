package evidence

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/asn1"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// The keys' DER is crypto/x509's, byte for byte, and each side reads the other's: the
// codec replaced x509 (whose net import made the binary dynamic) and must not change a key
// file or a KeyID.
func TestRFC8410IsX509s(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		seed := rapid.SliceOfN(rapid.Byte(), ed25519.SeedSize, ed25519.SeedSize).Draw(t, "seed")
		priv := ed25519.NewKeyFromSeed(seed)
		pub := priv.Public().(ed25519.PublicKey)
		wantPub, err := x509.MarshalPKIXPublicKey(pub)
		if err != nil {
			t.Fatal(err)
		}
		wantPriv, err := x509.MarshalPKCS8PrivateKey(priv)
		if err != nil {
			t.Fatal(err)
		}
		if got := marshalPKIX(pub); !bytes.Equal(got, wantPub) {
			t.Fatalf("PKIX % x, x509's % x", got, wantPub)
		}
		if got := marshalPKCS8(priv); !bytes.Equal(got, wantPriv) {
			t.Fatalf("PKCS#8 % x, x509's % x", got, wantPriv)
		}
		if got, err := parsePKIX(wantPub); err != nil || !got.Equal(pub) {
			t.Fatalf("x509's PKIX read as %x, %v", got, err)
		}
		if got, err := parsePKCS8(wantPriv); err != nil || !got.Equal(priv) {
			t.Fatalf("x509's PKCS#8 read as %x, %v", got, err)
		}
	})
}

// What is not an Ed25519 key in RFC 8410's form is refused, with what it is.
func TestRFC8410Refuses(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	pub := priv.Public().(ed25519.PublicKey)
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ecPub, _ := x509.MarshalPKIXPublicKey(&ec.PublicKey)
	ecPriv, _ := x509.MarshalPKCS8PrivateKey(ec)
	withParams, _ := asn1.Marshal(subjectPublicKeyInfo{Algorithm: algorithmIdentifier{Algorithm: oidEd25519, Parameters: asn1.NullRawValue},
		PublicKey: asn1.BitString{Bytes: pub, BitLength: 256}})
	short, _ := asn1.Marshal(subjectPublicKeyInfo{Algorithm: algorithmIdentifier{Algorithm: oidEd25519},
		PublicKey: asn1.BitString{Bytes: pub[:31], BitLength: 248}})
	seed, _ := asn1.Marshal(priv.Seed())
	v2, _ := asn1.Marshal(oneAsymmetricKey{Version: 2, Algorithm: algorithmIdentifier{Algorithm: oidEd25519}, PrivateKey: seed})
	other := ed25519.NewKeyFromSeed(make([]byte, 32)).Public().(ed25519.PublicKey)
	mismatched, _ := asn1.Marshal(oneAsymmetricKey{Version: 1, Algorithm: algorithmIdentifier{Algorithm: oidEd25519}, PrivateKey: seed,
		PublicKey: asn1.BitString{Bytes: other, BitLength: 256}})
	rawSeed, _ := asn1.Marshal(oneAsymmetricKey{Algorithm: algorithmIdentifier{Algorithm: oidEd25519}, PrivateKey: priv.Seed()})
	for _, c := range []struct {
		name, want string
		der        []byte
		private    bool
	}{
		{"ECDSA public", "want an Ed25519 key", ecPub, false},
		{"ECDSA private", "want an Ed25519 key", ecPriv, true},
		{"parameters", "parameters", withParams, false},
		{"31-byte public", "248 bits", short, false},
		{"trailing byte", "after the value", append(marshalPKIX(pub), 0), false},
		{"version 2", "version 2", v2, true},
		{"public key not the seed's", "not its seed's", mismatched, true},
		{"seed not wrapped", "an Ed25519 private key", rawSeed, true},
		{"empty", "not a PKCS#8", nil, true},
	} {
		var err error
		if c.private {
			_, err = parsePKCS8(c.der)
		} else {
			_, err = parsePKIX(c.der)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
	// RFC 5958's version 1 with the seed's own public key is read.
	v1, _ := asn1.Marshal(oneAsymmetricKey{Version: 1, Algorithm: algorithmIdentifier{Algorithm: oidEd25519}, PrivateKey: seed,
		PublicKey: asn1.BitString{Bytes: pub, BitLength: 256}})
	if got, err := parsePKCS8(v1); err != nil || !got.Equal(priv) {
		t.Errorf("a version 1 key with its public key: %v", err)
	}
}

// On any bytes, a key parsePKIX or parsePKCS8 reads, x509 reads as the same Ed25519 key:
// the codec is x509 or stricter (it also refuses bytes after the key and PKCS#8 versions
// other than 0 and 1, which x509 reads; it reads version 1 keys, which x509 does not:
// those are left out). x509's own keys it reads (TestRFC8410IsX509s).
func FuzzRFC8410AgreesWithX509(f *testing.F) {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	f.Add(marshalPKIX(priv.Public().(ed25519.PublicKey)), false)
	f.Add(marshalPKCS8(priv), true)
	f.Fuzz(func(t *testing.T, der []byte, private bool) {
		if private {
			ours, err := parsePKCS8(der)
			if err != nil {
				return
			}
			var v oneAsymmetricKey
			if _, err := asn1.Unmarshal(der, &v); err == nil && v.Version == 1 {
				return
			}
			k, xerr := x509.ParsePKCS8PrivateKey(der)
			if theirs, ok := k.(ed25519.PrivateKey); xerr != nil || !ok || !ours.Equal(theirs) {
				t.Fatalf("% x: ours %x; x509's %T, %v", der, ours, k, xerr)
			}
			return
		}
		ours, err := parsePKIX(der)
		if err != nil {
			return
		}
		k, xerr := x509.ParsePKIXPublicKey(der)
		if theirs, ok := k.(ed25519.PublicKey); xerr != nil || !ok || !ours.Equal(theirs) {
			t.Fatalf("% x: ours %x; x509's %T, %v", der, ours, k, xerr)
		}
	})
}
