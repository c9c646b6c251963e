package outdir

import (
	"encoding/json"
	"io"
	"os"
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

// readHolder reads a lock file's holder; the zero holder if it cannot.
func readHolder(f *os.File) holder {
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	var h holder
	if err == nil {
		json.Unmarshal(b, &h) // a half-written record reads as no holder: the message says so
	}
	return h
}
