package evidence

import (
	"bytes"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const testKeyHex = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

func testKey(t *testing.T) *Key {
	t.Helper()
	k, err := ParseKey([]byte(testKeyHex + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func writeFile(t *testing.T, name string, body []byte, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, body, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil { // past the umask
		t.Fatal(err)
	}
	return p
}

func TestLoadKeyRefuses(t *testing.T) {
	good := writeFile(t, "k", []byte(testKeyHex+"\n"), 0o600)
	if _, err := LoadKey(good); err != nil {
		t.Fatalf("a good key: %v", err)
	}
	if _, err := LoadKey(writeFile(t, "k", []byte(testKeyHex), 0o640)); err != nil {
		t.Fatalf("a group-readable key: %v", err)
	}
	for _, c := range []struct {
		name, body string
		mode       os.FileMode
		want       string
	}{
		{"short", testKeyHex[:62], 0o600, "31 bytes of key, want at least 32"},
		{"not hex", strings.Repeat("zz", 32), 0o600, "not a key in hex"},
		{"odd", testKeyHex + "0", 0o600, "not a key in hex"},
		{"empty", "\n", 0o600, "empty"},
		{"large", strings.Repeat("00", 4096), 0o600, "larger than 4096 bytes"},
		{"world-readable", testKeyHex, 0o644, "mode 0644 lets other users read or change it"},
		{"group-writable", testKeyHex, 0o660, "mode 0660"},
	} {
		if c.mode&0o077 != 0 && runtime.GOOS == "windows" {
			continue
		}
		p := writeFile(t, "k", []byte(c.body), c.mode)
		_, err := LoadKey(p)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v; want an error naming %s with %q", c.name, err, p, c.want)
		}
		if err != nil && strings.Contains(err.Error(), c.body) && len(c.body) > 8 {
			t.Errorf("%s: the error echoes the key file's content: %v", c.name, err)
		}
	}
	if _, err := LoadKey(t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a folder: %v", err)
	}
	if _, err := LoadKey(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("a missing file: no error")
	}
}

func TestKeyFile(t *testing.T) {
	env := func(v string) func(string) string {
		return func(name string) string {
			if name == KeyEnv {
				return v
			}
			return ""
		}
	}
	if got := KeyFile("flag.key", env("env.key")); got != "flag.key" {
		t.Errorf("the flag did not win: %q", got)
	}
	if got := KeyFile("", env("env.key")); got != "env.key" {
		t.Errorf("the environment was not read: %q", got)
	}
	if got := KeyFile("", env("")); got != "" {
		t.Errorf("no key: %q", got)
	}
}

func TestKeyNeverPrinted(t *testing.T) {
	k := testKey(t)
	for _, s := range []string{k.String(), k.GoString()} {
		if strings.Contains(s, testKeyHex[:16]) || strings.Contains(s, "\x00\x01") {
			t.Errorf("the key shows in %q", s)
		}
	}
}

func TestSealOpen(t *testing.T) {
	k := testKey(t)
	ctx, body := []byte(`{"schema":"x"}`), []byte(`{"index":3,"value":1.5}`)
	framed := k.Seal("test/v1", ctx, body, ' ')
	if !Tagged(framed, ' ') || string(framed[TagHexLen+1:]) != string(body) {
		t.Fatalf("framed %q", framed)
	}
	got, err := k.Open("test/v1", ctx, framed, ' ')
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("Open: %q, %v", got, err)
	}
	other, _ := ParseKey([]byte(strings.Repeat("ab", 32)))
	tag := string(framed[:TagHexLen])
	flip := func(s string, i int) string { // another hex digit at i
		b := []byte(s)
		b[i] = "01"[map[bool]int{true: 1}[b[i] == '0']]
		return string(b)
	}
	for _, c := range []struct {
		name   string
		k      *Key
		domain string
		ctx    []byte
		framed string
		want   error
	}{
		{"body edited", k, "test/v1", ctx, tag + ` {"index":3,"value":2.5}`, ErrBadTag},
		{"another domain", k, "test/v2", ctx, string(framed), ErrBadTag},
		{"another context", k, "test/v1", []byte(`{"schema":"y"}`), string(framed), ErrBadTag},
		{"another key", other, "test/v1", ctx, string(framed), ErrBadTag},
		{"last digit wrong", k, "test/v1", ctx, flip(tag, TagHexLen-1) + " " + string(body), ErrBadTag},
		{"first digit wrong", k, "test/v1", ctx, flip(tag, 0) + " " + string(body), ErrBadTag},
		{"upper case", k, "test/v1", ctx, strings.ToUpper(tag) + " " + string(body), ErrUntagged},
		{"a prefix of the tag", k, "test/v1", ctx, tag[:32] + " " + string(body), ErrUntagged},
		{"untagged", k, "test/v1", ctx, string(body), ErrUntagged},
		{"empty", k, "test/v1", ctx, "", ErrUntagged},
		{"another separator", k, "test/v1", ctx, tag + "\n" + string(body), ErrUntagged},
	} {
		if _, err := c.k.Open(c.domain, c.ctx, []byte(c.framed), ' '); !errors.Is(err, c.want) {
			t.Errorf("%s: %v; want %v", c.name, err, c.want)
		}
	}
	// Verify itself, past Tagged's framing check: only the whole tag, in lower case
	for _, c := range []struct{ name, tag string }{
		{"prefix", tag[:32]}, {"longer", tag + "00"}, {"upper case", strings.ToUpper(tag)}, {"empty", ""},
	} {
		if strings.ToUpper(tag) == tag && c.name == "upper case" {
			continue // a tag of digits only: nothing to upper-case
		}
		if k.Verify("test/v1", ctx, body, []byte(c.tag)) {
			t.Errorf("Verify accepted the tag's %s", c.name)
		}
	}
	// the length prefixes keep (domain, context, body) apart: moving bytes across is another input
	if bytes.Equal(k.Tag("d", []byte("ab"), []byte("c")), k.Tag("d", []byte("a"), []byte("bc"))) {
		t.Error("context and body run together")
	}
}

// The tag is HMAC-SHA256 under the key of the domain and context, each after its length
// (8 bytes, big-endian), then the body: the documented framing, computed here apart.
func TestTagFraming(t *testing.T) {
	k := testKey(t)
	raw, _ := hex.DecodeString(testKeyHex)
	h := hmac.New(sha256.New, raw)
	h.Write([]byte{0, 0, 0, 0, 0, 0, 0, 7})
	h.Write([]byte("trial/1"))
	h.Write([]byte{0, 0, 0, 0, 0, 0, 0, 3})
	h.Write([]byte("hdr"))
	h.Write([]byte("body"))
	if got, want := string(k.Tag("trial/1", []byte("hdr"), []byte("body"))), hex.EncodeToString(h.Sum(nil)); got != want {
		t.Errorf("Tag %s, want %s", got, want)
	}
}

func TestPAE(t *testing.T) {
	// DSSE's protocol.md example and the edge cases of its test vectors
	for _, c := range []struct {
		typ, body, want string
	}{
		{"http://example.com/HelloWorld", "hello world", "DSSEv1 29 http://example.com/HelloWorld 11 hello world"},
		{"", "", "DSSEv1 0  0 "},
		{"application/vnd.exämple+json", "x", "DSSEv1 29 application/vnd.exämple+json 1 x"},
	} {
		if got := string(PAE(c.typ, []byte(c.body))); got != c.want {
			t.Errorf("PAE(%q, %q) = %q, want %q", c.typ, c.body, got, c.want)
		}
	}
}

// DSSE's published test vectors (github.com/secure-systems-lab/dsse, testvectors/
// vectors.json, commit 82043ad): keys A and B are RFC 8032's Ed25519 test keys 1 and 2.
// Each vector's PAE is ours byte for byte, our signature over it is the vector's (Ed25519
// is deterministic), and Verify accepts or rejects it as the vector expects.
func TestDSSEVectors(t *testing.T) {
	seeds := map[string]string{
		"A": "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
		"B": "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
	}
	publics := map[string]string{
		"A": "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
		"B": "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
	}
	priv := map[string]ed25519.PrivateKey{}
	pub := map[string]ed25519.PublicKey{}
	for id, s := range seeds {
		b, _ := hex.DecodeString(s)
		priv[id] = ed25519.NewKeyFromSeed(b)
		pub[id] = priv[id].Public().(ed25519.PublicKey)
		if hex.EncodeToString(pub[id]) != publics[id] {
			t.Fatalf("key %s: public %x, want %s", id, pub[id], publics[id])
		}
	}
	const intoto = "application/vnd.in-toto+json"
	const stmt = "eyJfdHlwZSI6Imh0dHBzOi8vaW4tdG90by5pby9TdGF0ZW1lbnQvdjEifQ=="
	const sigA = "2WAfaHm5jluo0w+0rk8uVkluELJYWjSmU9x7EUzx+AyteDGJ4/nqyJXfmAUVFIAoQafWm7AxBZNw5M9ixNHiCA=="
	const sigB = "c1+67/aT0yqEpwx8PsVY3MLHsj9D0CZ014/Fv/QlG59P+9CobUZ7xECJ/V3USG0Ob9CiE5LjReEZUzNF2l7eBw=="
	const paeStmt = "445353457631203238206170706c69636174696f6e2f766e642e696e2d746f746f2b6a736f6e203433207b225f74797065223a2268747470733a2f2f696e2d746f746f2e696f2f53746174656d656e742f7631227d"
	type sig struct{ key, sig string }
	for _, v := range []struct {
		id, payload, typ string
		sigs             []sig
		trusted          []string
		threshold        int
		types            []string
		pae              string
		accept           bool
	}{
		{"single-signature", stmt, intoto, []sig{{"A", sigA}}, []string{"A"}, 1, []string{intoto}, paeStmt, true},
		{"url-safe-base64", "-_-_Pj8=", intoto, []sig{{"A", "P-_KHICeR7tI6S_YyejJTRtrXhcQyQ2LYPaL8h90KjC9qN8HU_svOQ6TuDOT1HIrsGW886DbWNWcCmX5twLrAw=="}}, []string{"A"}, 1, []string{intoto},
			"445353457631203238206170706c69636174696f6e2f766e642e696e2d746f746f2b6a736f6e203520fbffbf3e3f", true},
		{"payload-type-swapped", stmt, "application/vnd.example.other+json", []sig{{"A", sigA}}, []string{"A"}, 1, []string{intoto, "application/vnd.example.other+json"}, paeStmt, false},
		{"non-ascii-payload-type", stmt, "application/vnd.exämple+json", []sig{{"A", "xmSk/ug66ysT7ayhkCIjhAq42zgZXSsEWuzUaNL7w2eGAdF/NU6/fRXPtmfN+5DNSAs5/i2lUnHjbbjPsu0tAw=="}}, []string{"A"}, 1, []string{"application/vnd.exämple+json"},
			"445353457631203239206170706c69636174696f6e2f766e642e6578c3a46d706c652b6a736f6e203433207b225f74797065223a2268747470733a2f2f696e2d746f746f2e696f2f53746174656d656e742f7631227d", true},
		{"empty-payload", "", intoto, []sig{{"A", "gSggCAaTLTYyRH6FIDBem6meyIynsYy8RTHVzwx9tnTb7Bg/1jMWnuVgI/gffqmbsC2VX5/jHfkkDqsj7CDbDg=="}}, []string{"A"}, 1, []string{intoto},
			"445353457631203238206170706c69636174696f6e2f766e642e696e2d746f746f2b6a736f6e203020", true},
		{"empty-payload-type", stmt, "", []sig{{"A", "iC3q/+3Rm0+lpAJRueDmDh15PnwCfxKmS0NAfKsbv+zgulXQC/WM9trc+j1XEqlwDIg/vf/uNfebeD6sxInrDg=="}}, []string{"A"}, 1, []string{intoto},
			"445353457631203020203433207b225f74797065223a2268747470733a2f2f696e2d746f746f2e696f2f53746174656d656e742f7631227d", false},
		{"threshold-two-distinct-keys", stmt, intoto, []sig{{"A", sigA}, {"B", sigB}}, []string{"A", "B"}, 2, []string{intoto}, paeStmt, true},
		{"threshold-two-one-key-twice", stmt, intoto, []sig{{"A", sigA}, {"A", sigA}}, []string{"A", "B"}, 2, []string{intoto}, paeStmt, false},
		{"threshold-two-without-keyids", stmt, intoto, []sig{{"", sigA}, {"", sigB}}, []string{"A", "B"}, 2, []string{intoto}, paeStmt, true},
	} {
		payload, err := decodeB64(v.payload)
		if err != nil {
			t.Fatalf("%s: payload: %v", v.id, err)
		}
		signedType := v.typ
		if v.id == "payload-type-swapped" {
			signedType = intoto // the signature was made over the other type
		}
		if got := hex.EncodeToString(PAE(signedType, payload)); got != v.pae {
			t.Errorf("%s: PAE %s, want %s", v.id, got, v.pae)
		}
		for _, s := range v.sigs {
			if s.key == "" {
				continue
			}
			mine := base64.StdEncoding.EncodeToString(ed25519.Sign(priv[s.key], PAE(signedType, payload)))
			want, _ := decodeB64(s.sig)
			if mine != base64.StdEncoding.EncodeToString(want) {
				t.Errorf("%s: our signature by %s differs from the vector's", v.id, s.key)
			}
		}
		env := Envelope{PayloadType: v.typ, Payload: v.payload}
		for _, s := range v.sigs {
			env.Signatures = append(env.Signatures, Signature{KeyID: s.key, Sig: s.sig})
		}
		b, _ := json.Marshal(env)
		var trusted []ed25519.PublicKey
		for _, id := range v.trusted {
			trusted = append(trusted, pub[id])
		}
		got, err := Verify(b, trusted, v.threshold, v.types...)
		if v.accept != (err == nil) {
			t.Errorf("%s: Verify: %v; want accept=%v", v.id, err, v.accept)
		}
		if err == nil && !bytes.Equal(got.Payload, payload) {
			t.Errorf("%s: payload %q, want %q", v.id, got.Payload, payload)
		}
		if err != nil && !v.accept && !errors.Is(err, ErrNotVerified) {
			t.Errorf("%s: refused as malformed (%v), want ErrNotVerified", v.id, err)
		}
	}
}

func TestSignVerify(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	const typ = "application/vnd.example+json"
	payload := []byte(`{"verdict":"PASS"}` + "\n")
	env, err := Sign(priv, typ, payload)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Sign(priv, typ, payload)
	if !bytes.Equal(env, again) {
		t.Error("signing twice gave two envelopes")
	}
	v, err := Verify(env, []ed25519.PublicKey{pub}, 1, typ)
	if err != nil || !bytes.Equal(v.Payload, payload) || len(v.KeyIDs) != 1 || v.KeyIDs[0] != KeyID(pub) {
		t.Fatalf("Verify: %+v, %v", v, err)
	}
	var e Envelope
	if err := json.Unmarshal(env, &e); err != nil {
		t.Fatal(err)
	}
	tamper := func(f func(*Envelope)) []byte {
		c := e
		c.Signatures = append([]Signature{}, e.Signatures...)
		f(&c)
		b, _ := json.Marshal(c)
		return b
	}
	other, _, _ := ed25519.GenerateKey(rand.Reader)
	for _, c := range []struct {
		name string
		env  []byte
		keys []ed25519.PublicKey
		want error // nil: malformed
	}{
		{"payload edited", tamper(func(c *Envelope) {
			c.Payload = base64.StdEncoding.EncodeToString([]byte(`{"verdict":"FAIL"}` + "\n"))
		}), []ed25519.PublicKey{pub}, ErrNotVerified},
		// a signature that did not cover the type would pass here
		{"type changed", tamper(func(c *Envelope) { c.PayloadType = "application/vnd.other+json" }), []ed25519.PublicKey{pub}, ErrNotVerified},
		{"signature cut", tamper(func(c *Envelope) { c.Signatures[0].Sig = c.Signatures[0].Sig[:40] }), []ed25519.PublicKey{pub}, ErrNotVerified},
		{"no signature", tamper(func(c *Envelope) { c.Signatures = nil }), []ed25519.PublicKey{pub}, ErrNotVerified},
		{"another key", env, []ed25519.PublicKey{other}, ErrNotVerified},
		{"key id of the trusted key, signature of another", tamper(func(c *Envelope) {
			_, p2, _ := ed25519.GenerateKey(rand.Reader)
			s, _ := Sign(p2, typ, payload)
			var e2 Envelope
			json.Unmarshal(s, &e2)
			c.Signatures[0].Sig = e2.Signatures[0].Sig
		}), []ed25519.PublicKey{pub}, ErrNotVerified},
		{"not JSON", []byte("{"), []ed25519.PublicKey{pub}, nil},
		{"unknown field", []byte(`{"payloadType":"x","payload":"","signatures":[],"extra":1}`), []ed25519.PublicKey{pub}, nil},
		{"bad base64", tamper(func(c *Envelope) { c.Payload = "!!" }), []ed25519.PublicKey{pub}, nil},
	} {
		_, err := Verify(c.env, c.keys, 1, typ)
		switch {
		case err == nil:
			t.Errorf("%s: verified", c.name)
		case c.want != nil && !errors.Is(err, c.want):
			t.Errorf("%s: %v; want %v", c.name, err, c.want)
		case c.want == nil && errors.Is(err, ErrNotVerified):
			t.Errorf("%s: %v; want a malformed-envelope error", c.name, err)
		}
	}
	// a type change is refused by the signature itself, not only by the type check: the
	// changed type is supported here
	if _, err := Verify(tamper(func(c *Envelope) { c.PayloadType = "application/vnd.other+json" }), []ed25519.PublicKey{pub}, 1, typ, "application/vnd.other+json"); err == nil {
		t.Error("a signature verified under a payload type it did not cover")
	}
}

func TestKeyFiles(t *testing.T) {
	ek, privPEM, pubPEM, err := GenerateKeys(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadKey(writeFile(t, "evidence.key", ek, 0o600)); err != nil {
		t.Fatalf("generated evidence key: %v", err)
	}
	priv, err := LoadSigningKey(writeFile(t, "sign.key", privPEM, 0o600))
	if err != nil {
		t.Fatalf("generated signing key: %v", err)
	}
	pub, err := ParsePublicKey(pubPEM)
	if err != nil || !pub.Equal(priv.Public()) {
		t.Fatalf("generated public key: %v", err)
	}
	if runtime.GOOS != "windows" {
		if _, err := LoadSigningKey(writeFile(t, "sign.key", privPEM, 0o640)); err == nil || !strings.Contains(err.Error(), "chmod 600") {
			t.Errorf("a group-readable signing key: %v", err)
		}
	}
	if _, err := ParsePublicKey(privPEM); err == nil || !strings.Contains(err.Error(), "a private key") {
		t.Errorf("a private key as the public one: %v", err)
	}
	if _, err := LoadSigningKey(writeFile(t, "sign.key", pubPEM, 0o600)); err == nil || !strings.Contains(err.Error(), "not a PEM PRIVATE KEY") {
		t.Errorf("a public key as the signing one: %v", err)
	}
	if _, err := ParsePublicKey([]byte("hello")); err == nil {
		t.Error("not PEM: no error")
	}
}

// Keys OpenSSL makes work as they are: `openssl genpkey -algorithm ed25519` and
// `openssl pkey -pubout`, and OpenSSL checks our signature.
func TestOpenSSLKeys(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl not installed")
	}
	dir := t.TempDir()
	run := func(args ...string) []byte {
		out, err := exec.Command("openssl", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("openssl %v: %v: %s", args, err, out)
		}
		return out
	}
	key, pubPath := filepath.Join(dir, "sign.key"), filepath.Join(dir, "sign.pub")
	run("genpkey", "-algorithm", "ed25519", "-out", key)
	run("pkey", "-in", key, "-pubout", "-out", pubPath)
	os.Chmod(key, 0o600)
	priv, err := LoadSigningKey(key)
	if err != nil {
		t.Fatal(err)
	}
	pubPEM, _ := os.ReadFile(pubPath)
	pub, err := ParsePublicKey(pubPEM)
	if err != nil || !pub.Equal(priv.Public()) {
		t.Fatalf("openssl's public key: %v", err)
	}
	// OpenSSL verifies our signature over the PAE
	const typ = "application/vnd.example+json"
	payload := []byte("report bytes\n")
	env, _ := Sign(priv, typ, payload)
	var e Envelope
	json.Unmarshal(env, &e)
	sig, _ := base64.StdEncoding.DecodeString(e.Signatures[0].Sig)
	paePath, sigPath := filepath.Join(dir, "pae"), filepath.Join(dir, "sig")
	os.WriteFile(paePath, PAE(typ, payload), 0o600)
	os.WriteFile(sigPath, sig, 0o600)
	run("pkeyutl", "-verify", "-pubin", "-inkey", pubPath, "-rawin", "-in", paePath, "-sigfile", sigPath)
	// and the key id is the SHA-256 of the DER public key, as documented
	der := run("pkey", "-pubin", "-in", pubPath, "-outform", "DER")
	if got := KeyID(pub); got != fmt.Sprintf("%x", sha256.Sum256(der)) {
		t.Errorf("KeyID %s, not the DER's SHA-256", got)
	}
	// an evidence key from openssl rand -hex 32
	ek := filepath.Join(dir, "evidence.key")
	os.WriteFile(ek, run("rand", "-hex", "32"), 0o600)
	if _, err := LoadKey(ek); err != nil {
		t.Errorf("openssl rand -hex 32: %v", err)
	}
}
