//go:build unix

package audit

import (
	"errors"
	"syscall"
)

// noFollow makes opening a checkpoint fail on a symbolic link instead of following it.
const noFollow = syscall.O_NOFOLLOW

// isLink reports whether err is noFollow's refusal of a symbolic link: ELOOP, or EMLINK
// on FreeBSD and NetBSD.
func isLink(err error, _ string) bool {
	return errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK)
}
