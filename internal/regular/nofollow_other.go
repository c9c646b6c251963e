//go:build !unix

package regular

import "os"

// NoFollow is 0 where the open has no such flag; IsLinkRefusal then asks the file system.
const NoFollow = 0

// IsLinkRefusal reports whether path is a symbolic link (checked after the open, so a link
// made between the two is not seen: the flag does this on Unix).
func IsLinkRefusal(_ error, path string) bool {
	st, err := os.Lstat(path)
	return err == nil && st.Mode()&os.ModeSymlink != 0
}
