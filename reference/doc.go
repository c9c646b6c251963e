// Package reference holds the model layer every unlearning method in the toolkit is built
// on: datasets with stable record IDs, loaders for the common file formats, preprocessing,
// deterministic synthetic data, L2-regularised losses with certified constants, projection
// onto a ball, and seeded random streams. The algorithms themselves live in subpackages,
// one per paper (d2d, …), and the privacy arithmetic they share in dp.
//
// # Data
//
// A Dataset is an immutable n×d feature matrix with labels and one int64 ID per row.
// Requests name IDs, never row numbers, and deleting an ID that is not present is an
// error that says whether it was deleted earlier or never existed:
//
//	ds, err := reference.LoadSklearnCSV("breast_cancer.csv")   // IDs are file row numbers
//	ds = ds.BinaryLabels(1).Standardize().NormalizeRows()      // ±1 labels, ‖x‖ = 1
//	next, err := ds.Apply(reference.DeleteID(17))              // a new dataset; ds is unchanged
//
// (ExampleLoadSklearnCSV runs it.)
//
// The features are dense (row-major, evaluated with BLAS) or sparse: NewSparseDataset
// takes a CSR matrix, and ParseLIBSVM keeps text-like data (fewer than a third of the
// entries non-zero) that way, so 60,000 features cost memory in proportion to the
// non-zeros. Record operations and the scalings (Scale, NormalizeRows, ScaleToUnitBall,
// MaxAbsScale) keep the form; Standardize centres, which fills in the zeros, so it returns
// dense data.
//
// Loaders (CSV, LIBSVM, MNIST idx, scikit-learn's CSV with a count header; gzip is
// detected) report bad input as an *InputError naming the file, the line or record, and
// the field. They grow with the bytes they read, never with what a header announces, and
// Limits.MaxValues is the one cap on a dense matrix (rows × features, 1 GiB of float64 by
// default), passed to every loader, never a global; Limits.CheckValues applies it, and its
// *LimitError says how to raise it. LoadIDXClasses reads an MNIST-style pair and keeps two classes as ±1 with
// the experiments' preprocessing; a preprocessing pipeline names its steps (PipelineSteps,
// ParsePipeline, Dataset.Preprocess) so that a model trained elsewhere and the toolkit's
// retrains see the same rows; FindDatasets locates the data sets the reproductions read
// (--datasets, $UNLEARNAUDIT_DATASETS, else the copy embedded from the repository's
// datasets/); ParseClassPair reads an "A,B" pair of labels.
//
// # Losses
//
// Logistic and Ridge are f_z(θ) = φ(xᵀθ; y) + (λ/2)‖θ‖². Constants gives the per-example
// Lipschitz constant, smoothness and strong convexity on the ball of radius R in the
// papers' closed forms; TightConstants gives exact suprema for checking declared constants
// against the data. Objective binds a loss to a dataset and evaluates the mean loss, its
// gradient (full or mini-batch), Hessian–vector products and the Hessian with BLAS (or
// indexed loops for sparse data), without allocating per call. CurvatureAt fixes the
// point of a Hessian-free solver's products, so that each costs one pass over X. Optional per-example gradient clipping turns φ into its Huberised
// version, which keeps the loss convex and smooth.
//
// # Randomness
//
// There is no global random generator. Every random step takes a *rand.Rand from
// Streams{Seed, Trial}.Rand(purpose): the same (seed, trial, purpose) always gives the same
// numbers, distinct purposes give independent streams. Two runs that must share randomness
// ask for the same purpose.
package reference
