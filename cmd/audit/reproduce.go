package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/internal/cliflag"
	"github.com/unlearnaudit/unlearnaudit/internal/clip"
	"github.com/unlearnaudit/unlearnaudit/reports"
)

// reproduceUsage lists every registered method's experiments.
func reproduceUsage() string {
	var b strings.Builder
	b.WriteString("usage: audit reproduce <experiment> [flags]\n\nExperiments:\n")
	width := 0
	for _, e := range audit.AllExperiments() {
		width = max(width, len(e.Name))
	}
	// one column for the names, the summaries re-flowed beside it
	for _, e := range audit.AllExperiments() {
		for i, l := range reports.Wrap(strings.Join(strings.Fields(e.Summary), " "), 92-width) {
			name := ""
			if i == 0 {
				name = e.Name
			}
			fmt.Fprintf(&b, "  %-*s  %s\n", width, name, l)
		}
	}
	b.WriteString("\nRun \"audit reproduce <experiment> -h\" for its flags.\n")
	return b.String()
}

func runReproduce(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, reproduceUsage())
		return usagef("reproduce: name an experiment")
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, reproduceUsage())
		return nil
	}
	e, ok := audit.ExperimentNamed(args[0])
	if !ok {
		fmt.Fprint(stderr, reproduceUsage())
		return usagef("reproduce: unknown experiment %s", clip.Quote(args[0]))
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
	if err := checkOut(command, *out, nil); err != nil {
		return err
	}
	d, err := openOut(command, *out, force)
	if err != nil {
		return err
	}
	defer d.Close()
	// the files every experiment writes, refused before it runs if they are not the tool's
	if err := d.Claim(e.Name+".json", e.Name+".md"); err != nil {
		return outErr(command, err)
	}
	rep, err := e.Run(ctx, audit.ExperimentEnv{Out: *out, Version: version, Progress: stderr}, eargs)
	if err != nil {
		return usageError{fmt.Errorf("%s: %w", command, err)}
	}
	rep.Date = date // the experiment returns values: dated and rendered here
	res, err := rep.Render(*out)
	if err != nil {
		return fmt.Errorf("%s: %w", command, err)
	}
	if err := d.WriteFiles(res.Files); err != nil {
		return outErr(command, err)
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
