package testenv

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/internal/fexp"
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
	return value, 0.5 * fexp.Pow(10, float64(exp-decimals)), nil
}

// ReadGolden decodes the package's testdata/golden.json into a T, failing the test with
// the file's name when it cannot. See DecodeGolden for what it checks.
func ReadGolden[T any](t testing.TB) T {
	t.Helper()
	const path = "testdata/golden.json"
	var g T
	b, err := os.ReadFile(path)
	if err == nil {
		err = DecodeGolden(b, &g)
	}
	if err != nil {
		t.Fatalf("golden values %s: %v", path, err)
	}
	return g
}

// goldenMetadata are keys that document golden values, at any depth, and that no test
// reads: a golden struct must not declare them.
var goldenMetadata = map[string]bool{"source": true, "note": true, "comment": true}

// stripMetadata removes the documentation keys from a decoded JSON tree.
func stripMetadata(tree any) any {
	switch t := tree.(type) {
	case map[string]any:
		for k, v := range t {
			if goldenMetadata[k] {
				delete(t, k)
				continue
			}
			t[k] = stripMetadata(v)
		}
	case []any:
		for i, v := range t {
			t[i] = stripMetadata(v)
		}
	}
	return tree
}

// DecodeGolden decodes golden values strictly, so that a renamed key cannot turn a golden
// test into a loop over nothing: the file may hold no key that dst does not declare (but
// for "source", "note" and "comment" at any depth, which document the values), every field dst declares must be in the file
// (unless tagged omitempty), and no list or map may be empty.
func DecodeGolden(b []byte, dst any) error {
	dec0 := json.NewDecoder(bytes.NewReader(b))
	dec0.UseNumber() // keep every digit of the values through the re-encoding
	var raw any
	if err := dec0.Decode(&raw); err != nil {
		return err
	}
	if _, ok := raw.(map[string]any); !ok {
		return fmt.Errorf("golden values must be a JSON object, not %T", raw)
	}
	body, err := json.Marshal(stripMetadata(raw))
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return err
	}
	var tree any
	if err := json.Unmarshal(body, &tree); err != nil {
		return err
	}
	return complete(reflect.ValueOf(dst).Elem(), tree, "")
}

var unmarshaler = reflect.TypeFor[json.Unmarshaler]()

// complete checks that v, decoded from tree, has every declared field present and no
// empty list or map; path names the place for the error.
func complete(v reflect.Value, tree any, path string) error {
	if reflect.PointerTo(v.Type()).Implements(unmarshaler) {
		return nil // a leaf with its own syntax
	}
	name := path
	if name == "" {
		name = "the file"
	}
	switch v.Kind() {
	case reflect.Struct:
		obj, _ := tree.(map[string]any)
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if f.Anonymous && f.Type.Kind() == reflect.Struct { // promoted fields, as encoding/json reads them
				if err := complete(v.Field(i), tree, path); err != nil {
					return err
				}
				continue
			}
			if !f.IsExported() {
				continue
			}
			key, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if key == "-" {
				continue
			}
			if key == "" {
				key = f.Name
			}
			fileKey, sub, ok := lookupFold(obj, key)
			if !ok {
				if strings.Contains(opts, "omitempty") {
					continue
				}
				return fmt.Errorf("%s has no key %q (field %s)", name, key, f.Name)
			}
			if err := complete(v.Field(i), sub, joinPath(path, fileKey)); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Map:
		if v.Len() == 0 {
			return fmt.Errorf("%s is empty: a golden list must hold at least one case", name)
		}
		if v.Kind() == reflect.Slice {
			list, _ := tree.([]any)
			for i := range v.Len() {
				var sub any
				if i < len(list) {
					sub = list[i]
				}
				if err := complete(v.Index(i), sub, fmt.Sprintf("%s[%d]", path, i)); err != nil {
					return err
				}
			}
			return nil
		}
		obj, _ := tree.(map[string]any)
		iter := v.MapRange()
		for iter.Next() {
			k := fmt.Sprint(iter.Key().Interface())
			if err := complete(iter.Value(), obj[k], joinPath(path, k)); err != nil {
				return err
			}
		}
	case reflect.Pointer:
		if !v.IsNil() {
			return complete(v.Elem(), tree, path)
		}
	}
	return nil
}

// lookupFold finds key in obj as encoding/json matches field names: exactly, or else
// ignoring case.
func lookupFold(obj map[string]any, key string) (string, any, bool) {
	if v, ok := obj[key]; ok {
		return key, v, true
	}
	for k, v := range obj {
		if strings.EqualFold(k, key) {
			return k, v, true
		}
	}
	return "", nil, false
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
