package outdir

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func mustOpen(t *testing.T, dir string, opt Options) *Dir {
	t.Helper()
	d, err := Open(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readManifest(t *testing.T, dir string) manifest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func foreignNames(err error) []string {
	var fe *ForeignError
	if !errors.As(err, &fe) {
		return nil
	}
	return fe.Names
}

// The tool replaces and removes only what it wrote: files it never wrote, files edited
// since, and things that are not files are the user's; a refusal touches nothing; Force
// takes them over.
func TestOwnership(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	d := mustOpen(t, dir, Options{})
	if err := d.WriteFiles(map[string][]byte{"report.json": []byte("{}\n"), "report.md": []byte("# r\n"), "sub/x.txt": []byte("x")}); err != nil {
		t.Fatal(err)
	}
	writeFile(t, d.Join("notes.txt"), "mine")
	writeFile(t, d.Join("report.md"), "# r, edited by hand\n")
	if err := os.Mkdir(d.Join("report.html"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := d.Claim("report.json", "sub/x.txt", "report.pdf"); err != nil {
		t.Errorf("the tool's own files and an absent one: %v", err)
	}
	err := d.Remove("report.json", "notes.txt", "report.md", "report.html", "report.pdf")
	if got, want := foreignNames(err), []string{"notes.txt", "report.md", "report.html"}; !slices.Equal(got, want) {
		t.Fatalf("Remove: %v; want a ForeignError naming %v", err, want)
	}
	if !strings.Contains(err.Error(), d.Join("notes.txt")) || !strings.Contains(err.Error(), ManifestFile) {
		t.Errorf("message %q names neither the file nor the manifest", err)
	}
	for _, f := range []string{"report.json", "notes.txt", "report.md", "report.html"} {
		if _, err := os.Stat(d.Join(f)); err != nil {
			t.Errorf("a refused Remove removed %s: %v", f, err)
		}
	}
	if err := d.Remove("report.json"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(d.Join("report.json")); !os.IsNotExist(err) {
		t.Errorf("the tool's own report.json survived Remove: %v", err)
	}
	if err := d.WriteFiles(map[string][]byte{"report.json": []byte("{}\n"), "notes.txt": []byte("overwritten")}); foreignNames(err) == nil {
		t.Errorf("WriteFiles over the user's notes: %v", err)
	}
	if _, err := os.Stat(d.Join("report.json")); !os.IsNotExist(err) {
		t.Errorf("a refused WriteFiles wrote report.json first: %v", err)
	}
	d.Close()

	// the listing survives the process: a new Open knows the same files
	d = mustOpen(t, dir, Options{})
	if got := foreignNames(d.Claim("sub/x.txt", "notes.txt")); !slices.Equal(got, []string{"notes.txt"}) {
		t.Errorf("reopened: foreign %v, want [notes.txt]", got)
	}
	d.Close()

	d = mustOpen(t, dir, Options{Force: true})
	if err := d.Remove("notes.txt", "report.md"); err != nil {
		t.Fatalf("Force: %v", err)
	}
	if err := d.WriteFiles(map[string][]byte{"report.md": []byte("new\n")}); err != nil {
		t.Fatal(err)
	}
	d.Close()
	d = mustOpen(t, dir, Options{})
	defer d.Close()
	if err := d.Claim("report.md"); err != nil {
		t.Errorf("a file taken over and rewritten is the tool's: %v", err)
	}
}

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// A write killed between the manifest and the rename leaves the old file, still the
// tool's; a finished write leaves no prior hash behind.
func TestPriorHash(t *testing.T) {
	dir := t.TempDir()
	d := mustOpen(t, dir, Options{})
	for _, body := range []string{"v1", "v2"} {
		if err := d.WriteFiles(map[string][]byte{"r": []byte(body)}); err != nil {
			t.Fatal(err)
		}
	}
	d.Close()
	m := readManifest(t, dir)
	if len(m.Files) != 1 || m.Files[0] != (entry{Name: "r", SHA256: sum("v2")}) {
		t.Fatalf("manifest %+v; want r with v2's hash and no prior", m.Files)
	}
	// as the process killed after saving the manifest for v3 would have left it
	m.Files[0] = entry{Name: "r", SHA256: sum("v3"), Prior: sum("v2")}
	b, _ := json.Marshal(m)
	writeFile(t, filepath.Join(dir, ManifestFile), string(b))
	d = mustOpen(t, dir, Options{})
	defer d.Close()
	if err := d.Claim("r"); err != nil {
		t.Errorf("the prior file of an interrupted write: %v", err)
	}
	if err := d.WriteFiles(map[string][]byte{"r": []byte("v3")}); err != nil {
		t.Fatal(err)
	}
	if m := readManifest(t, dir); m.Files[0] != (entry{Name: "r", SHA256: sum("v3")}) {
		t.Errorf("manifest %+v after the rewrite", m.Files)
	}
}

// A command that wrote nothing leaves nothing: not the folders Open created, not the lock,
// not a manifest listing checkpoints never begun. One that wrote keeps them listed.
func TestCloseLeavesNothing(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "a", "b")
	d := mustOpen(t, dir, Options{})
	if err := d.MkdirAll("trials"); err != nil {
		t.Fatal(err)
	}
	if err := d.Appending("trials/x.jsonl", "trials/y.jsonl"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ManifestFile)); err != nil {
		t.Fatalf("Appending did not record the files before they are written: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "a")); !os.IsNotExist(err) {
		t.Errorf("a command that wrote nothing left %s: %v", filepath.Join(root, "a"), err)
	}

	d = mustOpen(t, dir, Options{})
	d.MkdirAll("trials")
	d.Appending("trials/x.jsonl", "trials/y.jsonl")
	writeFile(t, d.Join("trials/x.jsonl"), "a line\n")
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if m := readManifest(t, dir); len(m.Files) != 1 || m.Files[0] != (entry{Name: "trials/x.jsonl", Appended: true}) {
		t.Errorf("manifest %+v; want the one checkpoint begun, as appended", m.Files)
	}
	if _, err := os.Stat(filepath.Join(dir, LockFile)); !os.IsNotExist(err) {
		t.Errorf("Close left the lock file: %v", err)
	}
	// appended to since, by the tool: still its own
	writeFile(t, filepath.Join(dir, "trials", "x.jsonl"), "a line\nanother\n")
	d = mustOpen(t, dir, Options{})
	defer d.Close()
	if err := d.Claim("trials/x.jsonl"); err != nil {
		t.Error(err)
	}
}

// A manifest the tool cannot read is refused, naming it; Force takes the folder over.
func TestDamagedManifest(t *testing.T) {
	for name, text := range map[string]string{
		"garbage":       "not json",
		"wrong schema":  `{"schema": "x", "files": []}`,
		"unknown field": `{"schema": "` + ManifestSchema + `", "files": [], "extra": 1}`,
		"escaping name": `{"schema": "` + ManifestSchema + `", "files": [{"name": "../etc/passwd", "sha256": "00"}]}`,
		"absolute name": `{"schema": "` + ManifestSchema + `", "files": [{"name": "/etc/passwd", "sha256": "00"}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, ManifestFile), text)
			writeFile(t, filepath.Join(dir, "report.json"), "{}")
			_, err := Open(dir, Options{})
			var me *ManifestError
			if !errors.As(err, &me) || !strings.Contains(err.Error(), filepath.Join(dir, ManifestFile)) {
				t.Fatalf("Open: %v; want a ManifestError naming the manifest", err)
			}
			if _, err := os.Stat(filepath.Join(dir, LockFile)); !os.IsNotExist(err) {
				t.Errorf("a refused Open left its lock: %v", err)
			}
			d := mustOpen(t, dir, Options{Force: true})
			defer d.Close()
			if err := d.Remove("report.json"); err != nil {
				t.Error(err)
			}
		})
	}
}

// Names outside the folder, and the folder's own bookkeeping, are never claimed.
func TestClaimRefusesOutsideNames(t *testing.T) {
	d := mustOpen(t, t.TempDir(), Options{Force: true})
	defer d.Close()
	for _, n := range []string{"../x", "/etc/passwd", "", LockFile, ManifestFile} {
		if err := d.Claim(n); err == nil || foreignNames(err) != nil {
			t.Errorf("Claim(%q): %v; want a refusal of the name", n, err)
		}
	}
}

// A second Open of a held folder names the holder; the folder is free again once closed.
func TestLockHeld(t *testing.T) {
	dir := t.TempDir()
	d := mustOpen(t, dir, Options{})
	_, err := Open(dir, Options{})
	var le *LockedError
	host, _ := os.Hostname()
	if !errors.As(err, &le) || le.PID != os.Getpid() || le.Host != host {
		t.Fatalf("second Open: %v; want a LockedError naming pid %d on %s", err, os.Getpid(), host)
	}
	for _, w := range []string{fmt.Sprintf("process %d on host %s", os.Getpid(), host), filepath.Join(dir, LockFile)} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("message %q lacks %q", err, w)
		}
	}
	d.Close()
	mustOpen(t, dir, Options{}).Close()
}

// Many openers racing for one folder: never two holders at once, though each release
// removes the lock file another may have just opened.
func TestLockExclusiveUnderRace(t *testing.T) {
	dir := t.TempDir()
	var holders, max, got atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 300 {
				d, err := Open(dir, Options{})
				if err != nil {
					var le *LockedError
					if !errors.As(err, &le) {
						t.Error(err)
						return
					}
					runtime.Gosched()
					continue
				}
				got.Add(1)
				if n := holders.Add(1); n > max.Load() {
					max.Store(n)
				}
				runtime.Gosched()
				holders.Add(-1)
				d.Close()
			}
		})
	}
	wg.Wait()
	if max.Load() != 1 || got.Load() == 0 {
		t.Fatalf("%d holders at once (%d acquisitions); want exactly 1", max.Load(), got.Load())
	}
}

// holdEnv makes the test binary a process that opens a folder, says so, and waits to be
// killed.
const holdEnv = "OUTDIR_TEST_HOLD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(holdEnv); dir != "" {
		if _, err := Open(dir, Options{}); err != nil {
			fmt.Println(err)
			os.Exit(2)
		}
		fmt.Println("held")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A process killed with SIGKILL while holding the folder leaves its lock file; the next
// Open takes the lock over and writes itself in as the holder.
func TestLockOfKilledProcess(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "aix" || runtime.GOOS == "plan9" {
		t.Skip("a dead holder's lock is freed by flock only")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), holdEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "held\n" {
		t.Fatalf("holder said %q (%v)", line, err)
	}
	_, err = Open(dir, Options{})
	var le *LockedError
	if !errors.As(err, &le) || le.PID != cmd.Process.Pid {
		t.Fatalf("Open while held: %v; want the holder's pid %d", err, cmd.Process.Pid)
	}
	cmd.Process.Kill() // SIGKILL: no chance to clean up
	cmd.Wait()
	if _, err := os.Stat(filepath.Join(dir, LockFile)); err != nil {
		t.Fatalf("the killed holder's lock file is gone (%v): nothing to take over", err)
	}
	d := mustOpen(t, dir, Options{})
	defer d.Close()
	b, _ := os.ReadFile(filepath.Join(dir, LockFile))
	var h holder
	if err := json.Unmarshal(b, &h); err != nil || h.PID != os.Getpid() {
		t.Errorf("lock file %q after the takeover; want this process (%d) as the holder", b, os.Getpid())
	}
}

// CheckOut refuses an empty output, an input by any of its names, and a place inside an
// input folder that is read; it allows a sibling with a common prefix.
func TestCheckOut(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "r.json")
	writeFile(t, in, "{}")
	link, hard := filepath.Join(dir, "link.json"), filepath.Join(dir, "hard.json")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	part := filepath.Join(dir, "shards", "shard-0-of-2")
	os.MkdirAll(part, 0o755)
	wd, _ := os.Getwd()
	rel, err := filepath.Rel(wd, in)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		out    string
		inputs []Input
		want   string // "" for allowed
	}{
		{"", nil, "--out: empty"},
		{in, []Input{{Flag: "--in", Path: in}}, "is the input --in"},
		{rel, []Input{{Flag: "--in", Path: in}}, "is the input --in"},
		{filepath.Join(dir, ".", "x", "..", "r.json"), []Input{{Flag: "--in", Path: in}}, "is the input --in"},
		{link, []Input{{Flag: "--in", Path: in}}, "is the input --in"},
		{hard, []Input{{Flag: "--in", Path: in}}, "is the input --in"},
		{in, []Input{{Flag: "--data", Path: ""}, {Flag: "--spec", Path: in}}, "is the input --spec"},
		{part, []Input{{Flag: "shard part", Path: part, Tree: true}}, "is the input shard part"},
		{filepath.Join(part, "trials"), []Input{{Flag: "shard part", Path: part, Tree: true}}, "is inside shard part"},
		{filepath.Join(part, "new", "deeper"), []Input{{Flag: "shard part", Path: part, Tree: true}}, "is inside shard part"},
		{part + "x", []Input{{Flag: "shard part", Path: part, Tree: true}}, ""},
		{filepath.Join(dir, "shards"), []Input{{Flag: "shard part", Path: part, Tree: true}}, ""},
		{filepath.Join(dir, "out"), []Input{{Flag: "--in", Path: in}}, ""},
		{filepath.Join(dir, "r.json", "x"), []Input{{Flag: "--in", Path: in}}, ""}, // not a folder: its creation fails, naming it
	}
	for _, c := range cases {
		err := CheckOut("--out", c.out, c.inputs...)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("CheckOut(%q, %v): %v; want it allowed", c.out, c.inputs, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("CheckOut(%q, %v): %v; want %q", c.out, c.inputs, err, c.want)
		}
	}
}

// Written lists the files the manifest records directly inside a subfolder that are
// there, after the folder is closed and opened again too: not one recorded but never
// created (a checkpoint whose run finished no trial), not one removed since, not one in
// another folder or deeper, not a file the tool did not write. Planted and caught: the
// existence check dropped (the never-created file is then listed).
func TestWritten(t *testing.T) {
	dir := t.TempDir()
	d := mustOpen(t, dir, Options{})
	if err := d.MkdirAll("trials/deep"); err != nil {
		t.Fatal(err)
	}
	names := []string{"trials/a.jsonl", "trials/b.jsonl", "trials/gone.jsonl", "trials/deep/c.jsonl", "top.jsonl"}
	if err := d.Claim(names...); err != nil {
		t.Fatal(err)
	}
	if err := d.Appending(names...); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"trials/b.jsonl", "trials/gone.jsonl", "trials/deep/c.jsonl", "top.jsonl"} { // not a.jsonl
		f, err := d.OpenFile(n, os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if err := os.Remove(filepath.Join(dir, "trials", "gone.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "trials", "foreign.jsonl"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	want := []string{"trials/b.jsonl"}
	if got := d.Written("trials"); !slices.Equal(got, want) {
		t.Errorf("Written(trials) = %q; want %q", got, want)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	d = mustOpen(t, dir, Options{})
	defer d.Close()
	if got := d.Written("trials"); !slices.Equal(got, want) {
		t.Errorf("reopened, Written(trials) = %q; want %q", got, want)
	}
}
