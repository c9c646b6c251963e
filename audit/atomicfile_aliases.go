// Code generated for the move of the atomic writes to internal/atomicfile; DO NOT EDIT. These aliases keep old names compiling while callers move to package atomicfile, and go when they have.

package audit

import "github.com/unlearnaudit/unlearnaudit/internal/atomicfile"

type (
	Folder = atomicfile.Folder
)

var (
	WriteAtomic     = atomicfile.WriteAtomic
	WriteAtomicIn   = atomicfile.WriteAtomicIn
	WriteFileAtomic = atomicfile.WriteFileAtomic
)
