package outdir

import (
	"fmt"
	"os"
	"path/filepath"
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

// resolve is path made absolute, with the symbolic links of its longest existing prefix
// followed: two names of one place resolve alike, whether or not the place exists yet.
func resolve(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	var rest []string
	for p := abs; ; p = filepath.Dir(p) {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(append([]string{real}, rest...)...)
		}
		if p == filepath.Dir(p) {
			return abs
		}
		rest = append([]string{filepath.Base(p)}, rest...)
	}
}
