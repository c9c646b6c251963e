package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/pipeline"
	"github.com/unlearnaudit/unlearnaudit/internal/cliflag"
	"github.com/unlearnaudit/unlearnaudit/internal/clip"
)

// reproduceUsage lists every registered method's experiments.
func reproduceUsage() string {
	var b strings.Builder
	b.WriteString("usage: audit reproduce <experiment> [flags]\n\nExperiments:\n")
	pipeline.WriteExperiments(&b)
	b.WriteString("\nRun \"audit reproduce <experiment> -h\" for its flags.\n")
	return b.String()
}

func runReproduce(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, reproduceUsage())
		return fmt.Errorf("reproduce: name an experiment")
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, reproduceUsage())
		return nil
	}
	e, ok := audit.ExperimentNamed(args[0])
	if !ok {
		fmt.Fprint(stderr, reproduceUsage())
		return fmt.Errorf("reproduce: unknown experiment %s", clip.Quote(args[0]))
	}
	fs := flag.NewFlagSet("reproduce "+e.Name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "reproduce-"+e.Name, "directory for "+e.Name+".json, "+e.Name+".md and any figures")
	asJSON := fs.Bool("json", false, "print the JSON result on stdout instead of the summary")
	var force bool
	forceFlag(fs, &force)
	var date string
	dateFlag(fs, &date)
	eargs := audit.BindFlags(fs, e.Params)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: audit reproduce %s [flags]\n\n%s\n\nExample:\n  audit reproduce %s --out reproduce-%s\n\nFlags:\n", e.Name, e.About, e.Name, e.Name)
		cliflag.Print(fs.Output(), fs)
	}
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	command := "reproduce " + e.Name
	date, err := auditDate(command, date)
	if err != nil {
		return err
	}
	if err := pipeline.CheckOut(command, *out, nil); err != nil {
		return err
	}
	d, err := pipeline.OpenOut(command, *out, force)
	if err != nil {
		return err
	}
	defer d.Close()
	res, err := pipeline.Reproduce(ctx, e, eargs, audit.ExperimentEnv{Out: *out, Version: version, Progress: stderr}, d, date)
	if err != nil {
		return pipeline.OutError(command, err) // the folder's refusals with the way out, else "reproduce NAME: …"
	}
	if *asJSON {
		if _, err := stdout.Write(res.JSON); err != nil {
			return err
		}
	} else if _, err := io.WriteString(stdout, res.Text); err != nil {
		return err
	}
	return verdictErr(res.Verdict)
}
