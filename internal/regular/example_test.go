package regular_test

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/unlearnaudit/unlearnaudit/internal/regular"
)

func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "regular")
	defer os.RemoveAll(dir)
	fifo := filepath.Join(dir, "data.csv")
	syscall.Mkfifo(fifo, 0o600)
	_, err := regular.Open(fifo) // returns at once: no writer is waited for
	fmt.Println(err != nil)
	// Output: true
}
