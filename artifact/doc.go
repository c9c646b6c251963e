// Package artifact reads models and scores that other tools wrote, so that the toolkit can
// audit what it did not train. This first part reads NumPy's formats; safetensors, weight
// CSVs and the toolkit's own model cards are to follow.
//
// # NumPy
//
// A model exported from Python is usually a .npy file (np.save) or a .npz archive of
// several (np.savez, np.savez_compressed). LoadNPY and LoadNPZ read them as float64 in
// row-major order, whatever the file's byte order or layout:
//
//	w, err := artifact.LoadNPY("weights.npy")       // np.save("weights.npy", clf.coef_)
//	arrays, err := artifact.LoadNPZ("models.npz")   // sorted by keyword name
//	fmt.Println(w.Rows(), w.Cols(), w.DType)        // a matrix is one row per model
//
// float32 and float64 elements are accepted, little- or big-endian, in C or Fortran order;
// a float32 file is widened exactly and the Array says so (Converted), because a model
// stored in single precision differs from its float64 original by rounding that an audit
// should not mistake for leakage. Everything else is refused by name: integer arrays (say
// which conversion to make), structured dtypes, and object arrays, which NumPy would
// unpickle — arbitrary code that a reader of untrusted files must never run.
//
// # Hostile files
//
// Errors are *reference.InputError values naming the file (file.npz:entry inside an
// archive) and the field: magic, version, header, descr, shape or data. A header is read
// up to 64 KiB; a shape is checked against reference.MaxValues before anything is
// allocated, and the data are read in chunks that grow with the bytes that arrive, so a
// 200-byte file claiming 2^40 elements costs nothing. The fuzzers hold every parser to
// O(k) allocation for k input bytes.
package artifact
