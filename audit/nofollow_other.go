//go:build !unix

package audit

import "os"

// noFollow is 0 where the open has no such flag; isLink then asks the file system.
const noFollow = 0

// isLink reports whether path is a symbolic link (checked after the open, so a link made
// between the two is not seen: the flag does this on Unix).
func isLink(_ error, path string) bool {
	st, err := os.Lstat(path)
	return err == nil && st.Mode()&os.ModeSymlink != 0
}
