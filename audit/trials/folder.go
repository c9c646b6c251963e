package trials

import (
	"io"
	"io/fs"
	"os"
)

// A Folder opens and writes files inside an output folder by name (slash-separated,
// relative to the folder), following no symbolic link on the way: outdir.Dir. The
// engine's checkpoints and the merged trials are written through one, so a link planted
// in the folder (OUT/trials pointing elsewhere) is refused, not written through. A nil
// Folder means plain paths.
type Folder interface {
	// OpenFile is os.OpenFile of the named file, refusing a symbolic link at any
	// element of its name (a *regular.LinkError).
	OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error)
	// WriteAtomic is WriteAtomic of the named file.
	WriteAtomic(name string, write func(io.Writer) error) error
	// Join is the named file's path, for messages.
	Join(name string) string
}
