// Package streams derives the toolkit's independent random streams: a PCG source whose
// state is a SHA-256 digest of (seed, trial, purpose). It is a leaf so that the
// instruments (audit/estimate) and the models (reference.Streams) draw the same bits
// without the instruments importing the models.
package streams

import (
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"
)

// Source returns the PCG source of the named purpose of trial trial under seed. Distinct
// triples give independent streams; the same triple gives the same numbers.
func Source(seed uint64, trial int, purpose string) *rand.PCG {
	h := sha256.New()
	var buf [16]byte
	binary.LittleEndian.PutUint64(buf[:8], seed)
	binary.LittleEndian.PutUint64(buf[8:], uint64(int64(trial)))
	h.Write(buf[:])
	h.Write([]byte(purpose))
	sum := h.Sum(nil)
	return rand.NewPCG(binary.LittleEndian.Uint64(sum[:8]), binary.LittleEndian.Uint64(sum[8:16]))
}
