package reports

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/audit/evidence"
	"github.com/unlearnaudit/unlearnaudit/internal/regular"
)

// The values of Report.TrialEvidence.
const (
	// TrialsAuthenticated: every trial was written and read back under the audit's
	// evidence key, each checkpoint line's HMAC-SHA256 tag checked before it was used.
	TrialsAuthenticated = "authenticated"
	// TrialsUnauthenticated: the trials' checkpoint files carry checksums only, which
	// anyone who could write them could have recomputed.
	TrialsUnauthenticated = "unauthenticated"
)

// EvidenceText is the sentence the renderings print for a report's TrialEvidence; "" when
// it is empty (a report that runs no trials).
func EvidenceText(v string) string { return evidenceText(v, func(s string) string { return s }) }

// evidenceText is EvidenceText with a value it does not know (the file's own text) passed
// through esc: Markdown escapes it, the other renderings escape on their own.
func evidenceText(v string, esc func(string) string) string {
	switch v {
	case "":
		return ""
	case TrialsAuthenticated:
		return "Trial evidence: authenticated. Every trial was written and read back under the audit's evidence key: each checkpoint line's HMAC-SHA256 tag was checked before the line was used."
	case TrialsUnauthenticated:
		return "Trial evidence: unauthenticated. The trials' checkpoint files carry checksums, not keyed tags: anyone who could write them could have changed the trials. Run with an evidence key (--evidence-key) to authenticate them."
	}
	return "Trial evidence: " + esc(v) + "."
}

// PayloadType is the DSSE payload type of a signed report: the payload is report.json's
// exact bytes.
const PayloadType = "application/vnd.unlearnaudit.report+json"

// SignedSuffix is the signed envelope's name beside the report: report.json.dsse.
const SignedSuffix = ".dsse"

// Sign signs a report's JSON (report.json's bytes) with an Ed25519 key: a DSSE envelope,
// the same bytes for the same key and report.
func Sign(reportJSON []byte, key ed25519.PrivateKey) ([]byte, error) {
	env, err := evidence.Sign(key, PayloadType, reportJSON)
	if err != nil {
		return nil, fmt.Errorf("sign report: %w", err)
	}
	return env, nil
}

// ErrSignature is CheckSigned's refusal of a report whose signature does not hold: the
// envelope is not signed by the key, is not a report's, or is not the report given.
var ErrSignature = errors.New("signature does not hold")

// A CheckedReport is a signed report whose signature holds: the report and the id of the
// key that signed it.
type CheckedReport struct {
	Report *Report
	KeyID  string
}

// CheckSigned checks a signed report: the envelope's signature under pub, its payload type
// (PayloadType), that its payload is a report, and, if reportJSON is not nil, that it is
// those exact bytes. A failed check wraps ErrSignature; an envelope that cannot be read
// at all is an error of its own.
func CheckSigned(envelope []byte, pub ed25519.PublicKey, reportJSON []byte) (*CheckedReport, error) {
	v, err := evidence.Verify(envelope, []ed25519.PublicKey{pub}, 1, PayloadType)
	switch {
	case errors.Is(err, evidence.ErrNotVerified):
		return nil, fmt.Errorf("%w: %v", ErrSignature, err)
	case err != nil:
		return nil, err
	}
	if reportJSON != nil && !bytes.Equal(v.Payload, reportJSON) {
		return nil, fmt.Errorf("%w: the report is not the one signed (its bytes differ from the envelope's payload)", ErrSignature)
	}
	rep, err := ReadJSON(bytes.NewReader(v.Payload), "in the envelope")
	if err != nil {
		return nil, fmt.Errorf("%w: the signed payload is not a report: %v", ErrSignature, err)
	}
	return &CheckedReport{Report: rep, KeyID: v.KeyIDs[0]}, nil
}

// MaxEnvelopeBytes bounds the DSSE envelope CheckSignedFiles reads: the report it carries
// (at most MaxJSONBytes) in base64, with room for the signatures.
const MaxEnvelopeBytes = MaxJSONBytes/3*4 + 1<<20

// MaxPublicKeyBytes bounds a public key file: a PEM of a few lines.
const MaxPublicKeyBytes = 1 << 16

// CheckSignedFiles is CheckSigned on files (audit check-report): the signer's public key
// (PEM) at keyPath, the envelope at envelopePath and, if a reportPath is given (one; an
// empty name is a file that cannot be read, not none), the report it must hold byte for
// byte. Each file is read within its bound (MaxPublicKeyBytes,
// MaxEnvelopeBytes, MaxJSONBytes), so a huge or endless file is refused before it is read
// whole. The key's errors name --key; a failed check wraps ErrSignature, and it and the
// envelope's other errors begin with envelopePath.
func CheckSignedFiles(keyPath, envelopePath string, reportPath ...string) (*CheckedReport, error) {
	pubPEM, err := regular.ReadFile(keyPath, MaxPublicKeyBytes)
	if err != nil {
		return nil, fmt.Errorf("--key: %w", err)
	}
	pub, err := evidence.ParsePublicKey(pubPEM)
	if err != nil {
		return nil, fmt.Errorf("--key %s: %w", keyPath, err)
	}
	env, err := regular.ReadFile(envelopePath, MaxEnvelopeBytes)
	if err != nil {
		return nil, err
	}
	var report []byte
	if len(reportPath) > 0 {
		if report, err = regular.ReadFile(reportPath[0], MaxJSONBytes); err != nil {
			return nil, err
		}
	}
	c, err := CheckSigned(env, pub, report)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", envelopePath, err)
	}
	return c, nil
}
