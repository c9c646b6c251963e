package reference

// A Release is what a method publishes after learning or unlearning, with the pre-noise
// state it was published from when the method has one. Audits compare the law of
// Published between an unlearned run and a retrain; Secret lets them check the
// implementation against the proofs, which speak of the pre-noise iterate.
type Release struct {
	Published []float64 `json:"published"`
	Secret    []float64 `json:"secret,omitempty"`
}
