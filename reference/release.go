package reference

// A Release is what a method publishes after learning or unlearning, with the pre-noise
// state it was published from when the method has one. Audits compare the law of
// Published between an unlearned run and a retrain; Secret lets them check the
// implementation against the proofs, which speak of the pre-noise iterate.
type Release struct {
	Published []float64 `json:"published"`
	Secret    []float64 `json:"secret,omitempty"`
	// Coupled is the pre-noise model a retrain from scratch reaches on the same random
	// choices as this run (for D2D's distributed descent, the same bootstrap slots), for
	// methods whose proofs compare coupled runs.
	Coupled []float64 `json:"coupled,omitempty"`
	// Diagnostics are method-specific numbers of the run (e.g. a certified distance
	// computed from the run's realised random choices), keyed by name.
	Diagnostics map[string]float64 `json:"diagnostics,omitempty"`
}
