package outdir

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
	"github.com/unlearnaudit/unlearnaudit/internal/regular"
)

// The files a Dir keeps beside the outputs. Neither enters a report or a fingerprint.
const (
	// LockFile is the advisory lock, holding its holder's pid and host.
	LockFile = ".audit.lock"
	// ManifestFile lists the files the tool wrote in the folder, with their hashes.
	ManifestFile = ".audit-manifest.json"
	// ManifestSchema is the manifest's schema.
	ManifestSchema = "unlearnaudit/outputs/v1"
)

// maxManifestBytes bounds the manifest read: file names and hashes, never data.
const maxManifestBytes = 4 << 20

// Options say how a folder is opened.
type Options struct {
	// Force takes over the files the tool did not write: a Claim of one succeeds, and
	// the file is then the tool's to replace or remove. Without it a Claim of such a file
	// fails with a *ForeignError.
	Force bool
}

// A Dir is an output folder opened by one writer: its lock held, its manifest read.
// It is not safe for concurrent use.
type Dir struct {
	path      string
	root      *os.Root // the folder: every file inside it is opened beneath it
	lock      *lock
	files     map[string]entry // the manifest, by slash-separated name
	taken     map[string]bool  // foreign files claimed with Options.Force
	created   []string         // folders Open created (paths), innermost first
	createdIn []string         // folders created inside it (names), innermost first
	dirty     bool             // the manifest changed since it was saved
	force     bool
}

// entry is one file of the manifest. A file the tool writes whole has its hash; a file
// the tool appends to as it goes (a checkpoint) is Appended, with no hash: its content
// is checked by its reader (the audit engine's per-line checksums), and a hash recorded
// after every line would not survive a SIGKILL between a line and its record.
type entry struct {
	Name     string `json:"name"`
	SHA256   string `json:"sha256,omitempty"`
	Appended bool   `json:"appended,omitempty"`
	// Prior is the hash of the file this write replaces, kept until the write has landed:
	// a process killed between the manifest and the rename leaves either, both the tool's.
	Prior string `json:"prior,omitempty"`
}

type manifest struct {
	Schema string  `json:"schema"`
	Files  []entry `json:"files"`
}

// A LockedError is a folder another process holds: its pid and host, as it wrote them.
type LockedError struct {
	Dir  string
	PID  int    // 0 when the holder's record could not be read
	Host string // "" likewise
}

func (e *LockedError) Error() string {
	who := "another process"
	if e.PID != 0 {
		who = fmt.Sprintf("process %d on host %s", e.PID, e.Host)
	}
	return fmt.Sprintf("%s is in use by %s (lock %s): one writer at a time, or its checkpoints tear; wait for it to finish or stop it",
		e.Dir, who, filepath.Join(e.Dir, LockFile))
}

// A ForeignError is files in the folder the tool did not write, or that changed since
// it wrote them, which a command would replace or remove.
type ForeignError struct {
	Dir   string
	Names []string // slash-separated, relative to Dir
}

func (e *ForeignError) Error() string {
	paths := make([]string, len(e.Names))
	for i, n := range e.Names {
		paths[i] = filepath.Join(e.Dir, filepath.FromSlash(n))
	}
	what := "was"
	if len(paths) > 1 {
		what = "were"
	}
	return fmt.Sprintf("%s %s not written by this tool, or changed since (%s does not list it as written)",
		strings.Join(paths, ", "), what, filepath.Join(e.Dir, ManifestFile))
}

// Open creates the folder path if need be, takes its lock (a *LockedError if another
// process holds it) and reads its manifest. Close releases it.
func Open(path string, opt Options) (*Dir, error) {
	if path == "" {
		return nil, errors.New("open output folder: empty path")
	}
	d := &Dir{path: path, files: map[string]entry{}, taken: map[string]bool{}, force: opt.Force}
	created, err := mkdirs(path)
	d.created = created
	if err != nil {
		d.removeCreated()
		return nil, fmt.Errorf("open output folder: %w", err)
	}
	if d.root, err = os.OpenRoot(path); err != nil {
		d.removeCreated()
		return nil, fmt.Errorf("open output folder: %w", err)
	}
	if d.lock, err = acquire(d.root, path); err != nil {
		d.root.Close()
		d.removeCreated()
		return nil, err
	}
	if err := d.readManifest(); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// Path is the folder's path, as given to Open.
func (d *Dir) Path() string { return d.path }

// Join is the path of the named file (slash-separated, relative to the folder).
func (d *Dir) Join(name string) string { return filepath.Join(d.path, filepath.FromSlash(name)) }

// Written is the files the tool wrote directly inside the folder's subfolder sub
// (slash-separated names relative to the folder, as Claim takes them), sorted: those the
// manifest lists that are there, regular files. A file recorded but never created (a
// checkpoint whose run finished no trial) or since removed is not.
func (d *Dir) Written(sub string) []string {
	var names []string
	for name := range d.files {
		if path.Dir(name) != path.Clean(sub) {
			continue
		}
		if info, err := d.lstat(name); err == nil && info.Mode().IsRegular() {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

func (d *Dir) readManifest() error {
	path := d.Join(ManifestFile)
	// read as regular.ReadFile does: a FIFO planted here must not block the command, and
	// a device must not be read without end; neither is taken over with Force (save would
	// have to replace it); nor a symbolic link, which save would replace by a file
	if st, err := d.root.Lstat(ManifestFile); err == nil {
		if err := regular.Check(path, st.Mode()); err != nil {
			return &ManifestError{Path: path, Err: err}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return &ManifestError{Path: path, Err: err}
	}
	b, err := d.readFile(ManifestFile, maxManifestBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if errors.Is(err, regular.ErrNotRegular) {
		return &ManifestError{Path: path, Err: err}
	}
	if err != nil && !errors.As(err, new(*regular.TooLargeError)) {
		return fmt.Errorf("read %s: %w", path, err)
	}
	var m manifest
	if err == nil {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		err = dec.Decode(&m)
	}
	if err == nil && m.Schema != ManifestSchema {
		err = fmt.Errorf("schema %s, want %q", clip.Quote(m.Schema), ManifestSchema)
	}
	for _, e := range m.Files {
		if err == nil && !filepath.IsLocal(filepath.FromSlash(e.Name)) {
			err = fmt.Errorf("file %s is not inside the folder", clip.Quote(e.Name))
		}
		d.files[e.Name] = e
	}
	if err != nil {
		if !d.force {
			return &ManifestError{Path: path, Err: err}
		}
		// Force takes the folder over: its files are then all foreign, and taken.
		clear(d.files)
		d.dirty = true
	}
	return nil
}

// A ManifestError is a manifest the tool cannot read: it no longer knows what it wrote.
type ManifestError struct {
	Path string
	Err  error
}

func (e *ManifestError) Error() string {
	return fmt.Sprintf("output manifest %s: %v (edited or damaged: the tool no longer knows which files it wrote)", e.Path, e.Err)
}

func (e *ManifestError) Unwrap() error { return e.Err }

// owned reports whether the named file is absent or the tool's: listed in the manifest
// with the hash it has now (or appended to by the tool), or taken over with Force.
func (d *Dir) owned(name string) (bool, error) {
	info, err := d.lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	var le *regular.LinkError
	if errors.As(err, &le) {
		return false, err
	}
	if err != nil {
		return false, fmt.Errorf("check %s: %w", d.Join(name), err)
	}
	if d.taken[name] {
		return true, nil
	}
	e, ok := d.files[name]
	if !ok || !info.Mode().IsRegular() {
		return false, nil
	}
	if e.Appended {
		return true, nil
	}
	sum, err := d.hashFile(name)
	if err != nil {
		return false, err
	}
	return sum == e.SHA256 || (e.Prior != "" && sum == e.Prior), nil
}

// Claim checks that each named file (slash-separated, relative to the folder) is absent
// or the tool's, before a command replaces or removes any: a *ForeignError names every
// one that is not. With Options.Force they are taken over instead.
func (d *Dir) Claim(names ...string) error {
	var foreign []string
	for _, n := range names {
		if err := checkName(n); err != nil {
			return err
		}
		ok, err := d.owned(n)
		if err != nil {
			return err
		}
		if !ok {
			foreign = append(foreign, n)
		}
	}
	if len(foreign) == 0 {
		return nil
	}
	if !d.force {
		return &ForeignError{Dir: d.path, Names: foreign}
	}
	for _, n := range foreign {
		d.taken[n] = true
	}
	return nil
}

func checkName(name string) error {
	if !filepath.IsLocal(filepath.FromSlash(name)) || name == LockFile || name == ManifestFile {
		return fmt.Errorf("output file %s: not a name inside the folder", clip.Quote(name))
	}
	return nil
}

// Remove removes the named files that are the tool's (Claim first: nothing is removed
// unless every one is) and forgets them. Absent files are no error.
func (d *Dir) Remove(names ...string) error {
	if err := d.Claim(names...); err != nil {
		return err
	}
	for _, n := range names {
		if err := d.remove(n); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", d.Join(n), err)
		}
		d.forget(n)
	}
	return d.save()
}

func (d *Dir) forget(name string) {
	if _, ok := d.files[name]; ok {
		delete(d.files, name)
		d.dirty = true
	}
	delete(d.taken, name)
}

// WriteFiles writes each named file atomically (a temporary file renamed into place),
// in order of name, and records its hash. Every name is claimed before any is written.
func (d *Dir) WriteFiles(files map[string][]byte) error {
	names := slices.Sorted(maps.Keys(files))
	if err := d.Claim(names...); err != nil {
		return err
	}
	// The manifest first, with the hashes to be, each beside its file's present one: a
	// process killed in between leaves files the manifest still owns.
	for _, n := range names {
		sum := sha256.Sum256(files[n])
		e := entry{Name: n, SHA256: hex.EncodeToString(sum[:])}
		if old, ok := d.files[n]; ok && !d.taken[n] && !old.Appended {
			// the file is the tool's (claimed): its hash now is the recorded one or,
			// after an interrupted write, the prior one
			if now, err := d.hashFile(n); err == nil && now != e.SHA256 {
				e.Prior = now
			}
		}
		d.files[n], d.dirty = e, true
	}
	if err := d.save(); err != nil {
		return err
	}
	for _, n := range names {
		if err := d.MkdirAll(filepath.ToSlash(filepath.Dir(filepath.FromSlash(n)))); err != nil {
			return err
		}
		if err := d.WriteAtomic(n, writeBytes(files[n])); err != nil {
			return err
		}
		delete(d.taken, n)
	}
	for _, n := range names {
		if e := d.files[n]; e.Prior != "" {
			e.Prior = ""
			d.files[n], d.dirty = e, true
		}
	}
	return d.save()
}

// Appending claims the named files as ones the tool appends to as it goes (checkpoints)
// and records them before any line is written, so that an interrupted run's files stay
// the tool's. It returns nothing but the claim's error: the caller writes the files.
func (d *Dir) Appending(names ...string) error {
	if err := d.Claim(names...); err != nil {
		return err
	}
	for _, n := range names {
		if e, ok := d.files[n]; !ok || !e.Appended {
			d.files[n], d.dirty = entry{Name: n, Appended: true}, true
		}
		delete(d.taken, n)
	}
	return d.save()
}

// MkdirAll creates the named folder inside the folder (slash-separated; "." is the
// folder itself), remembering what it created for Close.
// A symbolic link on the way is refused (a *regular.LinkError), not followed.
func (d *Dir) MkdirAll(name string) error {
	if name == "." {
		return nil
	}
	_, _, done, err := d.parent(name+"/.", true)
	if err != nil {
		return fmt.Errorf("create %s: %w", d.Join(name), err)
	}
	done()
	return nil
}

// save writes the manifest atomically if it changed; an empty one is removed.
func (d *Dir) save() error {
	if !d.dirty {
		return nil
	}
	path := d.Join(ManifestFile)
	if len(d.files) == 0 {
		if err := d.root.Remove(ManifestFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", path, err)
		}
		d.dirty = false
		return nil
	}
	m := manifest{Schema: ManifestSchema}
	for _, n := range slices.Sorted(maps.Keys(d.files)) {
		m.Files = append(m.Files, d.files[n])
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := d.WriteAtomic(ManifestFile, writeBytes(append(b, '\n'))); err != nil {
		return err
	}
	d.dirty = false
	return nil
}

// Close forgets the files that are gone (an appended file never begun), saves the
// manifest, releases the lock and removes the folders Open and MkdirAll created that are
// left empty: a command that wrote nothing leaves nothing behind. It returns the first
// error; the lock is released whatever happens.
func (d *Dir) Close() error {
	if d.lock == nil {
		return nil
	}
	var errs []error
	for n := range d.files {
		if _, err := d.lstat(n); errors.Is(err, fs.ErrNotExist) {
			d.forget(n)
		}
	}
	errs = append(errs, d.save())
	for _, name := range d.createdIn {
		d.root.Remove(name) // refused unless empty: what it holds is kept
	}
	d.createdIn = nil
	errs = append(errs, d.lock.release(), d.root.Close())
	d.lock = nil
	d.removeCreated()
	return errors.Join(errs...)
}

// removeCreated removes each folder Open created, innermost first, that is empty
// (os.Remove refuses the others: what they hold is kept).
func (d *Dir) removeCreated() {
	for _, dir := range d.created {
		os.Remove(dir)
	}
	d.created = nil
}

// writeBytes is a write function for WriteAtomic that writes b.
func writeBytes(b []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	}
}

// mkdirs is os.MkdirAll that returns the folders it created, innermost first.
func mkdirs(dir string) ([]string, error) {
	var created []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || d == filepath.Dir(d) {
			break
		}
		created = append(created, d)
	}
	return created, os.MkdirAll(dir, 0o755)
}

// hashFile is the SHA-256 of the named file, read beneath the folder.
func (d *Dir) hashFile(name string) (string, error) {
	path := d.Join(name)
	f, err := d.openRegular(name)
	if err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
