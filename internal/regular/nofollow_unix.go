//go:build unix

package regular

import (
	"errors"
	"syscall"
)

// NoFollow is the open flag that makes opening a symbolic link fail instead of following
// it (O_NOFOLLOW), for files the tool writes in its own folders.
const NoFollow = syscall.O_NOFOLLOW

// IsLinkRefusal reports whether err, from an open of path with NoFollow, is the refusal of
// a symbolic link: ELOOP, or EMLINK on FreeBSD and NetBSD.
func IsLinkRefusal(err error, _ string) bool {
	return errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK)
}
