package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/spec"
	"github.com/unlearnaudit/unlearnaudit/datasets"
	"github.com/unlearnaudit/unlearnaudit/internal/clip"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reports"
)

// dataFlags are the flags that choose a dataset.
type dataFlags struct {
	path, format, labels string
	labelColumn          int
	header               bool
	classes              string
	preprocess           string // auto, none or reference.PipelineSteps
	maxValues            int
	spec                 string // the spec file the settings came from (setFromSpec): errors name its fields, not the flags
}

// name is how errors name a data setting: the flag, or the field of the spec it came from.
func (d *dataFlags) name(flag string) string {
	if d.spec == "" {
		return "--" + flag
	}
	return d.spec + ": " + audit.SpecField(flag, -1)
}

func (d *dataFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&d.path, "data", "", "data file (default: built-in synthetic data); datasets/… names one of the repository's data sets, built into the binary, when no such file is here")
	fs.StringVar(&d.format, "format", "", "format of --data: csv, libsvm, idx or sklearn-csv")
	fs.StringVar(&d.labels, "labels", "", "idx labels file (default: the images file name with images→labels)")
	fs.IntVar(&d.labelColumn, "label-column", -1, "csv: 0-based label column; negative counts from the end")
	fs.BoolVar(&d.header, "header", false, "csv: the first line names the columns")
	fs.StringVar(&d.classes, "classes", "", "two labels A,B to keep as +1 and −1 (e.g. 3,8 for MNIST)")
	fs.StringVar(&d.preprocess, "preprocess", "auto", "steps applied to the features, in order: auto (pixels for idx, max-abs for sparse data, else standardize; then unit-rows), none, or a comma-separated list of "+strings.Join(reference.PipelineSteps, ", ")+" — to match how a model trained elsewhere saw its data")
	audit.Var(fs, &d.maxValues, maxValuesParam)
}

// setFromSpec takes the data the spec file names (the cap stays the flag's).
func (d *dataFlags) setFromSpec(s *spec.Spec, file string) {
	d.spec = file
	d.path, d.format, d.labels, d.classes = s.Data.File, s.Data.Format, s.Data.Labels, s.Data.Classes
	d.labelColumn, d.header = s.Data.LabelColumn, s.Data.Header
	d.preprocess = s.Data.Preprocessing
}

// maxValuesParam raises or lowers reference.Limits.MaxValues, the one memory cap, which
// every load of the command is passed (dataFlags.limits).
var maxValuesParam = audit.Param{Name: "max-values", Kind: audit.Integer, Unit: "float64 values",
	Usage:   "the cap on one matrix held in memory: dense data (rows × features), the models kept per audit (trials × parameters)",
	Default: strconv.Itoa(reference.DefaultMaxValues), Range: "[1048576, 1e12]"}

// limits are the caps --max-values sets, for every load of the command.
func (d *dataFlags) limits() reference.Limits { return reference.Limits{MaxValues: d.maxValues} }

// loaded is a dataset ready for binary logistic regression, with its provenance.
type loaded struct {
	ds            *reference.Dataset
	description   string
	preprocessing []string
	inputs        []reports.Input
}

// load reads, labels and scales the data the flags name, or generates the synthetic set.
// Every error is a usage error naming the file and line or the flag. A signal ends the wait
// for a long read (a large CSV or LIBSVM file takes seconds) with ctx's error.
func (d *dataFlags) load(ctx context.Context, seed uint64) (*loaded, error) {
	return interruptible(ctx, func() (*loaded, error) { return d.read(seed) })
}

// builtinData resolves a --data path datasets/… that names no file here, but one of the
// repository's data sets, to the copy built into the binary (datasets.Dir), so that the
// README's commands run from any folder with nothing beside the binary; every other path
// is returned as given, and a file that exists is always read from disk.
func builtinData(p string) string {
	rel, ok := strings.CutPrefix(filepath.ToSlash(filepath.Clean(p)), "datasets/")
	if !ok {
		return p
	}
	if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
		return p
	}
	if st, err := fs.Stat(datasets.FS(), rel); err != nil || st.IsDir() {
		return p
	}
	dir, err := datasets.Dir()
	if err != nil {
		return p
	}
	return filepath.Join(dir, filepath.FromSlash(rel))
}

// read is load without the wait on ctx.
func (d *dataFlags) read(seed uint64) (*loaded, error) {
	if d.path == "" {
		if d.format != "" || d.labels != "" || d.classes != "" || (d.preprocess != "" && d.preprocess != "auto") {
			return nil, usagef("%s, %s, %s and %s need %s", d.name("format"), d.name("labels"), d.name("classes"), d.name("preprocess"), d.name("data"))
		}
		ds, err := reference.SyntheticClassification(1000, 20, seed)
		if err != nil {
			return nil, err
		}
		return &loaded{ds: ds, description: fmt.Sprintf("built-in synthetic binary classification (seed %d)", seed),
			preprocessing: []string{"features N(0, I₂₀), labels sign(wᵀx + N(0, 0.25)) for a fixed unit w; rows scaled into the unit ball"}}, nil
	}
	if d.spec == "" {
		d.path = builtinData(d.path)
	}
	var (
		ds     *reference.Dataset
		err    error
		prep   []string
		inputs []string
	)
	switch d.format {
	case "csv":
		ds, err = reference.LoadCSV(d.path, reference.CSVOptions{Header: d.header, LabelColumn: d.labelColumn, Limits: d.limits()})
		inputs = []string{"data", d.path}
	case "sklearn-csv":
		ds, err = reference.LoadSklearnCSV(d.path, d.limits())
		inputs = []string{"data", d.path}
	case "libsvm":
		ds, err = reference.LoadLIBSVM(d.path, reference.LIBSVMOptions{Limits: d.limits()})
		inputs = []string{"data", d.path}
	case "idx":
		lp := d.labels
		if lp == "" {
			lp = reference.DefaultLabelsPath(d.path)
		}
		ds, err = reference.LoadIDX(d.path, lp, d.limits())
		inputs = []string{"images", d.path, "labels", lp}
	case "":
		return nil, usagef("%s is required with %s (csv, libsvm, idx or sklearn-csv)", d.name("format"), d.name("data"))
	default:
		return nil, usagef("%s %s: want csv, libsvm, idx or sklearn-csv", d.name("format"), clip.Quote(d.format))
	}
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) { // a file that cannot be opened: say which setting named it
		setting := "labels" // IDX images' labels: --labels, or the default beside the images
		if pe.Path == d.path {
			setting = "data"
		}
		return nil, usageError{fmt.Errorf("%s: %w", d.name(setting), err)}
	}
	if err != nil {
		return nil, usageError{err}
	}
	out := &loaded{description: fmt.Sprintf("%s (%s)", d.path, d.format)}
	for i := 0; i < len(inputs); i += 2 {
		in, err := reports.HashFile(inputs[i], inputs[i+1])
		if err != nil {
			return nil, usageError{err}
		}
		out.inputs = append(out.inputs, in)
	}
	// labels → ±1
	switch {
	case d.classes != "":
		a, b, err := reference.ParseClassPair(d.classes)
		if err != nil {
			return nil, usagef("%s %v", d.name("classes"), err)
		}
		if ds, err = ds.SelectClasses(a, b); err != nil {
			return nil, usageError{fmt.Errorf("%s: %w", d.name("classes"), err)}
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
			return nil, usagef("%s has %d distinct labels; choose two with %s A,B", d.path, len(vals), d.name("classes"))
		}
	}
	if ds.Len() < 20 {
		return nil, usagef("%s: %d usable rows; the demo needs at least 20", d.path, ds.Len())
	}
	auto := d.preprocess == "" || d.preprocess == "auto"
	steps := autoSteps(d.format, ds)
	if !auto {
		if steps, err = reference.ParsePipeline(d.preprocess); err != nil {
			return nil, usagef("%s: %v", d.name("preprocess"), err)
		}
	}
	var said []string
	if ds, said, err = ds.Preprocess(steps); err != nil {
		return nil, usagef("%s: %v", d.name("preprocess"), err)
	}
	if auto && ds.IsSparse() {
		said[0] = fmt.Sprintf("kept sparse (%d of %d × %d entries non-zero); %s", ds.Sparse().NNZ(), ds.Len(), ds.Dim(), said[0])
	}
	prep = append(prep, said...)
	if len(steps) == 0 {
		prep = append(prep, "features used as read (no preprocessing)")
	}
	if ds.MaxRowNorm() == 0 {
		return nil, usagef("%s: every row is zero after preprocessing (are all features constant?)", d.path)
	}
	out.ds, out.preprocessing = ds, prep
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

// parseIDs reads a comma-separated list of record IDs.
func parseIDs(s string) ([]int64, error) {
	if s == "" {
		return nil, nil
	}
	var ids []int64
	for _, f := range strings.Split(s, ",") {
		id, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return nil, usagef("--delete: %s is not a record ID", clip.Quote(f))
		}
		ids = append(ids, id)
	}
	return ids, nil
}
