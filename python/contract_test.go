// The Go side of the Python package's contract: the report.json
// it parses is reports.Report, and its field list must be the one the Go type writes.
package python_test

import (
	"encoding/json"
	"flag"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/reports"
)

var update = flag.Bool("update", false, "rewrite unlearnaudit/report_fields.txt from reports.Report")

const fieldsFile = "unlearnaudit/report_fields.txt"

// TestReportFieldsMatchThePackage: the Python package's report_fields.txt names the
// report schema and every JSON field path reports.Report can write (a slice's elements as
// "[]"). A field added, renamed or removed in the Go type, or a new schema identifier,
// fails this test until the package's list — and, through the package's own test
// (tests/test_report.py), its typed classes — are updated with it.
func TestReportFieldsMatchThePackage(t *testing.T) {
	var paths []string
	walk(reflect.TypeFor[reports.Report](), "", map[reflect.Type]bool{}, &paths)
	slices.Sort(paths)
	paths = slices.Compact(paths)
	if len(paths) < 50 {
		t.Fatalf("reports.Report gave %d field paths: the walk is broken", len(paths))
	}
	want := "# The JSON field paths of report.json that the package parses (reports.Report).\n" +
		"# Generated: go test ./python -run TestReportFieldsMatchThePackage -update\n" +
		"schema " + reports.Schema + "\n" + strings.Join(paths, "\n") + "\n"
	if *update {
		if err := os.WriteFile(fieldsFile, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(fieldsFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		gotLines, wantLines := strings.Split(string(got), "\n"), strings.Split(want, "\n")
		var diff []string
		for _, l := range wantLines {
			if !slices.Contains(gotLines, l) {
				diff = append(diff, "+ "+l)
			}
		}
		for _, l := range gotLines {
			if !slices.Contains(wantLines, l) {
				diff = append(diff, "- "+l)
			}
		}
		t.Errorf("%s is not reports.Report's shape (+ in the Go type, - only in the package's list):\n%s\n"+
			"update the package's parser (python/unlearnaudit/report.py) for the change, then run go test ./python -update",
			fieldsFile, strings.Join(diff, "\n"))
	}
}

var marshaler = reflect.TypeFor[json.Marshaler]()

// walk appends the JSON paths below t as encoding/json writes them: exported fields by
// their tag's name, embedded structs inlined, pointers followed, a slice's or map's
// elements under "[]" or "{}", and a type with its own MarshalJSON a leaf.
func walk(t reflect.Type, prefix string, seen map[reflect.Type]bool, out *[]string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler) {
		return
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		walk(t.Elem(), prefix+"[]", seen, out)
	case reflect.Map:
		walk(t.Elem(), prefix+"{}", seen, out)
	case reflect.Struct:
		if seen[t] {
			return // a recursive type: its fields are listed where it first appeared
		}
		seen[t] = true
		defer delete(seen, t)
		for f := range t.Fields() {
			if !f.IsExported() && !f.Anonymous {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if f.Anonymous && name == "" {
				walk(f.Type, prefix, seen, out)
				continue
			}
			if name == "" {
				name = f.Name
			}
			p := name
			if prefix != "" {
				p = prefix + "." + name
			}
			*out = append(*out, p)
			walk(f.Type, p, seen, out)
		}
	}
}
