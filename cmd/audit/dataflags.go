package main

import (
	"flag"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/audit"
	"github.com/unlearnaudit/unlearnaudit/audit/pipeline"
	"github.com/unlearnaudit/unlearnaudit/reference"
)

// registerData declares the flags that choose a dataset (pipeline.DataSource).
func registerData(fs *flag.FlagSet, d *pipeline.DataSource) {
	fs.StringVar(&d.Path, "data", "", "data file (default: built-in synthetic data); datasets/… names one of the repository's data sets, built into the binary, when no such file is here")
	fs.StringVar(&d.Format, "format", "", "format of --data: csv, libsvm, idx or sklearn-csv")
	fs.StringVar(&d.Labels, "labels", "", "idx labels file (default: the images file name with images→labels)")
	fs.IntVar(&d.LabelColumn, "label-column", -1, "csv: 0-based label column; negative counts from the end")
	fs.BoolVar(&d.Header, "header", false, "csv: the first line names the columns")
	fs.StringVar(&d.Classes, "classes", "", "two labels A,B to keep as +1 and −1 (e.g. 3,8 for MNIST)")
	fs.StringVar(&d.Preprocess, "preprocess", "auto", "steps applied to the features, in order: auto (pixels for idx, max-abs for sparse data, else standardize; then unit-rows), none, or a comma-separated list of "+strings.Join(reference.PipelineSteps, ", ")+" — to match how a model trained elsewhere saw its data")
	audit.Var(fs, &d.MaxValues, pipeline.MaxValuesParam)
}

// parseIDs reads --delete's list of record IDs.
var parseIDs = pipeline.ParseIDs
