package outdir_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/unlearnaudit/unlearnaudit/internal/outdir"
)

// A command writes its report into a folder it opened; a file it did not write is
// refused, and a second writer is turned away while the first holds the folder.
func Example() {
	dir := filepath.Join(os.TempDir(), "outdir-example")
	defer os.RemoveAll(dir)

	d, err := outdir.Open(dir, outdir.Options{})
	if err != nil {
		panic(err)
	}
	if err := d.WriteFiles(map[string][]byte{"report.json": []byte("{}\n")}); err != nil {
		panic(err)
	}
	_, err = outdir.Open(dir, outdir.Options{})
	var locked *outdir.LockedError
	fmt.Println("second writer refused:", errors.As(err, &locked) && locked.PID == os.Getpid())
	d.Close()

	// the user's own notes, then another run: it replaces its own report, not the notes
	os.WriteFile(filepath.Join(dir, "report.md"), []byte("my notes\n"), 0o644)
	d, err = outdir.Open(dir, outdir.Options{})
	if err != nil {
		panic(err)
	}
	defer d.Close()
	fmt.Println("own report:", d.Claim("report.json"))
	var foreign *outdir.ForeignError
	fmt.Println("user's file refused:", errors.As(d.Remove("report.json", "report.md"), &foreign), foreign.Names)
	_, err = os.Stat(filepath.Join(dir, "report.json"))
	fmt.Println("nothing removed:", err == nil)
	// Output:
	// second writer refused: true
	// own report: <nil>
	// user's file refused: true [report.md]
	// nothing removed: true
}

// CheckOut refuses an output that would replace an input, or lie inside a folder read.
func ExampleCheckOut() {
	fmt.Println(outdir.CheckOut("--out", "r.json", outdir.Input{Flag: "--in", Path: "./r.json"}))
	fmt.Println(outdir.CheckOut("--out", "shards/shard-0-of-2/x", outdir.Input{Flag: "shard part", Path: "shards/shard-0-of-2", Tree: true}))
	fmt.Println(outdir.CheckOut("--out", ""))
	// Output:
	// --out r.json is the input --in ./r.json: the output would replace what it reads; name another
	// --out shards/shard-0-of-2/x is inside shard part shards/shard-0-of-2, whose files are read: name a folder outside it
	// --out: empty; name the output ("." for the current folder)
}
