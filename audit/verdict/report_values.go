package verdict

// The report values below are made by the audit and the method packages and rendered by
// package reports; they live here, in the leaf, so that reports imports none of what
// computes them.

// A Row is one quantity of a certificate: a key (of the JSON object a front end may
// print), its value (a number, an integer, a string or a list), and what it is: the
// formula and source, or the other reading where a spec flags one.
type Row struct {
	Key   string
	Value any
	Note  string
}

// Utility is how well both sides' models still work: the loss and accuracy of the
// unlearned and of the retrained models on the forget, retain and test sets. It is a
// measurement beside the verdict, never a part of it: unlearning is judged by the
// forgetting checks, and a compliance reader wants to see beside them that the model
// still works (and, on the forget set, that it does about as well there as a retrain).
type Utility struct {
	Source string       `json:"source"` // where the per-record values came from
	Rows   []UtilityRow `json:"rows"`
}

// UtilityRow is one measurement: the mean over a side's models of each model's mean over
// the set's records, and the standard deviation of those model means (n − 1 in the
// denominator; 0 for one model).
type UtilityRow struct {
	Set     string  `json:"set"`     // forget, retain or test
	Measure string  `json:"measure"` // loss or accuracy
	Side    string  `json:"side"`    // unlearned or retrained
	Models  int     `json:"models"`
	Records int     `json:"records"`
	Mean    float64 `json:"mean"`
	SD      float64 `json:"sd"`
}

// OutputFormats are the renderings of a report, by file extension, that a spec or a
// command may ask for: JSON is the source of the others.
var OutputFormats = []string{"json", "md", "html", "pdf"}

// FigureFormats are the formats a figure is drawn in.
var FigureFormats = []string{"svg", "png", "pdf"}
