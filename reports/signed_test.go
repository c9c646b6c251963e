package reports

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"

	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"errors"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/evidence"
)

// Every rendering says whether the trials were authenticated, in the same words; a report
// that runs no trials says nothing of it, and its JSON carries no field.
func TestTrialEvidenceRendered(t *testing.T) {
	for _, v := range []string{TrialsAuthenticated, TrialsUnauthenticated, ""} {
		r := sample()
		r.TrialEvidence = v
		want := EvidenceText(v)
		js, err := r.JSON()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(js), `"trial_evidence"`); got != (v != "") {
			t.Errorf("%q: trial_evidence in the JSON: %v", v, got)
		}
		back, err := ReadJSON(bytes.NewReader(js), "r.json")
		if err != nil || back.TrialEvidence != v {
			t.Errorf("%q: round trip: %v, %q", v, err, back.TrialEvidence)
		}
		var md, page strings.Builder
		if err := r.Markdown(&md); err != nil {
			t.Fatal(err)
		}
		if err := r.HTML(&page); err != nil {
			t.Fatal(err)
		}
		if v == "" {
			if strings.Contains(md.String(), "Trial evidence") || strings.Contains(page.String(), "trial-evidence") {
				t.Errorf("a report without trials speaks of their evidence")
			}
			continue
		}
		if !strings.Contains(md.String(), "\n"+want+"\n") {
			t.Errorf("%q: Markdown lacks %q", v, want)
		}
		if !strings.Contains(page.String(), `<p class="small" id="trial-evidence">`+html.EscapeString(want)+`</p>`) {
			t.Errorf("%q: HTML lacks %q", v, want)
		}
		if tool, err := exec.LookPath("pdftotext"); err == nil {
			var pdf bytes.Buffer
			if err := r.PDF(&pdf); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(t.TempDir(), "r.pdf")
			os.WriteFile(p, pdf.Bytes(), 0o644)
			out, err := exec.Command(tool, p, "-").Output()
			if err != nil {
				t.Fatal(err)
			}
			if text := strings.Join(strings.Fields(string(out)), " "); !strings.Contains(text, want) {
				t.Errorf("%q: the PDF lacks %q:\n%s", v, want, text)
			}
		}
	}
	if !strings.Contains(EvidenceText(TrialsUnauthenticated), "unauthenticated") || !strings.Contains(EvidenceText(TrialsAuthenticated), "authenticated") {
		t.Error("the sentences do not say which")
	}
}

// A signed report checks out with its key and its bytes; with another key, other bytes,
// an edited payload or a payload that is not a report it does not, and an envelope that is
// not one is an error apart.
func TestSignedReport(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	otherPub, otherPriv, _ := ed25519.GenerateKey(rand.Reader)
	js, err := sample().JSON()
	if err != nil {
		t.Fatal(err)
	}
	env, err := Sign(js, priv)
	if err != nil {
		t.Fatal(err)
	}
	c, err := CheckSigned(env, pub, js)
	if err != nil || c.Report.Summary.Verdict != sample().Summary.Verdict {
		t.Fatalf("CheckSigned: %v", err)
	}
	if _, err := CheckSigned(env, pub, nil); err != nil {
		t.Fatalf("CheckSigned without the report: %v", err)
	}
	edited := bytes.Replace(js, []byte(`"verdict": "FAIL"`), []byte(`"verdict": "PASS"`), 1)
	if bytes.Equal(edited, js) {
		t.Fatal("the test edits nothing")
	}
	var e map[string]any
	json.Unmarshal(env, &e)
	notReport, _ := Sign([]byte(`{"hello":1}`), priv)
	otherSigned, _ := Sign(js, otherPriv)
	for _, c := range []struct {
		name   string
		env    []byte
		pub    ed25519.PublicKey
		report []byte
	}{
		{"another key", env, otherPub, js},
		{"signed by another key", otherSigned, pub, js},
		{"report edited", env, pub, edited},
		{"payload edited", bytes.Replace(env, []byte(`"payload": "`), []byte(`"payload": "eyJ9`), 1), pub, nil},
		{"not a report", notReport, pub, nil},
	} {
		if _, err := CheckSigned(c.env, c.pub, c.report); !errors.Is(err, ErrSignature) {
			t.Errorf("%s: %v; want ErrSignature", c.name, err)
		}
	}
	if _, err := CheckSigned([]byte("{}}"), pub, nil); err == nil || errors.Is(err, ErrSignature) {
		t.Errorf("not an envelope: %v; want an error of its own", err)
	}
}

// CheckSignedFiles reads the three files and checks them as CheckSigned does; its errors
// say which input failed (--key, the envelope's path), a failed check stays ErrSignature,
// an empty report name is a file that cannot be read (not "no report"), and a key file
// larger than its bound is refused unread.
func TestCheckSignedFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	js, err := sample().JSON()
	if err != nil {
		t.Fatal(err)
	}
	env, err := Sign(js, priv)
	if err != nil {
		t.Fatal(err)
	}
	_, _, pubPEM, err := evidence.GenerateKeys(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKIXPublicKey(pub)
	keyPath := write("sign.pub", pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
	otherKey := write("other.pub", pubPEM)
	envPath, repPath := write("report.json.dsse", env), write("report.json", js)
	if c, err := CheckSignedFiles(keyPath, envPath, repPath); err != nil || c.Report.Summary.Verdict != sample().Summary.Verdict {
		t.Fatalf("CheckSignedFiles = %v, %v", c, err)
	}
	if _, err := CheckSignedFiles(keyPath, envPath); err != nil {
		t.Fatalf("CheckSignedFiles without the report: %v", err)
	}
	for _, c := range []struct {
		name      string
		err       error
		signature bool
		prefix    string
	}{
		{"no key", second(CheckSignedFiles(filepath.Join(dir, "none.pub"), envPath)), false, "--key: "},
		{"not a key", second(CheckSignedFiles(envPath, envPath)), false, "--key " + envPath + ": "},
		{"huge key", second(CheckSignedFiles(write("huge.pub", make([]byte, MaxPublicKeyBytes+1)), envPath)), false, "--key: "},
		{"no envelope", second(CheckSignedFiles(keyPath, filepath.Join(dir, "none.dsse"))), false, ""},
		{"empty report name", second(CheckSignedFiles(keyPath, envPath, "")), false, ""},
		{"another key", second(CheckSignedFiles(otherKey, envPath, repPath)), true, envPath + ": "},
		{"not an envelope", second(CheckSignedFiles(keyPath, repPath)), false, repPath + ": "},
	} {
		if c.err == nil || errors.Is(c.err, ErrSignature) != c.signature || !strings.HasPrefix(c.err.Error(), c.prefix) {
			t.Errorf("%s: %v; want an error beginning %q (a failed signature: %t)", c.name, c.err, c.prefix, c.signature)
		}
	}
}

func second[T any](_ T, err error) error { return err }
