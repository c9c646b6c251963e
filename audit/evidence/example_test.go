package evidence_test

import (
	"crypto/ed25519"
	"errors"
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/audit/evidence"
)

// A line is sealed with its tag under the key and opened only if the tag matches: an
// edited line is refused before it is parsed.
func ExampleKey_Open() {
	key, err := evidence.ParseKey([]byte("8f2b6c1d0e9a7f3b5c4d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	header := []byte(`{"subject":"d2d","seed":1}`)
	line := key.Seal("example/trial/v1", header, []byte(`{"index":0,"loss":0.25}`), ' ')

	body, err := key.Open("example/trial/v1", header, line, ' ')
	fmt.Printf("%s %v\n", body, err)

	forged := append([]byte{}, line...)
	copy(forged[len(forged)-5:], "0.99}") // "loss":0.99
	_, err = key.Open("example/trial/v1", header, forged, ' ')
	fmt.Println(errors.Is(err, evidence.ErrBadTag))
	// Output:
	// {"index":0,"loss":0.25} <nil>
	// true
}

// A report is signed in a DSSE envelope and checked against the signer's public key.
func ExampleSign() {
	seed := make([]byte, ed25519.SeedSize) // a real key comes from LoadSigningKey
	priv := ed25519.NewKeyFromSeed(seed)
	pub := priv.Public().(ed25519.PublicKey)
	const typ = "application/vnd.unlearnaudit.report+json"

	env, err := evidence.Sign(priv, typ, []byte(`{"verdict":"PASS"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	v, err := evidence.Verify(env, []ed25519.PublicKey{pub}, 1, typ)
	fmt.Printf("%s %v\n", v.Payload, err)
	// Output:
	// {"verdict":"PASS"} <nil>
}
