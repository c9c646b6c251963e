//go:build unix && !aix

package outdir

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

// A .audit.lock planted as a hard link to a user's file is refused, naming it, and the
// user's file is left byte for byte, with its link: the old Open truncated it, wrote its
// pid record into it and unlinked it. Even a file holding a holder record is refused
// when it has a second link.
func TestLockRefusesHardLink(t *testing.T) {
	for name, text := range map[string]string{
		"notes":         "my notes, not a lock\n",
		"holder record": `{"pid":1,"host":"elsewhere"}` + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			mine := filepath.Join(t.TempDir(), "mine.txt")
			writeFile(t, mine, text)
			lock := filepath.Join(dir, LockFile)
			if err := os.Link(mine, lock); err != nil {
				t.Fatal(err)
			}
			d, err := Open(dir, Options{Force: true})
			if err == nil {
				d.Close()
			}
			if err == nil || !strings.Contains(err.Error(), lock) || !strings.Contains(err.Error(), "2 links") {
				t.Errorf("Open over a hard link: %v; want a refusal naming %s and its links", err, lock)
			}
			if b, _ := os.ReadFile(mine); string(b) != text {
				t.Errorf("the user's file now holds %q; want %q", b, text)
			}
			if st, err := os.Stat(mine); err != nil || st.Sys().(*syscall.Stat_t).Nlink != 2 {
				t.Errorf("the planted link was removed (%v)", err)
			}
		})
	}
}

// A file in the lock's place that is not a record of this tool's (other content, an
// empty file, someone else's file) is refused, naming it, and left as it was.
func TestLockRefusesForeignFile(t *testing.T) {
	cases := map[string]struct {
		text, want string
		uid        int // owner, if not this user
	}{
		"notes":          {"my notes\n", "does not hold a lock record", 0},
		"extra field":    {`{"pid":1,"host":"h","note":"x"}`, "does not hold a lock record", 0},
		"trailing data":  {`{"pid":1,"host":"h"} more`, "does not hold a lock record", 0},
		"no pid":         {`{"host":"h"}`, "does not hold a lock record", 0},
		"empty":          {"", "is empty", 0},
		"another user's": {`{"pid":1,"host":"h"}` + "\n", "belongs to user 65534", 65534},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			lock := filepath.Join(dir, LockFile)
			writeFile(t, lock, c.text)
			if c.uid != 0 {
				if os.Getuid() != 0 {
					t.Skip("chown needs root")
				}
				if err := os.Chown(lock, c.uid, c.uid); err != nil {
					t.Fatal(err)
				}
			}
			before, _ := os.Lstat(lock)
			d, err := Open(dir, Options{Force: true})
			if err == nil {
				d.Close()
			}
			if err == nil || !strings.Contains(err.Error(), lock) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Open over %q: %v; want a refusal naming %s: %q", c.text, err, lock, c.want)
			}
			after, lerr := os.Lstat(lock)
			if b, _ := os.ReadFile(lock); lerr != nil || !os.SameFile(before, after) || string(b) != c.text {
				t.Errorf("the file was replaced or rewritten: %q (%v)", b, lerr)
			}
		})
	}
}

// A lock file of this tool's whose holder is gone (its flock free) is taken over: the
// new holder's record replaces it, and Close removes it.
func TestLockTakesOverStale(t *testing.T) {
	dir := t.TempDir()
	lock := filepath.Join(dir, LockFile)
	writeFile(t, lock, `{"pid":999999999,"host":"gone"}`+"\n")
	d := mustOpen(t, dir, Options{})
	b, _ := os.ReadFile(lock)
	var h holder
	if err := json.Unmarshal(b, &h); err != nil || h.PID != os.Getpid() {
		t.Errorf("lock file %q after the takeover; want this process (%d) as the holder", b, os.Getpid())
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(lock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Close left the lock: %v", err)
	}
}

// parseHolder takes exactly a holder record: the fields, the values, nothing after.
func TestParseHolder(t *testing.T) {
	for text, want := range map[string]bool{
		`{"pid":12,"host":"h"}`:            true,
		"{\"pid\":12,\"host\":\"h\"}\n\n ": true,
		string(thisHolder()):               true,
		`{"pid":0,"host":"h"}`:             false,
		`{"pid":-3,"host":"h"}`:            false,
		`{"pid":12,"host":""}`:             false,
		`{"pid":12,"host":"h"}{}`:          false,
		`[1]`:                              false,
		`{"pid":12,"host":"h"` + strings.Repeat(" ", maxHolderBytes) + `}`: false,
	} {
		if _, got := parseHolder(mustTemp(t, text)); got != want {
			t.Errorf("parseHolder(%.40q): %v, want %v", text, got, want)
		}
	}
	if h, ok := parseHolder(mustTemp(t, fmt.Sprintf(`{"pid":%d,"host":"x"}`, 7))); !ok || h != (holder{PID: 7, Host: "x"}) {
		t.Errorf("parseHolder: %+v %v", h, ok)
	}
}

func mustTemp(t *testing.T, text string) *os.File {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "lock")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	return f
}

// Openers racing for a stale lock: each finds the same dead holder's file, but one at a
// time holds the folder, and every other is told it is held (never a refusal of the file:
// the record it refuses by is never seen half made).
func TestLockStaleTakeoverUnderRace(t *testing.T) {
	dir := t.TempDir()
	for round := range 40 {
		writeFile(t, filepath.Join(dir, LockFile), fmt.Sprintf(`{"pid":%d,"host":"gone"}`+"\n", 999999000+round))
		var holders, max, got atomic.Int32
		var wg sync.WaitGroup
		for range 6 {
			wg.Go(func() {
				d, err := Open(dir, Options{})
				if err != nil {
					var le *LockedError
					if !errors.As(err, &le) {
						t.Error(err)
					}
					return
				}
				got.Add(1)
				if n := holders.Add(1); n > max.Load() {
					max.Store(n)
				}
				runtime.Gosched()
				holders.Add(-1)
				d.Close()
			})
		}
		wg.Wait()
		if max.Load() != 1 || got.Load() == 0 {
			t.Fatalf("round %d: %d holders at once (%d acquisitions); want exactly 1", round, max.Load(), got.Load())
		}
	}
}

// parseHolder never panics, and what it accepts is a holder record: a positive pid, a
// host, and the same holder once written back the way a holder writes itself.
func FuzzParseHolder(f *testing.F) {
	for _, s := range []string{`{"pid":12,"host":"h"}`, string(thisHolder()), `{"pid":1}`, `{"pid":1,"host":"h"} x`, "", "\x00"} {
		f.Add(s)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, text string) {
		p := filepath.Join(dir, "lock")
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		file, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer file.Close()
		h, ok := parseHolder(file)
		if !ok {
			return
		}
		if h.PID <= 0 || h.Host == "" || len(text) > maxHolderBytes {
			t.Fatalf("accepted %q as %+v", text, h)
		}
		b, _ := json.Marshal(h)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if h2, ok := parseHolder(file); !ok || h2 != h {
			t.Fatalf("%+v written back reads as %+v, %v", h, h2, ok)
		}
	})
}
