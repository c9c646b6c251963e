package regular

import "errors"

// ErrLink is a symbolic link met where a path inside an output folder must name a file
// or folder of the folder's own: it is never followed (it could lead anywhere, a file of
// the user's included).
var ErrLink = errors.New("a symbolic link, not followed")

// A LinkError is a symbolic link at Path, refused rather than followed.
type LinkError struct {
	Path string
}

func (e *LinkError) Error() string {
	return e.Path + ": " + ErrLink.Error() + " (the tool writes only in files and folders of its own inside its output folder); move it away"
}

func (e *LinkError) Unwrap() error { return ErrLink }
