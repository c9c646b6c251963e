package outdir

import (
	"encoding/json"
	"io"
	"os"
	"time"
)

// holder is what the lock file says about the process that holds it.
type holder struct {
	PID  int    `json:"pid"`
	Host string `json:"host"`
}

// thisHolder is this process, as its lock file records it.
func thisHolder() []byte {
	host, err := os.Hostname()
	if err != nil {
		host = "unknown"
	}
	b, _ := json.Marshal(holder{PID: os.Getpid(), Host: host})
	return append(b, '\n')
}

// readHolder reads a lock file's holder; the zero holder if it cannot. A holder writes
// its record just after it takes the lock, so a record not there yet is waited for, a
// little: a writer that lost the race by a microsecond still names the winner.
func readHolder(f *os.File) holder {
	var h holder
	for range 50 {
		b, err := io.ReadAll(io.NewSectionReader(f, 0, 4096))
		if err == nil && json.Unmarshal(b, &h) == nil && h.PID != 0 {
			return h
		}
		time.Sleep(4 * time.Millisecond)
	}
	return holder{} // a damaged record: the message says "another process"
}
