package jsonerr

import (
	"encoding/json"
	"strings"
	"testing"
)

// Each kind of decoding error is worded without Go's type names, with the field's JSON
// path and the kind of value wanted; an empty or cut-short file says so.
func TestDescribe(t *testing.T) {
	type inner struct {
		N int `json:"n"`
	}
	type doc struct {
		Seed   uint64   `json:"seed"`
		Trials int      `json:"trials"`
		Name   string   `json:"name"`
		OK     bool     `json:"ok"`
		Args   []string `json:"args"`
		In     inner    `json:"in"`
		Rate   *float64 `json:"rate"`
	}
	for _, c := range []struct{ in, want string }{
		{``, "empty: no JSON in it"},
		{`{"seed": 1`, "the file ends inside a value"},
		{`{"seed": 1,,}`, "malformed JSON at byte 12"},
		{`{"seed": -1}`, "field seed: a JSON number -1 where a whole number from 0 to 18446744073709551615 is wanted"},
		{`{"trials": "8"}`, "field trials: a JSON string where a whole number is wanted"},
		{`{"name": 3}`, "field name: a JSON number where a string is wanted"},
		{`{"ok": "yes"}`, "field ok: a JSON string where true or false is wanted"},
		{`{"args": "x"}`, "field args: a JSON string where a list [...] is wanted"},
		{`{"in": {"n": 1.5}}`, "field in.n: a JSON number 1.5 where a whole number is wanted"},
		{`{"rate": "x"}`, "field rate: a JSON string where a number is wanted"},
		{`[1]`, "the top level: a JSON array where an object {...} is wanted"},
	} {
		var d doc
		err := json.NewDecoder(strings.NewReader(c.in)).Decode(&d)
		if err == nil {
			t.Fatalf("%q decoded", c.in)
		}
		got := Describe(err)
		if !strings.Contains(got, c.want) || strings.Contains(got, "Go ") || strings.Contains(got, "uint64") {
			t.Errorf("%q: %q; want %q, without Go's type names", c.in, got, c.want)
		}
	}
}
