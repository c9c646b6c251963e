package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/spec"
	"github.com/unlearnaudit/unlearnaudit/datasets"
	"github.com/unlearnaudit/unlearnaudit/internal/clip"
	"github.com/unlearnaudit/unlearnaudit/internal/wait"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reports"
)

// DataSource chooses a dataset: a file and how to read it, or (no Path) the built-in
// synthetic set. Its fields are the CLI's data flags (--data, --format, …), and errors name
// a setting by its flag, or by the spec field it came from (SetFromSpec).
type DataSource struct {
	Path, Format, Labels string
	LabelColumn          int
	Header               bool
	Classes              string
	Preprocess           string // auto, none or reference.PipelineSteps
	MaxValues            int    // the cap on one matrix (reference.Limits.MaxValues); 0 is the default cap
	Spec                 string // the spec file the settings came from (SetFromSpec): errors name its fields, not the flags
	Written              string // the spec's data.file as written, before LoadSpec resolved it beside the spec
}

// Name is how errors name a data setting: the flag, or the field of the spec it came from.
func (d *DataSource) Name(flag string) string {
	if d.Spec == "" {
		return "--" + flag
	}
	return d.Spec + ": " + audit.SpecField(flag, -1)
}

// SetFromSpec takes the data the spec file names (the cap stays the caller's).
func (d *DataSource) SetFromSpec(s *spec.Spec, file string) {
	d.Spec = file
	d.Path, d.Format, d.Labels, d.Classes = s.Data.File, s.Data.Format, s.Data.Labels, s.Data.Classes
	d.Written = s.Data.Written
	d.LabelColumn, d.Header = s.Data.LabelColumn, s.Data.Header
	d.Preprocess = s.Data.Preprocessing
}

// Limits are the caps MaxValues sets, for every load of the source.
func (d *DataSource) Limits() reference.Limits { return reference.Limits{MaxValues: d.MaxValues} }

// MaxValuesParam raises or lowers reference.Limits.MaxValues, the one memory cap, which
// every load of the command is passed (DataSource.Limits).
var MaxValuesParam = audit.Param{Name: "max-values", Kind: audit.Integer, Unit: "float64 values",
	Usage:   "the cap on one matrix held in memory: dense data (rows × features), the models kept per audit (trials × parameters)",
	Default: strconv.Itoa(reference.DefaultMaxValues), Range: "[1048576, 1e12]"}

// Data is a dataset ready for binary logistic regression, with its provenance: what a
// report's data section and inputs say of it.
type Data struct {
	Set           *reference.Dataset
	Description   string
	Preprocessing []string
	Inputs        []reports.Input
}

// Load reads, labels and scales the data the source names, or generates the synthetic set.
// Every error names the file and line or the setting. The end of ctx ends the wait
// for a long read (a large CSV or LIBSVM file takes seconds) with ctx's error.
func (d *DataSource) Load(ctx context.Context, seed uint64) (*Data, error) {
	return wait.For(ctx, func() (*Data, error) { return d.read(seed) })
}

// BuiltinData resolves a --data path datasets/… that names no file here, but one of the
// repository's data sets, to the copy built into the binary (datasets.Dir), so that the
// README's commands run from any folder with nothing beside the binary; every other path
// is returned as given, and a file that exists is always read from disk.
func BuiltinData(p string) string { return onDiskOrBuiltin(p, p) }

// onDiskOrBuiltin is disk if a file (or anything) is there, else the copy built into the
// binary of the data set name names (datasets/…), else disk, for the error to name.
func onDiskOrBuiltin(disk, name string) string {
	if _, err := os.Lstat(disk); !errors.Is(err, fs.ErrNotExist) {
		return disk
	}
	if b, ok := builtinCopy(name); ok {
		return b
	}
	return disk
}

// builtinCopy is where the copy built into the binary of the data set p names is, for p
// datasets/… naming one of the repository's data sets (extracting them on first use).
func builtinCopy(p string) (string, bool) {
	rel, ok := strings.CutPrefix(filepath.ToSlash(filepath.Clean(p)), "datasets/")
	if !ok {
		return "", false
	}
	if st, err := fs.Stat(datasets.FS(), rel); err != nil || st.IsDir() {
		return "", false
	}
	dir, err := datasets.Dir()
	if err != nil {
		return "", false
	}
	return filepath.Join(dir, filepath.FromSlash(rel)), true
}

// specData is the file a spec's data.file names: resolved beside the spec (LoadSpec), or,
// where no such file is there and the spec wrote datasets/…, the copy of that data set
// built into the binary, as --data datasets/… is, so that a spec naming one runs from
// any folder too.
func (d *DataSource) specData() string {
	if d.Written == "" || filepath.IsAbs(d.Written) {
		return d.Path
	}
	return onDiskOrBuiltin(d.Path, d.Written)
}

// read is load without the wait on ctx.
func (d *DataSource) read(seed uint64) (*Data, error) {
	if d.Path == "" {
		if d.Format != "" || d.Labels != "" || d.Classes != "" || (d.Preprocess != "" && d.Preprocess != "auto") {
			return nil, fmt.Errorf("%s, %s, %s and %s need %s", d.Name("format"), d.Name("labels"), d.Name("classes"), d.Name("preprocess"), d.Name("data"))
		}
		ds, err := reference.SyntheticClassification(1000, 20, seed)
		if err != nil {
			return nil, err
		}
		return &Data{Set: ds, Description: fmt.Sprintf("built-in synthetic binary classification (seed %d)", seed),
			Preprocessing: []string{"features N(0, I₂₀), labels sign(wᵀx + N(0, 0.25)) for a fixed unit w; rows scaled into the unit ball"}}, nil
	}
	given := d.Path
	if d.Spec == "" {
		d.Path = BuiltinData(d.Path)
	} else {
		d.Path = d.specData()
	}
	builtin := d.Path != given // the copy built into the binary, in the user's cache folder
	var (
		ds     *reference.Dataset
		err    error
		prep   []string
		inputs []string
	)
	switch d.Format {
	case "csv":
		ds, err = reference.LoadCSV(d.Path, reference.CSVOptions{Header: d.Header, LabelColumn: d.LabelColumn, Limits: d.Limits()})
		inputs = []string{"data", d.Path}
		if ie := (*reference.InputError)(nil); errors.As(err, &ie) && ie.Line > 0 && strings.HasPrefix(ie.Msg, "1 column;") {
			// one field a line: not comma-separated, most often LIBSVM's index:value pairs
			err = fmt.Errorf("%w (not comma-separated: a file of space-separated index:value pairs is LIBSVM's; set %s to libsvm)", err, d.Name("format"))
		}
	case "sklearn-csv":
		ds, err = reference.LoadSklearnCSV(d.Path, d.Limits())
		inputs = []string{"data", d.Path}
	case "libsvm":
		ds, err = reference.LoadLIBSVM(d.Path, reference.LIBSVMOptions{Limits: d.Limits()})
		inputs = []string{"data", d.Path}
	case "idx":
		lp := d.Labels
		if lp == "" {
			lp = reference.DefaultLabelsPath(d.Path)
		}
		ds, err = reference.LoadIDX(d.Path, lp, d.Limits())
		inputs = []string{"images", d.Path, "labels", lp}
	case "":
		return nil, fmt.Errorf("%s is required with %s (csv, libsvm, idx or sklearn-csv)", d.Name("format"), d.Name("data"))
	default:
		return nil, fmt.Errorf("%s %s: want csv, libsvm, idx or sklearn-csv", d.Name("format"), clip.Quote(d.Format))
	}
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) { // a file that cannot be opened: say which setting named it
		setting := "labels" // IDX images' labels: --labels, or the default beside the images
		if pe.Path == d.Path {
			setting = "data"
		}
		if d.Spec != "" && errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w (a spec's paths are relative to its own folder; datasets/… names one of the data sets built into the binary: %s)", d.Name(setting), err, strings.Join(builtinNames(), ", "))
		}
		return nil, fmt.Errorf("%s: %w", d.Name(setting), err)
	}
	if err != nil {
		return nil, err
	}
	out := &Data{Description: fmt.Sprintf("%s (%s)", d.Path, d.Format)}
	for i := 0; i < len(inputs); i += 2 {
		in, err := reports.HashFile(inputs[i], inputs[i+1])
		if err != nil {
			return nil, err
		}
		if builtin {
			in.Path = builtinName(in.Path)
		}
		out.Inputs = append(out.Inputs, in)
	}
	if builtin {
		// the report names the data set as the repository does, not the cache folder it
		// was extracted to (which is the user's, and would make two users' reports differ)
		out.Description = fmt.Sprintf("%s, built into the binary (%s)", builtinName(d.Path), d.Format)
	}
	// labels → ±1
	switch {
	case d.Classes != "":
		a, b, err := reference.ParseClassPair(d.Classes)
		if err != nil {
			return nil, fmt.Errorf("%s %v", d.Name("classes"), err)
		}
		if ds, err = ds.SelectClasses(a, b); err != nil {
			return nil, fmt.Errorf("%s: %w", d.Name("classes"), err)
		}
		prep = append(prep, fmt.Sprintf("kept classes %g (→ +1) and %g (→ −1)", a, b))
	default:
		vals := distinct(ds.Labels())
		switch {
		case len(vals) == 2 && vals[0] == -1 && vals[1] == 1:
		case len(vals) == 2:
			ds = ds.BinaryLabels(vals[1])
			prep = append(prep, fmt.Sprintf("labels %g → +1, %g → −1", vals[1], vals[0]))
		default:
			return nil, fmt.Errorf("%s has %d distinct labels; choose two with %s A,B", d.Path, len(vals), d.Name("classes"))
		}
	}
	if ds.Len() < 20 {
		return nil, fmt.Errorf("%s: %d usable rows; the demo needs at least 20", d.Path, ds.Len())
	}
	auto := d.Preprocess == "" || d.Preprocess == "auto"
	steps := autoSteps(d.Format, ds)
	if !auto {
		if steps, err = reference.ParsePipeline(d.Preprocess); err != nil {
			return nil, fmt.Errorf("%s: %v", d.Name("preprocess"), err)
		}
	}
	var said []string
	if ds, said, err = ds.Preprocess(steps); err != nil {
		return nil, fmt.Errorf("%s: %v", d.Name("preprocess"), err)
	}
	if auto && ds.IsSparse() {
		said[0] = fmt.Sprintf("kept sparse (%d of %d × %d entries non-zero); %s", ds.Sparse().NNZ(), ds.Len(), ds.Dim(), said[0])
	}
	prep = append(prep, said...)
	if len(steps) == 0 {
		prep = append(prep, "features used as read (no preprocessing)")
	}
	if ds.MaxRowNorm() == 0 {
		return nil, fmt.Errorf("%s: every row is zero after preprocessing (are all features constant?)", d.Path)
	}
	out.Set, out.Preprocessing = ds, prep
	return out, nil
}

// autoSteps are --preprocess auto's steps: pixels to [0, 1] for idx images, sparse data
// scaled by column maxima (centring would fill in the zeros of text-like data, 60,000
// features × n rows), anything else standardised; then every row to norm 1.
func autoSteps(format string, ds *reference.Dataset) []string {
	switch {
	case format == "idx":
		return []string{"pixels", "unit-rows"}
	case ds.IsSparse():
		return []string{"max-abs", "unit-rows"}
	}
	return []string{"standardize", "unit-rows"}
}

func distinct(v []float64) []float64 {
	out := slices.Clone(v)
	slices.Sort(out)
	return slices.Compact(out)
}

// builtinNames lists the data sets built into the binary as a spec or --data names them,
// datasets/…: their data files, not their licences, checksums and notes, nor the files
// read beside another (IDX labels, scikit-learn's targets).
func builtinNames() []string {
	var out []string
	fs.WalkDir(datasets.FS(), ".", func(p string, e fs.DirEntry, err error) error {
		base := path.Base(p)
		if err != nil || e.IsDir() || base == "LICENSE" || base == "SHA256SUMS" || strings.Contains(base, "labels-idx") || strings.Contains(base, "_target") {
			return nil
		}
		if ext := path.Ext(base); ext == ".md" || ext == ".rst" || ext == ".go" {
			return nil
		}
		out = append(out, "datasets/"+p)
		return nil
	})
	return out
}

// builtinName is p, a file of the built-in data sets' extracted copy, as the repository
// names it (datasets/…); any other path as it is.
func builtinName(p string) string {
	dir, err := datasets.Dir()
	if err != nil {
		return p
	}
	rel, err := filepath.Rel(dir, p)
	if err != nil || !filepath.IsLocal(rel) {
		return p
	}
	return "datasets/" + filepath.ToSlash(rel)
}
