// Command gen writes the hostile corpus of issue 41 (package corpus) into a folder:
//
//	go run ./bench/hostile/gen -out DIR
//
// and bench/hostile/run.sh BINARY DIR runs it. The corpus is about 250 MB; its bytes depend
// on nothing but the generator.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/unlearnaudit/unlearnaudit/bench/hostile/corpus"
)

func main() {
	out := flag.String("out", "", "the folder to write the corpus into (it must not exist)")
	divide := flag.Int("divide", 1, "divide every size by this (1: the issue's sizes)")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: go run ./bench/hostile/gen -out DIR [-divide N]")
		os.Exit(2)
	}
	if _, err := os.Lstat(*out); err == nil {
		fmt.Fprintf(os.Stderr, "gen: %s exists; give a new folder\n", *out)
		os.Exit(2)
	}
	cases, err := corpus.Write(*out, corpus.Options{Divide: *divide})
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	fmt.Printf("%d cases in %s (list: %s)\n", len(cases), *out, corpus.IndexFile)
}
