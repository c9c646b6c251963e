package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/audit/pipeline"
	"github.com/unlearnaudit/unlearnaudit/internal/cliflag"
	"github.com/unlearnaudit/unlearnaudit/reports"
)

// methodNames lists the methods with a certificate for usage messages.
func methodNames() string { return strings.Join(pipeline.Certifiers(), "|") }

func runBounds(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintf(stderr, "usage: audit bounds %s [flags]   (run \"audit bounds METHOD -h\" for the flags)\n", methodNames())
		if len(args) == 0 {
			return fmt.Errorf("bounds: name a method (%s)", strings.ReplaceAll(methodNames(), "|", ", "))
		}
		return flag.ErrHelp
	}
	m, b, err := pipeline.CertifierNamed(args[0])
	if err != nil {
		return fmt.Errorf("bounds: %w", err)
	}
	fs, variant, margs := b.FlagSet("bounds " + m.Name())
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print one JSON object")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: audit bounds %s [flags]\n\n%s --json writes the same as one object.\n\nExample:\n  audit bounds %s %s\n\nFlags:\n", m.Name(), b.About, m.Name(), b.Example)
		cliflag.Print(fs.Output(), fs)
	}
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	rows, err := b.Certify(ctx, *variant, margs)
	if err != nil {
		return fmt.Errorf("bounds %s: %w", m.Name(), err)
	}
	return reports.WriteCertificate(stdout, rows, *asJSON)
}
