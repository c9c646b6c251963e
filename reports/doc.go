// Package reports holds the versioned report model and its renderings. It computes
// nothing: it converts audit claims and findings into the report schema
// ("unlearnaudit/report/v2") and renders them.
//
// The JSON form is the record: it names the tool and version, the seed, every input file
// with its SHA-256, each subject's claim with its full derivation, and each finding with
// its verdict, measured value, interval, bound and confidence. It contains no timestamps or
// host names, so the same inputs and seed give byte-identical JSON. Infinite values are
// written as the strings "+Inf" and "-Inf". Markdown renders the same content for people.
package reports
