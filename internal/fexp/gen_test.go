package fexp

import (
	"fmt"
	"math"
	"os"
	"testing"
)

// With FEXP_GOLDEN=1 on an amd64 CPU with AVX and FMA, print golden_test.go's tables from
// math.Exp and math.Pow: go test -run TestPrintKnownValues -v | sed -n '/^package/,$p'.
func TestPrintKnownValues(t *testing.T) {
	if os.Getenv("FEXP_GOLDEN") == "" {
		t.Skip("set FEXP_GOLDEN=1 to print the table")
	}
	if !mathFuses {
		t.Fatal("math.Exp does not take its FMA path here")
	}
	fmt.Print("package fexp\n\n// knownValues are (x, math.Exp(x)) bit patterns from an amd64 CPU with AVX and FMA\n// (TestPrintKnownValues with FEXP_GOLDEN=1 printed them).\nvar knownValues = []struct{ x, want uint64 }{\n")
	for _, x := range goldenArgs() {
		fmt.Printf("\t{%#016x, %#016x}, // %v\n", math.Float64bits(x), math.Float64bits(math.Exp(x)), x)
	}
	fmt.Print("}\n\n// knownPows are (x, y, math.Pow(x, y)) bit patterns from the same CPU.\nvar knownPows = []struct{ x, y, want uint64 }{\n")
	for _, p := range powArgs() {
		fmt.Printf("\t{%#016x, %#016x, %#016x}, // %v^%v\n", math.Float64bits(p[0]), math.Float64bits(p[1]), math.Float64bits(math.Pow(p[0], p[1])), p[0], p[1])
	}
	fmt.Print("}\n")
}
