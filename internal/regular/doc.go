// Package regular opens input files that must be regular files: data, models, scores,
// specs, shard manifests, checkpoints and keys. A FIFO, a device or a socket named where a
// file is expected is refused at once, by name, instead of blocking forever on a FIFO no
// one writes or reading /dev/zero without end.
//
// Every opener of the toolkit goes through Open:
//
//	f, err := regular.Open("model.npy")
//	if err != nil {
//		return err // "model.npy: not a regular file (a FIFO): …"
//	}
//	defer f.Close()
//
// Open never blocks: the file is opened with O_NONBLOCK, so opening a FIFO with no writer
// returns at once, and the check is made on the opened descriptor (fstat), so the file
// cannot be swapped between the check and the read. A regular file ignores O_NONBLOCK.
//
// ReadFile reads a whole small file through a limit: it holds at most limit+1 bytes,
// whatever the file holds, and refuses a longer file by name.
package regular
