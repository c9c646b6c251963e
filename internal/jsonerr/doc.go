// Package jsonerr words the errors of decoding JSON for the people who wrote the file.
// The toolkit's readers of shard manifests and reports give them to users who edited or
// cut one short, and encoding/json's own messages name Go's types ("Go struct field
// ShardManifest.seed of type uint64") or say only "EOF":
//
//	return fmt.Errorf("shard manifest %s: %s", path, jsonerr.Describe(err))
//
// Describe says what is wrong in the file's own terms: an empty file, a file that ends
// inside a value, a syntax error and its byte, or a field whose value has the wrong kind,
// named by its JSON path with the kind wanted ("field seed: a JSON number -1 where a whole
// number from 0 to 18446744073709551615 is wanted").
// Any other error is given as it is.
package jsonerr
