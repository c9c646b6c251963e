package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/unlearnaudit/unlearnaudit/audit/evidence"
	"github.com/unlearnaudit/unlearnaudit/audit/pipeline"
	"github.com/unlearnaudit/unlearnaudit/internal/cliflag"
	"github.com/unlearnaudit/unlearnaudit/internal/shell"
	"github.com/unlearnaudit/unlearnaudit/reports"
)

// evidenceFlags are the keys of demo, run and merge: the evidence key that tags the
// trials, and the signing key of the report.
type evidenceFlags struct {
	keyFile  string // --evidence-key; "" reads evidence.KeyEnv
	signFile string // --sign-key
}

func (e *evidenceFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&e.keyFile, "evidence-key", "", "a file holding the evidence key (hex, ≥ 32 bytes; openssl rand -hex 32, or audit keygen): every trial kept is tagged with HMAC-SHA256 under it and checked when read back, so trials forged or edited by anyone without the key are refused; default: the file $"+evidence.KeyEnv+" names, if set")
	fs.StringVar(&e.signFile, "sign-key", "", "an Ed25519 private key (PKCS#8 PEM: openssl genpkey -algorithm ed25519, or audit keygen): sign report.json into report.json.dsse (a DSSE envelope; audit check-report verifies it)")
}

// keyFile is the evidence key's file: the flag's, else the environment's.
func (e evidenceFlags) file() string { return evidence.KeyFile(e.keyFile, getenv) }

// load reads the keys before any work; an unreadable or unfit key is bad input.
func (e evidenceFlags) load(command string) (*evidence.Key, ed25519.PrivateKey, error) {
	key, signer, err := evidence.LoadKeys(e.file(), e.signFile)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", command, err)
	}
	return key, signer, nil
}

// args are the flags that pass the keys on to the command audit merge replays.
func (e evidenceFlags) args() []string {
	var out []string
	if f := e.file(); f != "" {
		out = append(out, "--evidence-key="+f)
	}
	if e.signFile != "" {
		out = append(out, "--sign-key="+e.signFile)
	}
	return out
}

// runCheckReport verifies a signed report: exit 0 when the signature holds (and the
// report given is the one signed), 1 when it does not, 2 when the input cannot be read.
func runCheckReport(args []string, stdout, stderr io.Writer) error {
	var keyPath string
	fs := flag.NewFlagSet("check-report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&keyPath, "key", "", "the signer's Ed25519 public key (PEM: openssl pkey -in KEY -pubout, or audit keygen's sign.pub) (required)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: audit check-report --key PUB.pem REPORT.json.dsse [REPORT.json]

Checks a report signed with --sign-key: the DSSE envelope's Ed25519 signature under the
public key, its payload type, and, if REPORT.json is given, that it is byte for byte the
report signed. Exit 0: the signature holds; 1: it does not (another key, an edited
envelope or report); 2: a file cannot be read or is not an envelope or key.

Flags:`)
		cliflag.Print(fs.Output(), fs)
	}
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if keyPath == "" || len(files) < 1 || len(files) > 2 {
		return fmt.Errorf("check-report: want --key PUB.pem, the envelope and optionally the report (audit check-report --key PUB.pem report.json.dsse report.json)")
	}
	c, err := reports.CheckSignedFiles(keyPath, files[0], files[1:]...)
	if errors.Is(err, reports.ErrSignature) {
		fmt.Fprintf(stdout, "NOT VERIFIED: %v\n", err)
		return checkFailed{}
	}
	if err != nil {
		return fmt.Errorf("check-report: %w", err)
	}
	what := "its payload"
	if len(files) == 2 {
		what = files[1] + ", byte for byte"
	}
	fmt.Fprintf(stdout, "verified: %s is signed by the key %s (Ed25519, id %s) and holds %s: a report of audit %s, seed %d, overall %s\n",
		files[0], keyPath, c.KeyID, what, c.Report.Command, c.Report.Seed, c.Report.Summary.Verdict)
	return nil
}

// checkFailed is a check that ran and did not hold: exit 1.
type checkFailed struct{}

func (checkFailed) Error() string { return "the signature does not hold" }

// runKeygen writes a new evidence key and Ed25519 key pair into a folder, refusing to
// replace any file.
func runKeygen(args []string, stdout, stderr io.Writer) error {
	var dir string
	fs := flag.NewFlagSet("keygen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&dir, "out", "", "the folder to write evidence.key, sign.key and sign.pub into (required; created if missing, files in it never replaced)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: audit keygen --out DIR

Writes DIR/evidence.key (the evidence key, hex, mode 0600: give it to run, demo and
merge with --evidence-key or $`+evidence.KeyEnv+`), DIR/sign.key (an Ed25519
private key, PKCS#8 PEM, mode 0600: --sign-key) and DIR/sign.pub (its public key, PEM:
audit check-report --key). The same with OpenSSL:
  openssl rand -hex 32 > evidence.key && chmod 600 evidence.key
  openssl genpkey -algorithm ed25519 -out sign.key && chmod 600 sign.key
  openssl pkey -in sign.key -pubout -out sign.pub

Flags:`)
		cliflag.Print(fs.Output(), fs)
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if dir == "" {
		return fmt.Errorf("keygen: --out is required")
	}
	if err := evidence.WriteKeyFiles(dir, rand.Reader); err != nil {
		return fmt.Errorf("keygen: %w", err)
	}
	fmt.Fprintf(stdout, "wrote %s (evidence key), %s (signing key) and %s (its public key)\nkeep the first two secret; export %s=%s\n",
		pipeline.ShownPath(filepath.Join(dir, "evidence.key")), pipeline.ShownPath(filepath.Join(dir, "sign.key")), pipeline.ShownPath(filepath.Join(dir, "sign.pub")), evidence.KeyEnv, shell.Quote(absPath(filepath.Join(dir, "evidence.key"))))
	return nil
}

// absPath is p made absolute, or p if it cannot be.
func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
