package artifact

import (
	"archive/zip"
	"bufio"
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
	"github.com/unlearnaudit/unlearnaudit/internal/regular"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// maxNPZEntries bounds the arrays of one .npz archive: a model or a score matrix is a
// handful; a central directory announcing millions is hostile.
const maxNPZEntries = 4096

// LoadNPZ reads a NumPy .npz archive (np.savez or np.savez_compressed).
func LoadNPZ(path string, lim reference.Limits) ([]*Array, error) {
	arrays, _, err := openNPZ(path, lim, false)
	return arrays, err
}

// openNPZ opens path and reads it as parseNPZ does.
func openNPZ(path string, lim reference.Limits, skipBuffers bool) ([]*Array, []string, error) {
	f, err := regular.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("load npz: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("load npz: %w", err)
	}
	return parseNPZ(f, st.Size(), path, lim, skipBuffers)
}

// ParseNPZ reads the .npy arrays of a zip archive of size bytes, sorted by entry name (the
// keyword names given to np.savez, "arr_0", … for positional ones). Each entry is read as
// ParseNPY reads a file, and together they hold at most lim.MaxValues elements.
// Every entry is read to its end and must inflate to exactly the size the zip directory
// declares, with the CRC-32 it records (reading at most one byte past that size). An
// archive whose entries inflate past lim.CheckInflation's bounds (the value budget,
// or 100 to 1 past 1 MiB) is refused before any is inflated.
func ParseNPZ(r io.ReaderAt, size int64, name string, lim reference.Limits) ([]*Array, error) {
	arrays, _, err := parseNPZ(r, size, name, lim, false)
	return arrays, err
}

// loadNPZModel is LoadNPZ for a model's arrays: integer and boolean arrays (a scikit-learn
// estimator's classes_ or n_iter_ saved beside its coef_) are not weights, and are
// skipped and named rather than refused, as a PyTorch state dict's buffers are.
func loadNPZModel(path string, lim reference.Limits) (arrays []*Array, skipped []string, err error) {
	return openNPZ(path, lim, true)
}

// bufferDescr reports whether a .npy descr is an integer or boolean type ('<i8', '|b1',
// '>u4', …): a buffer, not a weight.
func bufferDescr(descr string) bool {
	return len(descr) == 3 && strings.ContainsRune("<>|=", rune(descr[0])) && strings.ContainsRune("iub", rune(descr[1])) && strings.ContainsRune("1248", rune(descr[2]))
}

// parseNPZ is ParseNPZ, skipping (and naming) integer and boolean arrays if skipBuffers.
func parseNPZ(r io.ReaderAt, size int64, name string, lim reference.Limits, skipBuffers bool) ([]*Array, []string, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, nil, &reference.InputError{File: name, Msg: fmt.Sprintf("not a zip archive (.npz): %v", err)}
	}
	if len(zr.File) > maxNPZEntries {
		return nil, nil, &reference.InputError{File: name, Msg: fmt.Sprintf("%d entries; at most %d are read", len(zr.File), maxNPZEntries)}
	}
	if len(zr.File) == 0 {
		return nil, nil, &reference.InputError{File: name, Msg: "no arrays in the archive"}
	}
	// what the entries inflate to, as the central directory declares it (archive/zip
	// refuses an entry that inflates past its declared size): bounded by the value budget
	// and the amplification before any entry is inflated
	var inflated int64
	for _, zf := range zr.File {
		inflated += int64(min(zf.UncompressedSize64, 1<<50)) // 4096 entries cannot overflow
	}
	if err := lim.CheckInflation(name, inflated, size); err != nil {
		return nil, nil, err
	}
	files := slices.Clone(zr.File)
	slices.SortFunc(files, func(a, b *zip.File) int { return strings.Compare(a.Name, b.Name) })
	var (
		out     []*Array
		skipped []string
		total   int
	)
	for i, zf := range files {
		entry := name + ":" + clip.Text(strings.TrimSuffix(zf.Name, ".npy")) // the entry's name, as errors show it
		if !strings.HasSuffix(zf.Name, ".npy") {
			return nil, nil, &reference.InputError{File: entry, Msg: "entry is not a .npy array"}
		}
		if i > 0 && zf.Name == files[i-1].Name {
			return nil, nil, &reference.InputError{File: entry, Msg: "entry appears twice"}
		}
		er, err := openEntry(zf)
		if err != nil {
			return nil, nil, &reference.InputError{File: entry, Msg: err.Error()}
		}
		br := bufio.NewReader(er)
		h, err := readNPYHeader(br, entry)
		if err == nil && skipBuffers && bufferDescr(h.descr) {
			if err := er.finish(); err != nil { // read to its end, its size and CRC checked
				return nil, nil, &reference.InputError{File: entry, Msg: err.Error()}
			}
			skipped = append(skipped, fmt.Sprintf("%s: %s %v, not floating point (a buffer such as classes_ or n_iter_, not a weight)", strings.TrimPrefix(entry, name+":"), h.descr, h.shape))
			continue
		}
		var a *Array
		if err == nil {
			a, err = readNPYData(br, entry, h, lim)
		}
		if err != nil {
			er.Close()
			// a fault of the entry itself met on the way (corrupt, truncated, longer
			// than declared) comes first: the parse error is then its consequence
			if zerr := er.failed(); zerr != nil {
				return nil, nil, &reference.InputError{File: entry, Msg: zerr.Error()}
			}
			return nil, nil, err
		}
		if err := er.finish(); err != nil {
			return nil, nil, &reference.InputError{File: entry, Msg: err.Error()}
		}
		total += len(a.Data)
		if err := lim.CheckValues("arrays of "+name, 1, total); err != nil {
			return nil, nil, &reference.InputError{File: entry, Msg: err.Error()}
		}
		out = append(out, a)
	}
	return out, skipped, nil
}

// parseNPZBytes is ParseNPZ over an in-memory archive, at the default limits (for the
// fuzzer and tests).
func parseNPZBytes(b []byte, name string) ([]*Array, error) {
	return ParseNPZ(bytes.NewReader(b), int64(len(b)), name, reference.Limits{})
}
