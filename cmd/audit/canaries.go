package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/unlearnaudit/unlearnaudit/audit/canary"
	"github.com/unlearnaudit/unlearnaudit/audit/pipeline"
	"github.com/unlearnaudit/unlearnaudit/internal/atomicfile"
	"github.com/unlearnaudit/unlearnaudit/internal/cliflag"
	"github.com/unlearnaudit/unlearnaudit/internal/outdir"
)

// runCanaries draws a one-run audit's canary plan (canary.NewCanaryPlan) and writes it.
func runCanaries(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("canaries", flag.ContinueOnError)
	fs.SetOutput(stderr)
	seed := fs.Uint64("seed", 0, "the plan's seed; record it before training (required)")
	m := fs.Int("canaries", 1000, "how many canaries")
	out := fs.String("out", "canaries.json", "the plan file to write (not overwritten)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: audit canaries --seed S [--canaries M] [--out FILE]\n\nDraws which canaries a one-run audit trains on: canary i is included (then deleted) when\nincluded[i] is 1, each with probability 1/2 from the seed. Train on your data plus the\nincluded canaries, delete every included canary with your unlearner, score all M canaries\nunder the published model (a loss or a confidence each, in canary order), then\n\n  audit verify --spec claim.json --one-run canaries.json --unlearned canary_scores.npy\n\nFlags:")
		cliflag.Print(fs.Output(), fs)
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if !cliflag.Set(fs)["seed"] {
		return fmt.Errorf("canaries: --seed is required: the plan is drawn from it, and verify checks the plan against it")
	}
	if err := outdir.CheckOut("--out", *out); err != nil {
		return fmt.Errorf("canaries: %v", err)
	}
	p, err := canary.NewCanaryPlan(*seed, *m)
	if err != nil {
		return fmt.Errorf("canaries: --canaries: %v", err)
	}
	if err := canary.WritePlan(*out, p); err != nil {
		if errors.As(err, new(*atomicfile.NotCreatedError)) {
			return fmt.Errorf("canaries: --out: %w", err)
		}
		return fmt.Errorf("canaries: %w", err)
	}
	fmt.Fprintf(stdout, "plan: %d canaries, %d included (train on them, then delete them), seed %d; written to %s\n", p.Canaries, p.NumIncluded(), p.Seed, pipeline.ShownPath(filepath.Clean(*out)))
	return nil
}
