// Package atomicfile writes files so that a reader never sees half of one: each body goes
// to a temporary file beside its target, created exclusively beneath an os.Root of the
// folder, and is renamed into place only when it is complete, and a target that exists
// and is not a regular file (a device, a FIFO, a symbolic link) is refused, not replaced.
//
// It is a leaf (it imports only internal/regular) so that the output folder
// (internal/outdir), the audit engine's checkpoints and the front ends share one writer
// without importing the audit packages that use it.
//
//	err := atomicfile.WriteFileAtomic("out/report.json", body)
//
// A [Folder] is a folder that writes through it by name, following no link: outdir.Dir.
//
// WriteNew is the other kind of write: a record that must never change once made (a
// canary plan) goes to a new file, never over one, and a failed write leaves none.
package atomicfile
