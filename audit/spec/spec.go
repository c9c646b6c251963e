package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/checks"
	"github.com/unlearnaudit/unlearnaudit/internal/clip"
	"github.com/unlearnaudit/unlearnaudit/internal/regular"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// SpecSchema names the version of the audit spec format ParseSpec reads.
const SpecSchema = "unlearnaudit/spec/v1"

// A Spec is an audit written down: what data, which method and settings, which deletions,
// what claim, how many trials and what power. It is what `audit run --spec` runs, and the
// same file can be versioned beside the model it audits. Every field is checked where it
// is read; a SpecError names the file and the field's path.
//
//	{
//	  "schema": "unlearnaudit/spec/v1",
//	  "data": {"file": "heart_scale", "format": "libsvm"},
//	  "model": {"loss": "logistic", "lambda": 0.05},
//	  "method": {"name": "d2d", "variants": ["strongly-convex"], "params": {"iterations": 10}},
//	  "deletes": [17, 42],
//	  "claim": {"epsilon": 1, "delta": 1e-6},
//	  "trials": 200,
//	  "power": {"against": 2},
//	  "confidence": 0.95,
//	  "seed": 1,
//	  "attacks": ["game", "membership"],
//	  "outputs": {"dir": "audit-report", "formats": ["md", "html", "pdf"]}
//	}
//
// Fields left out take the demo's defaults (TrialsParam, ConfidenceParam, …); the method's
// params are its DemoParams, by name, checked against their declared ranges.
type Spec struct {
	Data   SpecData
	Lambda float64 // model.lambda
	// Intercept (model.intercept) says each saved model's first parameter is an intercept,
	// as scikit-learn's [intercept_, coef_]: the losses computed from the weights use it.
	Intercept bool
	// Method is the toolkit's implementation the spec names; nil when the name is not one
	// of Methods() (a user's own method, audited on its saved models by `audit verify`,
	// which needs only a claim) or when the spec names none. MethodLabel is the name as
	// written, "" when absent.
	Method      audit.Method
	MethodLabel string
	// Scores (spec "scores") says what per-record score files hold: "loss" (the default;
	// lower means the record is fitted better) or "confidence" (logit-scaled; higher).
	Scores checks.ScoreKind
	// ScoresGiven says the spec states "scores": its files are per-record scores, which
	// verify refuses to read as models (CheckModels).
	ScoresGiven bool
	// References, when set (audit verify --references), are reference models' scores on
	// the deleted records with IN/OUT masks: the scores route adds their U-LiRA aggregate
	// to the game's family. Not a spec field: it holds data.
	References *checks.References
	Variants   []string
	Params     audit.Args // the method's settings, as its DemoParams read them
	Deletes    []int64
	Epsilon    float64
	Delta      float64
	// Claimed says the spec states both claim.epsilon and claim.delta. Without them the
	// toolkit's own methods run at the defaults (ε = 1, δ = 10⁻⁶, the demo's), but verify,
	// which audits a claim someone made, refuses to invent one.
	Claimed bool
	// PartialClaim names the one of claim.epsilon and claim.delta a spec states without
	// the other ("epsilon", "delta"; "" otherwise): verify, which audits the claim made,
	// refuses it unless --epsilon or --delta completes it.
	PartialClaim string
	// claimFlags says SetClaim took ε or δ from the command line: the report then says
	// where the claim was declared.
	claimFlags   bool
	Trials       int
	PowerAgainst float64
	Confidence   float64
	Seed         uint64
	// Name (verify --name), when set, names the audited subject in place of the method.
	Name string
	// RandomisedRank (spec "rank_p": "randomised") decides the rank check of fewer models
	// than a game needs on the seeded randomised rank p-value instead of the conservative
	// one (RankCheck.Randomised): "conservative", the default, is the verdict no seed moves.
	RandomisedRank bool
	// Attacks are the empirical attacks to run (nil: all of AttackNames).
	Attacks audit.Attacks
	// Outputs say where the report goes and in which formats besides JSON.
	Outputs SpecOutputs
	// Noise (spec "noise") is the certificate of a pipeline that publishes with Gaussian
	// noise, for the route of audit verify --prenoise-unlearned (VerifyNoisy); nil when absent.
	Noise *NoiseCertificate
}

// RankPChoices are the rank check's p-values, as spec "rank_p" and verify --rank-p name
// them: the conservative one (the default) and the seeded randomised one.
var RankPChoices = []string{"conservative", "randomised"}

// ParseRankP reads a rank p-value's name: true for "randomised".
func ParseRankP(kind string) (randomised bool, err error) {
	switch kind {
	case "conservative":
		return false, nil
	case "randomised":
		return true, nil
	}
	return false, fmt.Errorf("%s: want \"conservative\" (the default: no seed moves the verdict) or \"randomised\" (seeded tie-breakers)", clip.Quote(kind))
}

// MethodName is the method's name for reports: the registered method's, else the label
// the spec gives, else "unnamed method".
func (s *Spec) MethodName() string {
	switch {
	case s.Method != nil:
		return s.Method.Name()
	case s.MethodLabel != "":
		return s.MethodLabel
	}
	return "unnamed method"
}

// methodSource says where the claim comes from: a claim is declared by the user in every
// case; the method too, when the toolkit does not implement it.
func (s *Spec) methodSource() string {
	where := "declared in the audit spec"
	if s.claimFlags {
		where = "declared on the command line (--epsilon, --delta)"
	}
	if s.Method == nil {
		return where + "; the method (" + s.SubjectName() + ") is declared by the user, not one the toolkit implements"
	}
	return where
}

// RequireMethod is the refusal of a spec that names no method the toolkit runs, for the
// routes that run one (run, plan --spec, a recipe's retrains).
func (s *Spec) RequireMethod(file string) error {
	if s.Method != nil {
		return nil
	}
	msg := "missing; this command runs the method, so it must be one of " + strings.Join(methodNames(), ", ")
	if s.MethodLabel != "" {
		msg = fmt.Sprintf("%s; only audit verify on saved models or scores takes a method of your own", notAMethod(s.MethodLabel))
	}
	return &audit.SpecError{File: file, Path: "method.name", Msg: msg}
}

// SpecOutputs is where a spec's report is written: Dir (a folder inside the spec's own,
// resolved against it by LoadSpec; empty for the command's default) and the formats written beside
// report.json, among ReportFormats' md, html and pdf (default md); the commands write
// report.md whatever the list, which adds html and pdf to it.
type SpecOutputs struct {
	Dir     string
	Formats []string
}

// SpecData says where the data are and how to read them, as the demo's data flags do.
// File is resolved against the spec's own folder by LoadSpec.
type SpecData struct {
	File        string
	Written     string // File as the spec wrote it (LoadSpec sets it before resolving File)
	Format      string // csv, libsvm, idx or sklearn-csv
	Labels      string // idx: the labels file
	Classes     string // "A,B": keep two classes as +1 and −1
	LabelColumn int    // csv: 0-based, negative from the end (default −1)
	Header      bool   // csv: the first line names the columns
	// Preprocessing is "auto" (the demo's choice for the format), "none", or
	// reference.PipelineSteps, comma-separated, in order: how a model trained elsewhere
	// saw its features, so the recipe's retrains see the same rows.
	Preprocessing string
}

// LoadSpec reads a spec file; a relative data file is taken from the spec's folder.
func LoadSpec(path string) (*Spec, error) {
	// read through ParseSpec's limit: a spec named /dev/zero or a FIFO is refused by
	// regular.Open, a huge file after maxSpecBytes+1 bytes
	f, err := regular.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load spec: %w", err)
	}
	defer f.Close()
	s, err := ParseSpec(f, path)
	if err != nil {
		return nil, err
	}
	s.Data.Written = s.Data.File
	for _, p := range []*string{&s.Data.File, &s.Data.Labels, &s.Outputs.Dir} {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(filepath.Dir(path), *p)
		}
	}
	return s, nil
}

// maxSpecBytes bounds a spec file: settings, never data.
const maxSpecBytes = 1 << 20

// ParseSpec reads a spec from r; name is used in errors. Unknown fields are errors (a
// misspelt setting must not fall back to its default silently), and so is every value
// outside its declared range.
func ParseSpec(r io.Reader, name string) (*Spec, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxSpecBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read spec %s: %w", name, err)
	}
	if len(b) > maxSpecBytes {
		return nil, &audit.SpecError{File: name, Msg: fmt.Sprintf("larger than %d bytes; a spec holds settings, not data", maxSpecBytes)}
	}
	p := specParser{file: name, src: b}
	root, err := p.object("", b)
	if err != nil {
		return nil, err
	}
	s := &Spec{Data: SpecData{LabelColumn: -1, Preprocessing: "auto"}}
	defaults := []struct {
		param audit.Param
		dst   any
	}{{audit.TrialsParam, &s.Trials}, {audit.ConfidenceParam, &s.Confidence}, {audit.PowerAgainstParam, &s.PowerAgainst},
		{audit.LambdaParam, &s.Lambda}, {audit.EpsilonParam, &s.Epsilon}, {audit.DeltaParam, &s.Delta}}
	for _, d := range defaults {
		if err := p.set("", d.param, d.param.Default, d.dst); err != nil {
			return nil, err
		}
	}
	s.Seed = 1
	s.Outputs.Formats = []string{"md"}
	var method json.RawMessage
	err = p.fields("", root, map[string]func(string, json.RawMessage) error{
		"schema": func(path string, v json.RawMessage) error {
			var got string
			if json.Unmarshal(v, &got) != nil || got != SpecSchema {
				return p.fail(path, "want %q", SpecSchema)
			}
			return nil
		},
		"data": func(path string, v json.RawMessage) error { return p.data(path, v, &s.Data) },
		"model": func(path string, v json.RawMessage) error {
			obj, err := p.object(path, v)
			if err != nil {
				return err
			}
			return p.fields(path, obj, map[string]func(string, json.RawMessage) error{
				"loss": func(path string, v json.RawMessage) error {
					var loss string
					if json.Unmarshal(v, &loss) != nil || loss != "logistic" {
						return p.fail(path, "want \"logistic\" (the losses the methods run on)")
					}
					return nil
				},
				"lambda": p.param(audit.LambdaParam, &s.Lambda),
				"intercept": func(path string, v json.RawMessage) error {
					if json.Unmarshal(v, &s.Intercept) != nil {
						return p.fail(path, "want true or false")
					}
					return nil
				},
			})
		},
		"method":  func(_ string, v json.RawMessage) error { method = v; return nil },
		"deletes": func(path string, v json.RawMessage) error { return p.ids(path, v, &s.Deletes) },
		"noise":   func(path string, v json.RawMessage) error { return p.noise(path, v, s) },
		"scores": func(path string, v json.RawMessage) error {
			var kind string
			if json.Unmarshal(v, &kind) != nil {
				return p.fail(path, "want \"loss\" or \"confidence\"")
			}
			s.ScoresGiven = true
			switch kind {
			case "loss":
				s.Scores = checks.LossScores
			case "confidence":
				s.Scores = checks.ConfidenceScores
			default:
				return p.fail(path, "%s: want \"loss\" or \"confidence\"", clip.Quote(kind))
			}
			return nil
		},
		"claim": func(path string, v json.RawMessage) error {
			obj, err := p.object(path, v)
			if err != nil {
				return err
			}
			_, eps := obj["epsilon"]
			_, delta := obj["delta"]
			s.Claimed = eps && delta
			switch {
			case eps && !delta:
				s.PartialClaim = "epsilon"
			case delta && !eps:
				s.PartialClaim = "delta"
			}
			return p.fields(path, obj, map[string]func(string, json.RawMessage) error{
				"epsilon": p.param(audit.EpsilonParam, &s.Epsilon),
				"delta":   p.param(audit.DeltaParam, &s.Delta),
			})
		},
		"trials": p.param(audit.TrialsParam, &s.Trials),
		"power": func(path string, v json.RawMessage) error {
			obj, err := p.object(path, v)
			if err != nil {
				return err
			}
			return p.fields(path, obj, map[string]func(string, json.RawMessage) error{"against": p.param(audit.PowerAgainstParam, &s.PowerAgainst)})
		},
		"confidence": p.param(audit.ConfidenceParam, &s.Confidence),
		"seed":       p.param(audit.SeedParam, &s.Seed),
		"rank_p": func(path string, v json.RawMessage) error {
			var kind string
			if json.Unmarshal(v, &kind) != nil {
				return p.fail(path, "want \"conservative\" or \"randomised\"")
			}
			var err error
			if s.RandomisedRank, err = ParseRankP(kind); err != nil {
				return p.fail(path, "%s", err)
			}
			return nil
		},
		"attacks": func(path string, v json.RawMessage) error {
			names, err := p.names(path, v, audit.AttackNames)
			s.Attacks = names
			return err
		},
		"outputs": func(path string, v json.RawMessage) error {
			obj, err := p.object(path, v)
			if err != nil {
				return err
			}
			return p.fields(path, obj, map[string]func(string, json.RawMessage) error{
				"dir": func(path string, v json.RawMessage) error {
					if json.Unmarshal(v, &s.Outputs.Dir) != nil || s.Outputs.Dir == "" {
						return p.fail(path, "want a folder name")
					}
					// a spec passed around must not write where it likes: its report goes
					// beside it, and --out names any other place
					if !filepath.IsLocal(filepath.FromSlash(s.Outputs.Dir)) {
						return p.fail(path, "%s: want a folder inside the spec's own folder (a relative path, no ..); give --out to write elsewhere", clip.Quote(s.Outputs.Dir))
					}
					return nil
				},
				"formats": func(path string, v json.RawMessage) error {
					var err error
					s.Outputs.Formats, err = p.names(path, v, verdict.OutputFormats)
					return err
				},
			})
		},
	})
	if err != nil {
		return nil, err
	}
	if method != nil {
		if err := p.method("method", method, s); err != nil {
			return nil, err
		}
	}
	if s.Data.File == "" && (s.Data.Format != "" || s.Data.Classes != "" || s.Data.Labels != "" || s.Data.Preprocessing != "auto") {
		return nil, p.fail("data.file", "missing; format, classes, labels and preprocessing describe a file")
	}
	return s, nil
}

// methodLabelRune says whether a method's name may hold r: letters, digits, spaces and a
// few marks that no report format or terminal reads as markup or control.
func methodLabelRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == ' ' || strings.ContainsRune("-_.+/():", r)
}

// notAMethod says that name is not a toolkit method, listing them, with the nearest as
// the one likely meant.
func notAMethod(name string) string {
	hint := ""
	if near := nearestMethod(name); near != "" {
		hint = fmt.Sprintf(" (did you mean %q?)", near)
	}
	return fmt.Sprintf("%s is not a method the toolkit implements (one of %s)%s", clip.Quote(name), strings.Join(methodNames(), ", "), hint)
}

// nearestMethod is the toolkit method whose name is name but for case, or at most two
// edits (insertions, deletions, substitutions) away from it ("" if none, or several tie):
// the name a typo most likely meant.
func nearestMethod(name string) string {
	best, bestD, tie := "", 3, false
	for _, m := range methodNames() {
		d := editDistance(strings.ToLower(name), m)
		switch {
		case d < bestD:
			best, bestD, tie = m, d, false
		case d == bestD:
			tie = true
		}
	}
	if tie {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, by runes; names are short (a
// method label is at most 200 bytes).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			sub := prev[j-1]
			if ra[i-1] != rb[j-1] {
				sub++
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, sub)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

func methodNames() []string {
	var out []string
	for _, m := range audit.Methods() {
		out = append(out, m.Name())
	}
	return out
}

// specParser reads the JSON of a spec with the path of every value, for its errors; src is
// the whole file, where a syntax error is placed by line and column (malformed).
type specParser struct {
	file string
	src  []byte
}

// malformed is the message for a JSON error err: a syntax error placed by line and column
// in the file, since a field's path alone cannot say where a missing quote or comma is.
// Every syntax error is met decoding the root object, whose Decoder counts offsets from
// the value it was decoding, not from the file: the place comes from decoding the whole
// file again. An error that is no syntax error there is given as it is.
func (p specParser) malformed(err error) string {
	var whole any
	var se *json.SyntaxError
	if len(p.src) == 0 || !errors.As(json.Unmarshal(p.src, &whole), &se) {
		return fmt.Sprintf("malformed JSON: %v", err)
	}
	at := min(max(se.Offset-1, 0), int64(len(p.src)-1)) // the byte the scanner stopped at
	ends := se.Offset >= int64(len(p.src)) && strings.Contains(se.Error(), "end of JSON input")
	if ends { // the file's last character that is not space
		at = max(int64(len(bytes.TrimRight(p.src, " \t\r\n")))-1, 0)
	}
	line := 1 + bytes.Count(p.src[:at], []byte("\n"))
	col := at - int64(bytes.LastIndexByte(p.src[:at], '\n'))
	if ends {
		return fmt.Sprintf("malformed JSON: the file ends at line %d, column %d, inside a value (a closing bracket or quote missing?)", line, col)
	}
	return fmt.Sprintf("malformed JSON at line %d, column %d: %v", line, col, se)
}

func (p specParser) fail(path, format string, args ...any) error {
	return &audit.SpecError{File: p.file, Path: path, Msg: fmt.Sprintf(format, args...)}
}

// object decodes a JSON object, refusing anything else and repeated keys.
func (p specParser) object(path string, v json.RawMessage) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(v))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		what := path
		if what == "" {
			return nil, p.fail("", "not a JSON object")
		}
		return nil, p.fail(what, "want an object {…}")
	}
	out := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, p.fail(path, "%s", p.malformed(err))
		}
		key := tok.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, p.fail(join(path, key), "%s", p.malformed(err))
		}
		if _, dup := out[key]; dup {
			return nil, p.fail(join(path, key), "given twice")
		}
		out[key] = val
	}
	if _, err := dec.Token(); err != nil {
		return nil, p.fail(path, "%s", p.malformed(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, p.fail(path, "text after the object")
	}
	return out, nil
}

func join(path, key string) string {
	if !plainKey(key) { // a key of 10 000 characters, or with quotes or new lines, is clipped and quoted
		key = clip.Quote(key)
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// plainKey reports whether a spec key reads as it is in a field path: short, of letters,
// digits, '_' and '-'.
func plainKey(k string) bool {
	if k == "" || len(k) > clip.Max {
		return false
	}
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// fields calls each known field's reader in sorted key order (so the first error is the
// same every time) and refuses unknown ones, listing the known.
func (p specParser) fields(path string, obj map[string]json.RawMessage, known map[string]func(string, json.RawMessage) error) error {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		read, ok := known[k]
		if !ok {
			names := make([]string, 0, len(known))
			for n := range known {
				names = append(names, n)
			}
			slices.Sort(names)
			return p.fail(join(path, k), "unknown field; want one of %s", strings.Join(names, ", "))
		}
		if err := read(join(path, k), obj[k]); err != nil {
			return err
		}
	}
	return nil
}

// text is a JSON scalar as the text a flag would hold: a number as written, a string
// unquoted, a boolean as true or false.
func (p specParser) text(path string, v json.RawMessage) (string, error) {
	var x any
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	if err := dec.Decode(&x); err != nil {
		return "", p.fail(path, "malformed JSON: %v", err)
	}
	switch x := x.(type) {
	case json.Number:
		return x.String(), nil
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	}
	return "", p.fail(path, "want a number, a string or true/false")
}

// typed is a JSON scalar as the text a flag would hold, refused unless its JSON type is
// the parameter's: a number for a number or an integer ("trials": "8" is an error, not
// 8), true or false for a switch, a string for a choice; a list takes a comma-separated
// string or one number, free text a string or a number.
func (p specParser) typed(path string, v json.RawMessage, decl audit.Param) (string, error) {
	t, err := p.text(path, v)
	if err != nil {
		return "", err
	}
	// the JSON type, by its first byte (p.text decoded the value already; a number out of
	// float64's range is still a number, for the range check to refuse)
	raw := bytes.TrimSpace(v)
	isNum := raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9'
	isStr := raw[0] == '"'
	isBool := raw[0] == 't' || raw[0] == 'f'
	var want string
	switch {
	case decl.Bool:
		if !isBool {
			want = "true or false"
		}
	case decl.List:
		if !isStr && !isNum {
			want = "a comma-separated string or a number"
		}
	case decl.Kind == audit.Number, decl.Kind == audit.Integer:
		if !isNum {
			want = "a JSON number"
			if decl.Kind == audit.Integer {
				want = "a JSON integer"
			}
			if isStr {
				want += ", not a string"
			}
		}
	case decl.Kind == audit.Choice:
		if !isStr {
			want = "a string: " + orList(decl.Choices)
		}
	default:
		if isBool {
			want = "a string or a number"
		}
	}
	if want != "" {
		return "", p.fail(path, "%s: want %s", clip.Text(string(v)), want)
	}
	return t, nil
}

// param reads a field declared by a Param into dst (*int, *float64, *uint64): a JSON
// number, nothing else.
func (p specParser) param(decl audit.Param, dst any) func(string, json.RawMessage) error {
	return func(path string, v json.RawMessage) error {
		kind := decl
		if kind.Kind == audit.Text { // the seed: declared as text for its uint64 range, read as a number
			kind.Kind = audit.Integer
		}
		s, err := p.typed(path, v, kind)
		if err != nil {
			return err
		}
		return p.set(path, decl, s, dst)
	}
}

// set stores a field's value, checked by its declaration; a refusal echoes the value as
// the spec wrote it (a JSON number's own text, never a conversion of it).
func (p specParser) set(path string, decl audit.Param, s string, dst any) error {
	if err := decl.Check(s); err != nil {
		return p.fail(path, "%s: %s", clip.Text(strings.TrimSpace(s)), err.(*audit.ParamError).Want)
	}
	var err error
	switch d := dst.(type) {
	case *int:
		*d, err = strconv.Atoi(strings.TrimSpace(s))
	case *float64:
		*d, err = strconv.ParseFloat(strings.TrimSpace(s), 64)
	case *uint64:
		*d, err = strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	}
	if err != nil {
		return p.fail(path, "%s: want %s", clip.Text(strings.TrimSpace(s)), map[bool]string{true: "a non-negative integer", false: "a number"}[decl.Name == "seed"])
	}
	return nil
}

func (p specParser) data(path string, v json.RawMessage, d *SpecData) error {
	obj, err := p.object(path, v)
	if err != nil {
		return err
	}
	str := func(dst *string, choices ...string) func(string, json.RawMessage) error {
		return func(path string, v json.RawMessage) error {
			if json.Unmarshal(v, dst) != nil {
				return p.fail(path, "want a string")
			}
			if len(choices) > 0 && !slices.Contains(choices, *dst) {
				return p.fail(path, "%s: want one of %s", clip.Quote(*dst), strings.Join(choices, ", "))
			}
			return nil
		}
	}
	return p.fields(path, obj, map[string]func(string, json.RawMessage) error{
		"file":    str(&d.File),
		"format":  str(&d.Format, "csv", "libsvm", "idx", "sklearn-csv"),
		"labels":  str(&d.Labels),
		"classes": str(&d.Classes),
		"label_column": func(path string, v json.RawMessage) error {
			if json.Unmarshal(v, &d.LabelColumn) != nil {
				return p.fail(path, "want an integer column (negative counts from the end)")
			}
			return nil
		},
		"header": func(path string, v json.RawMessage) error {
			if json.Unmarshal(v, &d.Header) != nil {
				return p.fail(path, "want true or false")
			}
			return nil
		},
		"preprocessing": func(path string, v json.RawMessage) error {
			if json.Unmarshal(v, &d.Preprocessing) != nil {
				return p.fail(path, "want a string: auto, none or steps such as \"standardize,unit-rows\"")
			}
			if d.Preprocessing == "auto" {
				return nil
			}
			if _, err := reference.ParsePipeline(d.Preprocessing); err != nil {
				return p.fail(path, "%v", err)
			}
			return nil
		},
	})
}

// names reads a non-empty list of distinct names among known.
func (p specParser) names(path string, v json.RawMessage, known []string) ([]string, error) {
	var got []string
	if json.Unmarshal(v, &got) != nil || len(got) == 0 {
		return nil, p.fail(path, "want a non-empty list of names among %s", strings.Join(known, ", "))
	}
	for i, g := range got {
		at := fmt.Sprintf("%s[%d]", path, i)
		if !slices.Contains(known, g) {
			return nil, p.fail(at, "%s: want one of %s", clip.Quote(g), strings.Join(known, ", "))
		}
		if slices.Contains(got[:i], g) {
			return nil, p.fail(at, "%s named twice", clip.Quote(g))
		}
	}
	return got, nil
}

func (p specParser) ids(path string, v json.RawMessage, dst *[]int64) error {
	var raw []json.RawMessage
	if json.Unmarshal(v, &raw) != nil || raw == nil {
		return p.fail(path, "want a list of record IDs [17, 42, …]")
	}
	if len(raw) == 0 { // it would mean the demo's default deletions, silently
		return p.fail(path, "an empty list; name the records to delete, or leave deletes out for the default (the most influential record and two random ones)")
	}
	seen := map[int64]bool{}
	for i, r := range raw {
		var id int64
		if json.Unmarshal(r, &id) != nil {
			return p.fail(fmt.Sprintf("%s[%d]", path, i), "%s: want an integer record ID", clip.Text(string(bytes.TrimSpace(r))))
		}
		if seen[id] {
			return p.fail(fmt.Sprintf("%s[%d]", path, i), "record ID %d named twice", id)
		}
		seen[id] = true
		*dst = append(*dst, id)
	}
	return nil
}

// method reads {"name", "variants", "params"}: the method by name, variants among its own,
// params among its DemoParams, each checked against its declaration.
func (p specParser) method(path string, v json.RawMessage, s *Spec) error {
	obj, err := p.object(path, v)
	if err != nil {
		return err
	}
	var name string
	if raw, ok := obj["name"]; !ok || json.Unmarshal(raw, &name) != nil || strings.TrimSpace(name) == "" {
		return p.fail(join(path, "name"), "missing; want a name: one of %s, or your own method's for audit verify", strings.Join(methodNames(), ", "))
	}
	if len(name) > 200 {
		return p.fail(join(path, "name"), "%d characters; want a name of at most 200", len(name))
	}
	if i := strings.IndexFunc(name, func(r rune) bool { return !methodLabelRune(r) }); i >= 0 {
		return p.fail(join(path, "name"), "%q at byte %d: a name is letters, digits, spaces and - _ . + / ( ) : (it goes into every report and the console)", name[i:i+utf8.RuneLen([]rune(name[i:])[0])], i)
	}
	s.MethodLabel = name
	for _, m := range audit.Methods() {
		if m.Name() == name {
			s.Method = m
		}
	}
	if s.Method == nil {
		// a method of the user's own: a label, with nothing the toolkit could run. Given
		// variants or params too, it is far likelier a toolkit method's name mistyped
		// (an example spec edited) than a method of one's own: the name is what is wrong.
		var others []string
		for k := range obj {
			if k != "name" {
				others = append(others, k)
			}
		}
		if len(others) > 0 {
			slices.Sort(others)
			return p.fail(join(path, "name"), "%s; a method of your own, for audit verify, is a name alone, without %s", notAMethod(name), strings.Join(others, " or "))
		}
		return nil
	}
	var variants []string
	for _, v := range audit.DemoVariantsOf(s.Method) {
		variants = append(variants, v.Name)
	}
	decls := audit.DemoParamsOf(s.Method)
	s.Params = audit.DefaultArgs(decls)
	s.Variants = variants
	return p.fields(path, obj, map[string]func(string, json.RawMessage) error{
		"name": func(string, json.RawMessage) error { return nil },
		"variants": func(path string, v json.RawMessage) error {
			var got []string
			if json.Unmarshal(v, &got) != nil || len(got) == 0 {
				return p.fail(path, "want a non-empty list of variant names (%s)", strings.Join(variants, ", "))
			}
			for i, g := range got {
				if !slices.Contains(variants, g) {
					return p.fail(fmt.Sprintf("%s[%d]", path, i), "%s is not a variant of %s; want one of %s", clip.Quote(g), name, strings.Join(variants, ", "))
				}
				if slices.Contains(got[:i], g) {
					return p.fail(fmt.Sprintf("%s[%d]", path, i), "%s named twice", clip.Quote(g))
				}
			}
			s.Variants = got
			return nil
		},
		"params": func(path string, v json.RawMessage) error {
			obj, err := p.object(path, v)
			if err != nil {
				return err
			}
			known := map[string]func(string, json.RawMessage) error{}
			for _, d := range decls {
				known[d.Name] = func(path string, v json.RawMessage) error {
					t, err := p.typed(path, v, d)
					if err != nil {
						return err
					}
					if err := d.Check(t); err != nil {
						return p.fail(path, "%s: %s", clip.Text(strings.TrimSpace(t)), err.(*audit.ParamError).Want)
					}
					s.Params.Set(d.Name, t)
					return nil
				}
			}
			return p.fields(path, obj, known)
		},
	})
}

// orList joins names as "a, b or c" (the root's helper of that name, copied).
func orList(names []string) string {
	if k := len(names); k > 1 {
		return strings.Join(names[:k-1], ", ") + " or " + names[k-1]
	}
	return strings.Join(names, "")
}
