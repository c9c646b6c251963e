// Package outdir opens the folder a command writes its results into, so that a user's
// own files there are never lost and two processes never write one folder at once.
//
// A command opens its output folder before it replaces or removes anything:
//
//	d, err := outdir.Open("audit-report", outdir.Options{Force: force})
//	if err != nil {
//		return err // a *LockedError if another process holds the folder
//	}
//	defer d.Close()
//
// Open creates the folder if need be and takes its lock: an advisory flock(2) on
// .audit.lock inside it, without waiting. The lock file is created exclusively, never
// opened for writing over a file already there. A second process gets a *LockedError
// naming the holder's pid and host, which the holder wrote into the lock file. The
// kernel releases a flock when its holder exits, however it exits (kill -9 included), so
// a lock left by a dead process is free: the next Open removes it and creates its own —
// if it is a stale lock of this tool's (a regular file of one link, owned by this user,
// holding a holder record). Any other file there (a hard link to a user's file, other
// content) is refused, naming it, and left as it was. Where flock is not available (AIX,
// Windows, Plan 9, wasm) the lock is the file itself, created exclusively; a dead
// holder's file must then be removed by hand.
//
// The folder's manifest, .audit-manifest.json, lists the files the tool wrote there with
// their SHA-256. Before a command replaces or removes a file it claims it:
//
//	if err := d.Claim("report.json", "report.md"); err != nil {
//		return err // a *ForeignError: the user's files, or files edited since
//	}
//
// A file is the tool's if it is absent, or listed with the hash it has now; a file listed
// but edited since counts as the user's. Options.Force takes such files over. Remove
// removes only claimed files, WriteFiles writes files atomically (a temporary file renamed
// into place) and records their hashes, and Appending records files the caller appends to
// as it goes (checkpoints: their lines carry their own checksums, and a hash would not
// survive a kill between a line and its record). Every claim of a call is checked before
// any file is touched, so a refusal changes nothing.
//
// Close forgets listed files that are gone, saves the manifest, releases the lock and
// removes the folders Open created if they are left empty: a command that stopped before
// writing anything leaves nothing behind. Neither the lock file nor the manifest enters
// a report or a fingerprint.
//
// Every file inside the folder is opened, created, renamed and removed beneath an
// os.Root of it, following no symbolic link at any element of its name (a
// *regular.LinkError): a link planted in the folder never leads the tool's writes
// elsewhere. The Dir is an atomicfile.Folder, through which the audit engine opens its
// checkpoints and a merge writes the merged trials.
//
// CheckOut refuses output paths that are empty, that name an input, or that lie inside an
// input folder whose files are read (a shard's part folder, when merging it).
package outdir
