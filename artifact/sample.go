package artifact

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"gonum.org/v1/gonum/mat"
)

// modelExts are the file types a model can be read from, by extension.
var modelExts = []string{".npy", ".npz", ".safetensors", ".csv", ".json", ".pt", ".pth"}

// LoadModel reads one model's parameters as a vector: an .npy array flattened, the
// arrays of an .npz, the tensors of a .safetensors file or the floating-point tensors of
// a PyTorch state dict (.pt, .pth: LoadPyTorch) concatenated in name order (so "bias"
// comes before "weight", the same order for every file of one exporter), a CSV of weights
// (reference.LoadMatrixCSV) flattened by rows, or the weights of a model card (.json,
// LoadCard). The layout names the parts, so that a report can say what was compared.
func LoadModel(path string, lim reference.Limits) (params []float64, layout []string, err error) {
	return LoadModelTensors(path, nil, lim)
}

// LoadModelTensors is LoadModel reading only the named tensors of a file that names its
// parts (.npz arrays, .safetensors and .pt/.pth tensors), concatenated in the order
// given, so that an audit can compare the weights it is about (the last layer, say)
// rather than every buffer. With no names it reads them all, in name order. A name the
// file lacks is an error listing what the file holds.
func LoadModelTensors(path string, names []string, lim reference.Limits) (params []float64, layout []string, err error) {
	var (
		arrays  []*Array
		skipped []string
		flat    []float64 // the arrays' values already concatenated in their order, if so
	)
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".npy":
		a, err := LoadNPY(path, lim)
		if err != nil {
			return nil, nil, err
		}
		arrays = []*Array{a}
	case ".npz":
		if arrays, skipped, err = loadNPZModel(path, lim); err != nil {
			return nil, nil, err
		}
	case ".safetensors":
		st, err := LoadSafetensors(path, lim)
		if err != nil {
			return nil, nil, err
		}
		arrays, skipped = st.Tensors, st.Skipped
	case ".pt", ".pth":
		pt, err := LoadPyTorch(path, lim)
		if err != nil {
			return nil, nil, err
		}
		arrays, skipped, flat = pt.Tensors, pt.Skipped, pt.flat
	case ".csv":
		m, err := reference.LoadMatrixCSV(path, lim)
		if err != nil {
			return nil, nil, csvHint(err)
		}
		r, c := m.Dims()
		arrays = []*Array{{Name: path, Shape: []int{r, c}, Data: m.RawMatrix().Data, DType: "csv"}}
	case ".json":
		card, err := LoadCard(path)
		if err != nil {
			return nil, nil, err
		}
		arrays = []*Array{{Name: path + ":weights", Shape: []int{len(card.Weights)}, Data: card.Weights, DType: "json"}}
	default:
		return nil, nil, fmt.Errorf("%s: unknown model format %s; want one of %s", path, clip.Quote(ext), strings.Join(modelExts, ", "))
	}
	if names != nil {
		if arrays, err = selectTensors(path, arrays, skipped, names); err != nil {
			return nil, nil, err
		}
		flat = nil
	}
	// the values are copied at most once (a model is often most of the memory a run
	// takes): not at all when they are one array or already one slice
	switch {
	case flat != nil:
		params = flat
	case len(arrays) == 1:
		params = arrays[0].Data
	default:
		n := 0
		for _, a := range arrays {
			n += len(a.Data)
		}
		params = make([]float64, 0, n)
		for _, a := range arrays {
			params = append(params, a.Data...)
		}
	}
	for _, a := range arrays {
		layout = append(layout, a.part())
	}
	if len(params) == 0 { // no tensors, or only empty ones: nothing to audit
		msg := fmt.Sprintf("no parameters (%d arrays, all empty); a model holds at least one", len(arrays))
		if len(skipped) > 0 {
			msg = fmt.Sprintf("no parameters: no floating-point tensor holds a value (skipped: %s)", strings.Join(skipped, "; "))
		}
		return nil, nil, &reference.InputError{File: path, Msg: msg}
	}
	return params, layout, nil
}

// selectTensors picks the named arrays in the order given. An .npz array is named by its
// entry (Name is "file.npz:entry").
func selectTensors(path string, arrays []*Array, skipped, names []string) ([]*Array, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".npz", ".safetensors", ".pt", ".pth":
	default:
		return nil, &reference.InputError{File: path, Msg: "tensor names pick among the arrays of an .npz, .safetensors, .pt or .pth file; this file is one array"}
	}
	byName := map[string]*Array{}
	var held []string
	for _, a := range arrays {
		n := strings.TrimPrefix(a.Name, path+":")
		byName[n] = a
		held = append(held, n)
	}
	out := make([]*Array, 0, len(names))
	for _, n := range names {
		a, ok := byName[n]
		if !ok {
			for _, s := range skipped {
				if strings.HasPrefix(s, n+": ") {
					return nil, &reference.InputError{File: path, Field: n, Msg: "not read: " + strings.TrimPrefix(s, n+": ")}
				}
			}
			if len(held) > 12 {
				held = append(held[:12], fmt.Sprintf("… %d more", len(held)-12))
			}
			return nil, &reference.InputError{File: path, Field: n, Msg: fmt.Sprintf("no such tensor; the file holds %s", strings.Join(held, ", "))}
		}
		out = append(out, a)
	}
	return out, nil
}

// ParseTensorNames reads a --tensor flag: one name or a comma-separated list, each given
// once.
func ParseTensorNames(s string) ([]string, error) {
	var names []string
	for n := range strings.SplitSeq(s, ",") {
		n = strings.TrimSpace(n)
		switch {
		case n == "":
			return nil, fmt.Errorf("%s: an empty tensor name", clip.Quote(s))
		case slices.Contains(names, n):
			return nil, fmt.Errorf("%s: tensor %s given twice", clip.Quote(s), clip.Quote(n))
		}
		names = append(names, n)
	}
	return names, nil
}

// newSample is the sample of rows models of cols parameters each, refusing an empty one
// (mat.NewDense panics on a zero dimension).
func newSample(path string, rows, cols int, data []float64) (*mat.Dense, []string, error) {
	if rows == 0 || cols == 0 {
		return nil, nil, &reference.InputError{File: path, Msg: fmt.Sprintf("a %d × %d matrix; a sample holds at least one model of at least one value", rows, cols)}
	}
	return mat.NewDense(rows, cols, data), []string{path}, nil
}

// LoadSample reads a sample of models, one row per model: every model file of a directory
// (sorted by name), or one file whose rows are the models (a 2-D .npy, an .npz holding one
// array, a CSV); any other file is one model. A sample
// of N models is N trials of an audit. Every model must have as many parameters as the
// first; the error names both files. lim caps the values held (the whole sample is one
// matrix).
func LoadSample(path string, lim reference.Limits) (*mat.Dense, []string, error) {
	return LoadSampleTensors(path, nil, lim)
}

// part names an array as a model's layout does: name, shape, element type.
func (a *Array) part() string { return fmt.Sprintf("%s %v %s", a.Name, a.Shape, a.DType) }

// LoadSampleTensors is LoadSample reading the named tensors of each model
// (LoadModelTensors); with names, a single file is always one model.
func LoadSampleTensors(path string, names []string, lim reference.Limits) (*mat.Dense, []string, error) {
	m, files, _, err := LoadSampleParts(path, names, lim)
	return m, files, err
}

// LoadSampleParts is LoadSampleTensors that also says what was read of the first model:
// its parts as LoadModelTensors' layout names them, or the one array of a file whose rows
// are the models; so that a report can say what was compared without reading a file again.
func LoadSampleParts(path string, names []string, lim reference.Limits) (m *mat.Dense, files, parts []string, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("load sample: %w", err)
	}
	if !st.IsDir() {
		if names != nil {
			params, layout, err := LoadModelTensors(path, names, lim)
			if err != nil {
				return nil, nil, nil, err
			}
			return mat.NewDense(1, len(params), params), []string{path}, layout, nil
		}
		return loadSampleFile(path, lim)
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("load sample: %w", err)
	}
	var (
		data  []float64
		width int
	)
	for _, e := range entries {
		if !slices.Contains(modelExts, strings.ToLower(filepath.Ext(e.Name()))) {
			continue
		}
		p := filepath.Join(path, e.Name())
		if e.IsDir() { // not skipped in silence: a model the user meant may be missing
			return nil, nil, nil, fmt.Errorf("%s: a folder named like a model file; a sample's models are files (rename it, or move it out of %s)", p, path)
		}
		params, layout, err := LoadModelTensors(p, names, lim)
		if err != nil {
			return nil, nil, nil, err
		}
		if len(files) == 0 {
			width, parts = len(params), layout
		} else if len(params) != width {
			return nil, nil, nil, fmt.Errorf("%s: %d parameters; %s, the first model, has %d: a sample's models must agree", p, len(params), files[0], width)
		}
		if err := lim.CheckValues("models of "+path, len(files)+1, width); err != nil {
			return nil, nil, nil, err
		}
		if len(files) == 0 {
			data = params // a folder of one model: its values, not a copy of them
		} else {
			data = append(data, params...)
		}
		files = append(files, p)
	}
	if len(files) == 0 {
		return nil, nil, nil, fmt.Errorf("%s: no model files (%s)", path, strings.Join(modelExts, ", "))
	}
	return mat.NewDense(len(files), width, data), files, parts, nil
}

// LoadScores reads a matrix of scores, models × records, as LoadSample reads a sample,
// except that an .npz file must hold exactly one array: LoadSample reads an archive of
// several arrays as one model's layers, which for scores would silently make one model of
// every array's values. The error names the file and its arrays.
func LoadScores(path string, lim reference.Limits) (*mat.Dense, []string, error) {
	if st, err := os.Stat(path); err != nil || st.IsDir() || strings.ToLower(filepath.Ext(path)) != ".npz" {
		return LoadSample(path, lim)
	}
	arrays, err := LoadNPZ(path, lim)
	if err != nil {
		return nil, nil, err
	}
	if len(arrays) != 1 {
		names := make([]string, len(arrays))
		for i, a := range arrays {
			names[i] = strings.TrimPrefix(a.Name, path+":") // the entry, the file being named once
		}
		return nil, nil, fmt.Errorf("%s: %d arrays (%s); scores are one matrix, models × records: save one array", path, len(arrays), strings.Join(names, ", "))
	}
	a := arrays[0]
	return newSample(path, a.Rows(), a.Cols(), a.Data)
}

// loadSampleFile reads one file as a sample: its rows are the models. parts is what
// LoadSampleParts says of it.
func loadSampleFile(path string, lim reference.Limits) (m *mat.Dense, files, parts []string, err error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".npy":
		a, err := LoadNPY(path, lim)
		if err != nil {
			return nil, nil, nil, err
		}
		m, files, err := newSample(path, a.Rows(), a.Cols(), a.Data)
		return m, files, []string{a.part()}, err
	case ".csv":
		m, err := reference.LoadMatrixCSV(path, lim)
		if err != nil {
			return nil, nil, nil, csvHint(err)
		}
		r, c := m.Dims()
		return m, []string{path}, []string{(&Array{Name: path, Shape: []int{r, c}, DType: "csv"}).part()}, nil
	case ".npz":
		// read as a model's arrays are (integer buffers skipped), so that one file reads
		// as it does in a folder of models
		arrays, _, err := loadNPZModel(path, lim)
		if err != nil {
			return nil, nil, nil, err
		}
		if len(arrays) == 1 { // one matrix (np.savez(f, scores=m)): its rows are the models
			a := arrays[0]
			m, files, err := newSample(path, a.Rows(), a.Cols(), a.Data)
			return m, files, []string{a.part()}, err
		}
	}
	params, layout, err := LoadModel(path, lim)
	if err != nil {
		return nil, nil, nil, err
	}
	return mat.NewDense(1, len(params), params), []string{path}, layout, nil
}

// csvHint adds to a model CSV's first refused cell what most likely wrote it so: np.savetxt
// without delimiter="," (numbers separated by spaces, one cell a line) or a header row
// (a name in the first line). The loader's own message is unchanged.
func csvHint(err error) error {
	var ie *reference.InputError
	if !errors.As(err, &ie) || !strings.HasSuffix(ie.Msg, "is not a number") {
		return err
	}
	cell := ie.Msg[:len(ie.Msg)-len(" is not a number")]
	if s, uerr := strconv.Unquote(cell); uerr == nil {
		cell = s
	}
	switch f := strings.Fields(cell); {
	case len(f) > 1:
		return fmt.Errorf("%w (numbers separated by spaces: write the CSV with commas, np.savetxt(path, w, delimiter=\",\"))", err)
	case ie.Line == 1:
		return fmt.Errorf("%w (a header row? a model's CSV holds numbers only: np.savetxt without header=)", err)
	}
	return err
}
