package jsonerr

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
)

// Describe is err, from decoding JSON, in the file's terms (see the package comment).
func Describe(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return "empty: no JSON in it"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the file ends inside a value (cut short?)"
	case errors.As(err, &syn):
		return fmt.Sprintf("malformed JSON at byte %d: %v", syn.Offset, syn)
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "the top level"
		} else {
			field = "field " + field
		}
		return fmt.Sprintf("%s: a JSON %s where %s is wanted", field, typ.Value, Want(typ.Type))
	}
	return err.Error()
}

// Want names the JSON a Go type reads, as a person would ask for it.
func Want(t reflect.Type) string {
	if t == nil {
		return "another kind of value"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return fmt.Sprintf("a whole number from 0 to %d", uint64(1)<<(t.Bits()-1)*2-1)
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "a list [...]"
	case reflect.Map, reflect.Struct:
		return "an object {...}"
	case reflect.Pointer:
		return Want(t.Elem())
	}
	return "another kind of value"
}
