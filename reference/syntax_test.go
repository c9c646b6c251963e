package reference

import (
	"strings"
	"testing"
)

// The CSV reader took Go's number syntax: 0x1p3 read as 8 and 1_000 as 1000, where NumPy,
// pandas and R see text. Only plain decimals are read, in every text format; the ordinary
// spellings of a number still are.
func TestPlainDecimalsOnly(t *testing.T) {
	for _, bad := range []string{"0x1p3", "0X10", "1_000", "0b101", "0o17", "1e", "1e+", ".", "+", "-", "1.2.3", "٣", "1e5_0", "0x1.8p1"} {
		_, err := ParseCSV(strings.NewReader("1,2,1\n3,"+bad+",1\n"), "d.csv", CSVOptions{LabelColumn: -1})
		wantInputError(t, err, "d.csv", 2, "column 2")
		if !strings.Contains(err.Error(), "not a plain decimal") && !strings.Contains(err.Error(), "not a number") {
			t.Errorf("%q: %v", bad, err)
		}
		_, err = ParseLIBSVM(strings.NewReader("1 1:2\n-1 1:"+bad+"\n"), "d.svm", LIBSVMOptions{})
		if err == nil {
			t.Errorf("LIBSVM value %q read", bad)
		}
	}
	for s, want := range map[string]float64{"8": 8, "+8": 8, "-0.5": -0.5, ".5": 0.5, "5.": 5, "1e3": 1000, "1E-3": 0.001, "2.5e+2": 250, " 7 ": 7} {
		ds, err := ParseCSV(strings.NewReader("1,"+s+",1\n"), "d.csv", CSVOptions{LabelColumn: -1})
		if err != nil || ds.Row(0)[1] != want {
			t.Errorf("%q: %v; want %v", s, err, want)
		}
	}
}
