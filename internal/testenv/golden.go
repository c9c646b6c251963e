package testenv

import (
	"encoding/json"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Printed parses a golden value as printed in a paper or spec and returns it with the
// tolerance its digits carry: half a unit of the last printed digit ("0.0932134" → ±5e-8,
// "2.78712e-12" → ±5e-18, "1e5" → ±5e4, "100000" → ±0.5).
func Printed(s string) (value, tol float64, err error) {
	value, err = strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, 0, err
	}
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		if exp, err = strconv.Atoi(s[i+1:]); err != nil {
			return 0, 0, err
		}
	}
	decimals := 0
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		decimals = len(mant) - i - 1
	}
	return value, 0.5 * math.Pow(10, float64(exp-decimals)), nil
}

// ReadGolden decodes the package's testdata/golden.json into a T, failing the test with
// the file's name when it cannot.
func ReadGolden[T any](t testing.TB) T {
	t.Helper()
	const path = "testdata/golden.json"
	var g T
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, &g)
	}
	if err != nil {
		t.Fatalf("golden values %s: %v", path, err)
	}
	return g
}
