package clip_test

import (
	"fmt"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
)

// The package comment's calls, run: a short value quoted, a long one clipped with its
// length, a number left bare, and a terminal escape quoted.
func Example() {
	fmt.Println(clip.Quote("abc"))
	long := clip.Quote(strings.Repeat("x", 10000))
	fmt.Println(strings.Count(long, "x"), long[strings.LastIndex(long, `"`):], len(long) <= clip.Bound)
	fmt.Println(clip.Text("1e999"))
	fmt.Println(clip.Text("\x1b[31m"))
	// Output:
	// "abc"
	// 64 "… (10000 bytes) true
	// 1e999
	// "\x1b[31m"
}
