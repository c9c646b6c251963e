package audit

import "fmt"

// SpecError is a refusal of a spec file: the file, the path of the field at fault
// ("method.params.sigma", "deletes[2]"), and what is wrong.
type SpecError struct {
	File, Path, Msg string
}

func (e *SpecError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s: %s: %s", e.File, e.Path, e.Msg)
}

// specFields are the spec's fields for the flags that set the same thing.
var specFields = map[string]string{
	"delete": "deletes", "delta": "claim.delta", "epsilon": "claim.epsilon", "lambda": "model.lambda",
	"trials": "trials", "confidence": "confidence", "power-against": "power.against", "seed": "seed",
	"variants": "method.variants", "attacks": "attacks", "formats": "outputs.formats", "out": "outputs.dir",
	"data": "data.file", "format": "data.format", "labels": "data.labels", "classes": "data.classes",
	"label-column": "data.label_column", "header": "data.header", "preprocess": "data.preprocessing",
}

// SpecField is the path of the spec field that sets what flag sets ("delete" →
// "deletes", "delta" → "claim.delta"), with "[index]" when index ≥ 0; a method's own
// setting is under method.params. Errors about a value that came from a spec name it so.
func SpecField(flag string, index int) string {
	f, ok := specFields[flag]
	if !ok {
		f = "method.params." + flag
	}
	if index >= 0 {
		f = fmt.Sprintf("%s[%d]", f, index)
	}
	return f
}

// A SettingError is a refusal of a setting's value, for the front end to name where the
// value came from: Error names the flag (--delete: …); InSpec the spec's field
// (audit.json: deletes[0]: …).
type SettingError struct {
	Flag  string // the flag's name, without dashes
	Index int    // the element of a list at fault; -1 for the whole value
	Msg   string
}

func (e *SettingError) Error() string { return "--" + e.Flag + ": " + e.Msg }

// InSpec is the error as a refusal of the spec file's field.
func (e *SettingError) InSpec(file string) *SpecError {
	return &SpecError{File: file, Path: SpecField(e.Flag, e.Index), Msg: e.Msg}
}
