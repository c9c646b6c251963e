package outdir

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
)

// An Input is a file or folder a command reads, by the flag (or field) that names it.
// With Tree the output may not lie inside it either: a shard's part folder, whose files
// audit merge reads.
type Input struct {
	Flag, Path string
	Tree       bool
}

// CheckOut refuses an output path, named by flag, that is empty, that is an input (the
// same path, through symbolic links, or the same file), or that lies inside an input
// given as a Tree. Inputs with an empty Path are skipped.
func CheckOut(flag, out string, inputs ...Input) error {
	if out == "" {
		return fmt.Errorf("%s: empty; name the output (\".\" for the current folder)", flag)
	}
	if err := checkLength(flag, out); err != nil {
		return err
	}
	for _, in := range inputs {
		if err := checkLength(in.Flag, in.Path); err != nil {
			return err
		}
	}
	o := resolve(out)
	oi, oerr := os.Stat(out)
	for _, in := range inputs {
		if in.Path == "" {
			continue
		}
		i := resolve(in.Path)
		same := o == i
		if ii, err := os.Stat(in.Path); err == nil && oerr == nil && os.SameFile(oi, ii) {
			same = true
		}
		if same {
			return fmt.Errorf("%s %s is the input %s %s: the output would replace what it reads; name another", flag, out, in.Flag, in.Path)
		}
		if rel, err := filepath.Rel(i, o); in.Tree && err == nil && filepath.IsLocal(rel) {
			return fmt.Errorf("%s %s is inside %s %s, whose files are read: name a folder outside it", flag, out, in.Flag, in.Path)
		}
	}
	return nil
}

// MaxPath is the longest path CheckOut takes, in bytes: Linux's PATH_MAX, beyond which no
// system call opens it. A longer one is refused at once, and resolving it (a walk of its
// folders) never costs time in proportion to what an attacker can type.
const MaxPath = 4096

// checkLength refuses a path longer than MaxPath, naming its flag and echoing its head.
func checkLength(flag, path string) error {
	if len(path) > MaxPath {
		return fmt.Errorf("%s %s: a path of %d bytes; the system opens at most %d", flag, clip.Quote(path), len(path), MaxPath)
	}
	return nil
}

// resolve is path made absolute, with the symbolic links of its longest existing prefix
// followed: two names of one place resolve alike, whether or not the place exists yet.
// The longest prefix that resolves is found by bisection over the path's folders (a
// prefix of one that resolves does too): O(log n) resolutions, not one per folder.
func resolve(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	// ends[i] is where the prefix of i+1 components ends in abs
	var ends []int
	for i := 1; i < len(abs); i++ {
		if os.IsPathSeparator(abs[i]) {
			ends = append(ends, i)
		}
	}
	ends = append(ends, len(abs))
	lo, hi := -1, len(ends)-1 // -1 is the root, which resolves; ends[hi] (abs) does not
	prefix := func(i int) string {
		if i < 0 {
			return abs[:1]
		}
		return abs[:ends[i]]
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if _, err := filepath.EvalSymlinks(prefix(mid)); err == nil {
			lo = mid
		} else {
			hi = mid
		}
	}
	real, err := filepath.EvalSymlinks(prefix(lo))
	if err != nil {
		return abs
	}
	return filepath.Join(real, abs[len(prefix(lo)):])
}
