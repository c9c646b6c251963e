package outdir

import (
	"bytes"
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

// maxHolderBytes bounds a holder record read: a pid and a host name.
const maxHolderBytes = 4096

// parseHolder reads f as a holder record, strictly: one JSON object of exactly the
// holder's fields, a pid and a host, and nothing after it but white space. Only a file
// holding one is a lock this tool may remove as stale.
func parseHolder(f *os.File) (holder, bool) {
	b, err := io.ReadAll(io.NewSectionReader(f, 0, maxHolderBytes+1))
	if err != nil || len(b) > maxHolderBytes {
		return holder{}, false
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var h holder
	if dec.Decode(&h) != nil || h.PID <= 0 || h.Host == "" {
		return holder{}, false
	}
	if len(bytes.TrimSpace(b[dec.InputOffset():])) > 0 {
		return holder{}, false
	}
	return h, true
}
