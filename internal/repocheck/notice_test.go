package repocheck

import (
	"bytes"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// copyrightLine matches a line that states a copyright: the word, an optional colon, "(c)"
// or "©", then a year or "by"; and Go's authors named, however the line is broken.
// Built from parts so that this file does not match it itself.
var copyrightLine = regexp.MustCompile(`(?i)` + `copy` + `right:?\s*(\(c\)|©)?\s*(\d{4}|by\s)|` + `The Go ` + `Authors`)

// ownNotice is the project's own line, in LICENSE and NOTICE.
const ownNotice = "The unlearnaudit Authors"

// noticeFiles parses NOTICE's "Files:" entries (a path or a pattern per line, continued
// on indented lines) into the patterns they list.
func noticeFiles(notice string) []string {
	var pats []string
	in := false
	for _, line := range strings.Split(notice, "\n") {
		if rest, ok := strings.CutPrefix(line, "Files:"); ok {
			in = true
			line = rest
		} else if !in || !strings.HasPrefix(line, " ") {
			in = false
			continue
		}
		if f := strings.TrimSpace(line); f != "" {
			pats = append(pats, f)
		}
	}
	return pats
}

// Every file of the repository that carries a copyright line other than the project's own
// (copied code, data, fonts) is listed in NOTICE, and every entry of NOTICE names files
// that exist, so the list can neither miss a copied file nor outlive one. Planted: mia/
// metrics.go taken out of NOTICE fails it ("carries … not listed"), and an entry naming
// a file that is not there fails it ("matches no file").
func TestNoticeListsEveryThirdPartyFile(t *testing.T) {
	root := repoRoot(t)
	pats := noticeFiles(readRoot(t, root, "NOTICE"))
	if len(pats) < 5 {
		t.Fatalf("NOTICE lists %d file patterns (%q): its Files: entries were not read", len(pats), pats)
	}
	matched := make([]int, len(pats))
	carrying := 0
	checked := walkRepo(t, root, func(rel string, b []byte) {
		for i, p := range pats {
			if ok, _ := path.Match(p, rel); ok {
				matched[i]++
			}
		}
		if rel == "LICENSE" || rel == "NOTICE" || strings.HasPrefix(rel, "LICENSES/") || strings.HasSuffix(rel, ".gz") {
			return // the licences themselves; compressed bytes hold no readable line
		}
		for _, line := range bytes.Split(b, []byte("\n")) {
			if !copyrightLine.Match(line) || bytes.Contains(line, []byte(ownNotice)) {
				continue
			}
			carrying++
			if !slices.ContainsFunc(pats, func(p string) bool { ok, _ := path.Match(p, rel); return ok }) {
				t.Errorf("%s carries a copyright line not listed in NOTICE: %q; add the file to NOTICE with its source and licence", rel, clipLine(line))
			}
			break
		}
	})
	if checked < 500 {
		t.Fatalf("only %d files checked under %s: the walk missed the repository", checked, root)
	}
	if carrying < 4 {
		t.Fatalf("%d files carry a third-party copyright line, want at least Go's two and the licences of the fonts and data sets: the pattern matches nothing", carrying)
	}
	for i, p := range pats {
		if matched[i] == 0 {
			t.Errorf("NOTICE lists %s, which matches no file: remove it or fix the path", p)
		}
	}
}

// clipLine shortens a line for an error message.
func clipLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return s
}

// Every module go.mod requires is named in NOTICE with its licence: a binary built from
// the repository links them, and whoever ships it must reproduce their notices. Planted:
// gonum's line removed from NOTICE fails it.
func TestNoticeListsEveryModule(t *testing.T) {
	root := repoRoot(t)
	notice := readRoot(t, root, "NOTICE")
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	var mods []string
	block := false
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 2 && f[0] == "require" && f[1] == "(":
			block = true
		case block && len(f) > 0 && f[0] == ")":
			block = false
		case block && len(f) >= 2:
			mods = append(mods, f[0])
		case len(f) >= 3 && f[0] == "require":
			mods = append(mods, f[1])
		}
	}
	if len(mods) < 5 {
		t.Fatalf("go.mod requires %d modules (%q): the parse missed them", len(mods), mods)
	}
	word := regexp.MustCompile(`[\s,]`)
	names := map[string]bool{}
	for _, line := range strings.Split(notice, "\n") {
		if rest, ok := strings.CutPrefix(line, "Module:"); ok {
			for _, m := range word.Split(rest, -1) {
				names[m] = true
			}
		}
	}
	for _, m := range mods {
		if !names[m] {
			t.Errorf("go.mod requires %s, which NOTICE does not name in a Module: line with its copyright and licence", m)
		}
	}
}
