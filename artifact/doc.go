// Package artifact reads models and scores that other tools wrote, so that the toolkit can
// audit what it did not train: NumPy's .npy and .npz, Hugging Face's safetensors, PyTorch's
// state dicts (.pt, .pth), CSVs of weights, and the toolkit's own model card.
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
// float16, float32 and float64 elements are accepted, little- or big-endian, in C or
// Fortran order (float16, as .pt and safetensors files already were); a float16 or float32
// file is widened exactly and the Array says so (Converted), because a model stored in
// lower precision differs from its float64 original by rounding that an audit should not
// mistake for leakage. Everything else is refused by name: integer arrays (say which
// conversion to make; a model's .npz skips them instead, as buffers), structured dtypes,
// and object arrays, which NumPy would unpickle — arbitrary code that a reader of
// untrusted files must never run.
//
// # safetensors
//
// LoadSafetensors reads a .safetensors file (PyTorch's safe format: an 8-byte length, a
// JSON header of names, dtypes, shapes and byte offsets, then the data) with a reader
// written here, not a binding. F64, F32, F16 and BF16 tensors are widened exactly to
// float64; integer tensors are refused. The header is validated whole before a byte of
// data is read: at most 100 MB, every dtype known, every shape within the cap, every
// tensor's offsets spanning exactly its elements, and the tensors tiling the data with no
// overlap and no gap, as the format requires.
//
//	st, err := artifact.LoadSafetensors("model.safetensors")
//	w := st.Tensor("linear.weight")                 // nil if absent
//
// # PyTorch
//
// LoadPyTorch reads what torch.save(model.state_dict(), "model.pt") writes (.pt or .pth,
// PyTorch 1.6 and later): a zip archive holding data.pkl, a pickle of the state dict, and
// each tensor storage's raw bytes. Python is not needed, and no pickle is ever executed:
// a small reader knows the opcodes and the few names a state dict uses (an OrderedDict,
// torch's tensor and parameter rebuilders and its storage classes) and refuses any other
// name, saying what to save instead — a whole model pickled by torch.save(model) names its
// class, a training checkpoint nests the state dict under a key, a TorchScript module
// (torch.jit.save) holds its compiled code (constants.pkl, code/) beside the pickle, and
// the legacy format of PyTorch before 1.6 is not a zip archive at all.
//
//	sd, err := artifact.LoadPyTorch("model.pt")
//	w := sd.Tensor("fc.weight")                     // float32 widened exactly
//	fmt.Println(sd.Skipped)                         // [bn.num_batches_tracked: int64 …]
//
// Float32, float64, float16 and bfloat16 tensors are read, in row-major order through
// their strides and offsets (a transposed or sliced view reads as its values), tied weights
// under each name. Integer and boolean tensors — BatchNorm's num_batches_tracked counts
// batches, it is not a weight — are skipped and named in Skipped; so are a safetensors
// file's (a transformer's position_ids) and, when a model is read (LoadModel), an .npz
// archive's (a fitted estimator's classes_ and n_iter_).
//
// LoadModelTensors picks the tensors an audit compares, in the order given (audit verify
// --tensor fc.weight,fc.bias); LoadModel reads every floating-point tensor in name order,
// as for safetensors.
//
// # Model cards
//
// A Card (LoadCard, schema unlearnaudit/model-card/v1) is the toolkit's own model file:
// the weights with the loss and λ, the training recipe (method, variant, settings), the
// seed, the dataset by SHA-256 with its shape, the deletions served and the claim. Unknown
// fields are errors, and so is any field that disagrees with another (features against
// the weights, deletions against the rows).
//
// # Models and samples
//
// LoadModel reads one model's parameters as a vector, whatever the format (the arrays of
// an archive concatenated in name order, with a layout naming the parts). LoadSample reads
// N models as an N × d matrix — a directory of model files, or one matrix whose rows are
// models — the sample of N trials that an audit's distributional tests take. Models of
// different sizes are refused, naming both files.
//
//	unlearned, files, err := artifact.LoadSample("unlearned/")   // 200 × d
//
// # Hostile files
//
// Errors are *reference.InputError values naming the file (file.npz:entry inside an
// archive) and the field: magic, version, header, descr, shape or data. A header is read
// up to 64 KiB; a shape is checked against the caller's reference.Limits before anything is
// allocated, and the data are read in chunks that grow with the bytes that arrive, so a
// 200-byte file claiming 2^40 elements costs nothing. The fuzzers hold every parser to
// O(k) allocation for k input bytes (for an archive, k is what it may inflate to; a
// PyTorch storage may be read out through at most four views).
package artifact
