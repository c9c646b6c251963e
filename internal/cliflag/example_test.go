package cliflag_test

import (
	"flag"
	"fmt"
	"os"

	"github.com/unlearnaudit/unlearnaudit/internal/cliflag"
)

// The package comment's flag set: the old name still parses and sets the new flag, and
// the help leaves the alias out.
func ExampleAlias() {
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	f := fs.Float64("power-against", 2, "the violation to detect: true ε = F × the claim")
	cliflag.Alias(fs, "factor", "power-against") // the old name still parses
	fs.Usage = func() { cliflag.Print(fs.Output(), fs) }
	if err := fs.Parse([]string{"--factor=3"}); err != nil {
		panic(err)
	}
	fmt.Println(*f)
	cliflag.Print(os.Stdout, fs)
	// Output:
	// 3
	//   --power-against float
	//     	the violation to detect: true ε = F × the claim (default 2)
}
