// Package evidence authenticates an audit's evidence: keyed tags on the trials it keeps
// and signatures on the reports it writes.
//
// # Why
//
// An audit's trials sit in checkpoint files, often on a shared file system, written by
// one process and read back by another: a resumed run, or `audit merge` gathering the
// parts of a sharded run. A checksum catches a torn or mistyped line, but anyone who can
// write the folder can recompute it: rewrite the trials, and the audit reports what they
// wrote. Only a secret stops that. With an evidence Key, every checkpoint line and shard
// manifest carries an HMAC-SHA256 tag under the key, and a reader without a valid tag
// refuses the line, naming the file and the line, before it decodes a byte of it.
//
// # Tagging evidence
//
// A key is 32 bytes or more, kept in hex in a file that only its owner (and perhaps the
// group) can read:
//
//	openssl rand -hex 32 > evidence.key && chmod 600 evidence.key
//
// LoadKey reads it (KeyFile picks the file: a flag, else the environment variable
// KeyEnv; LoadKeys reads it with the signing key, each if named, before a command's work).
// Seal frames a body with its tag and Open checks it:
//
//	k, err := evidence.LoadKey("evidence.key")
//	line := k.Seal("example/line/v1", header, body, ' ') // "<64 hex digits> <body>"
//	body, err = k.Open("example/line/v1", header, line, ' ')
//
// The domain says what kind of evidence a tag is for and the context what it belongs to
// (a trial line's checkpoint header), so a tag cut from one place never verifies in
// another. Open compares in constant time and refuses before any parsing: a forged line
// costs one HMAC, however large or malformed. Tagged tells tagged data from untagged
// without the key, so a reader can say "written without a key" rather than "forged".
//
// # Signing reports
//
// A report is signed with Ed25519 in a DSSE envelope (the Dead Simple Signing Envelope of
// github.com/secure-systems-lab/dsse, which in-toto and sigstore use): the payload is
// the report's exact bytes, and the signature covers PAE(payloadType, payload), so it
// binds the type too. Sign writes the envelope; Verify checks one against trusted keys,
// as DSSE's protocol says. Keys are the formats OpenSSL writes:
//
//	openssl genpkey -algorithm ed25519 -out sign.key && chmod 600 sign.key
//	openssl pkey -in sign.key -pubout -out sign.pub
//
// LoadSigningKey and ParsePublicKey read them; GenerateKeys makes an evidence key and a
// key pair in one go (what `audit keygen` writes).
//
// Everything here is the standard library's: crypto/hmac, crypto/ed25519, encoding/asn1 (the
// keys' DER, rfc8410.go).
package evidence
