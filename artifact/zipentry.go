package artifact

import (
	"archive/zip"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
)

// An entryReader reads one zip entry (an .npz array, a .pt pickle or storage) to its end
// and holds it to its central-directory record: exactly UncompressedSize64 bytes, whose
// CRC-32 is the one recorded. archive/zip checks the CRC only when a reader reaches EOF
// (and not at all when the recorded CRC is 0 and there is no data descriptor), and a
// parser that stops at the element count its header announces never gets there: a
// corrupt or altered entry, or one inflating far past its declared size, would read
// as if whole. Reads are capped at one byte past the declared size, so an entry that
// inflates to 50 MB while declaring 12 bytes costs the 12 bytes and one more, not 50 MB.
type entryReader struct {
	zf   *zip.File
	rc   io.ReadCloser
	crc  hash.Hash32
	n    uint64 // bytes returned so far
	err  error  // sticky: the first failure, or io.EOF once checked
	done bool
}

// openEntry opens zf for a checked read; Close (or finish) releases it.
func openEntry(zf *zip.File) (*entryReader, error) {
	rc, err := zf.Open()
	if err != nil {
		return nil, err
	}
	return &entryReader{zf: zf, rc: rc, crc: crc32.NewIEEE()}, nil
}

func (e *entryReader) Read(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	size := e.zf.UncompressedSize64
	// at most one byte past the declared size is ever asked for
	if left := size - e.n; left < uint64(len(p)) {
		p = p[:left+1]
	}
	k, err := e.rc.Read(p)
	if e.n+uint64(k) > size || errors.Is(err, zip.ErrFormat) && e.n+uint64(k) >= size {
		// archive/zip returns ErrFormat, without the bytes, for a read past the declared size
		e.err = fmt.Errorf("inflates past the %d bytes its zip directory declares", size)
		return 0, e.err
	}
	e.crc.Write(p[:k])
	e.n += uint64(k)
	switch {
	case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) && e.n < size || errors.Is(err, zip.ErrChecksum):
		if e.n < size {
			e.err = fmt.Errorf("ends after %d of the %d bytes its zip directory declares", e.n, size)
			return k, e.err
		}
		if got := e.crc.Sum32(); got != e.zf.CRC32 {
			e.err = fmt.Errorf("CRC-32 %08x, but the zip directory records %08x: the entry is corrupt", got, e.zf.CRC32)
			return k, e.err
		}
		if err != io.EOF { // the data descriptor disagrees with the directory
			e.err = fmt.Errorf("its data descriptor disagrees with the zip directory (%v): the entry is corrupt", err)
			return k, e.err
		}
		e.err = io.EOF
		return k, io.EOF
	case err != nil:
		e.err = err
		return k, err
	}
	return k, nil
}

// finish reads what the parser left of the entry (at most one byte past its declared
// size), checks its size and CRC-32 and closes it: nil for a whole, intact entry.
func (e *entryReader) finish() error {
	if e.done {
		return nil
	}
	var buf [4096]byte
	for e.err == nil {
		e.Read(buf[:])
	}
	e.done = true
	e.rc.Close()
	if e.err == io.EOF {
		return nil
	}
	return e.err
}

// failed is the fault met so far (nil if none, or if the entry read whole and intact).
func (e *entryReader) failed() error {
	if e.err == io.EOF {
		return nil
	}
	return e.err
}

// Close releases the entry without checking it (for error paths; finish checks).
func (e *entryReader) Close() error {
	if e.done {
		return nil
	}
	e.done = true
	return e.rc.Close()
}
