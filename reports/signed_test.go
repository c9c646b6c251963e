package reports

import (
	"bytes"
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
