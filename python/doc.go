// Package python is the folder of the Python package unlearnaudit (docs/python.md), an API
// over the audit binary; its Go test keeps the report fields the package parses equal to
// the ones reports.Report writes.
package python
