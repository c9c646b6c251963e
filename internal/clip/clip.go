package clip

import (
	"fmt"
	"strconv"
)

// Max is how many characters of a value a message quotes.
const Max = 64

// cut is s's first Max characters and whether that is all of it.
func cut(s string) (string, bool) {
	n := 0
	for i := range s {
		if n == Max {
			return s[:i], false
		}
		n++
	}
	return s, true
}

// Quote is s quoted as Go quotes it (strconv.Quote): whole when it is short, else its
// first Max characters followed by "… (N bytes)".
func Quote(s string) string {
	head, whole := cut(s)
	if whole {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(head), len(s))
}

// Text is Quote unquoted, for values that read best bare (numbers): s when it is short,
// else its first Max characters followed by "… (N bytes)".
func Text(s string) string {
	head, whole := cut(s)
	if whole {
		return s
	}
	return fmt.Sprintf("%s… (%d bytes)", head, len(s))
}
