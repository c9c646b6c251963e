package reference

import (
	"io"
	"strings"
	"testing"
)

// Two loads with different caps, side by side, each get their own: the cap is an argument,
// not process state. One load is held halfway through its file (its reader waits) while
// the other runs to its end; then it reads its last rows and is judged by its own cap. A
// cap kept anywhere shared — a global the loader sets as it starts, as MaxValues was —
// would judge the held load's last rows by the other's cap: it would pass a file its cap
// refuses, or refuse one its cap allows.
func TestLimitsAreEachLoadsOwn(t *testing.T) {
	const head, tail = "1,2,1\n3,4,0\n", "5,6,1\n7,8,0\n" // 4 rows of 2 features: 8 values
	loaders := map[string]func(r io.Reader, name string, lim Limits) error{
		"ParseCSV": func(r io.Reader, name string, lim Limits) error {
			_, err := ParseCSV(r, name, CSVOptions{LabelColumn: -1, Limits: lim})
			return err
		},
		"ParseMatrixCSV": func(r io.Reader, name string, lim Limits) error { // 4 × 3 values
			_, err := ParseMatrixCSV(r, name, Limits{MaxValues: lim.MaxValues * 3 / 2})
			return err
		},
	}
	for name, load := range loaders {
		for _, c := range []struct {
			held, other int // the caps of the held load and of the one run meanwhile
		}{{6, 8}, {8, 6}} {
			pr, pw := io.Pipe()
			held := make(chan error, 1)
			go func() { held <- load(pr, "held.csv", Limits{MaxValues: c.held}) }()
			if _, err := io.WriteString(pw, head); err != nil { // returns once the held load has read it
				t.Fatal(err)
			}
			other := make(chan error, 1)
			go func() { other <- load(strings.NewReader(head+tail), "other.csv", Limits{MaxValues: c.other}) }()
			otherErr := <-other
			io.WriteString(pw, tail)
			pw.Close()
			heldErr := <-held
			for _, l := range []struct {
				file string
				cap  int
				err  error
			}{{"held.csv", c.held, heldErr}, {"other.csv", c.other, otherErr}} {
				switch {
				case l.cap < 8 && (l.err == nil || !strings.Contains(l.err.Error(), l.file+":4") || !strings.Contains(l.err.Error(), "cap of")):
					t.Errorf("%s: %s under a cap of %d (another load's cap %d meanwhile): %v; want row 4 refused", name, l.file, l.cap, c.held+c.other-l.cap, l.err)
				case l.cap >= 8 && l.err != nil:
					t.Errorf("%s: %s under a cap of %d (another load's cap %d meanwhile): %v; want it read", name, l.file, l.cap, c.held+c.other-l.cap, l.err)
				}
			}
		}
	}
}

// The zero Limits is the default cap, and the refusal names the cap it applied.
func TestLimitsZeroIsDefault(t *testing.T) {
	if got := (Limits{}).Values(); got != DefaultMaxValues {
		t.Errorf("Limits{}.Values() = %d; want %d", got, DefaultMaxValues)
	}
	if got := (Limits{MaxValues: 5}).Values(); got != 5 {
		t.Errorf("Limits{MaxValues: 5}.Values() = %d", got)
	}
	err := Limits{MaxValues: 5}.CheckValues("m", 2, 3)
	if err == nil || !strings.Contains(err.Error(), "m: 2 × 3 values exceed the cap of 5 (") {
		t.Errorf("2 × 3 under a cap of 5: %v", err)
	}
	if err := (Limits{}).CheckValues("m", 1, DefaultMaxValues); err != nil {
		t.Errorf("1 × DefaultMaxValues under the default cap: %v", err)
	}
}
