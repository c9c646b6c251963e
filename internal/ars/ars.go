package ars

// The Weyl increments of ARS's key schedule (Salmon et al. 2011; Random123's ars.h): the
// first 64 fractional bits of the golden ratio, added to the key's low 64 bits each
// round, and of √3 − 1, added to its high 64 bits.
const (
	weylLo = 0x9E3779B97F4A7C15
	weylHi = 0xBB67AE8584CAA73B
)

// Block is ARS-4x32-R, Random123's ars4x32_R: the counter xored with the key, then
// rounds − 1 AES encryption rounds and a last one (no MixColumns), the key advanced by
// the Weyl increments before each, as 64-bit halves. Words are little end first, as
// Random123 prints them (ctr[0] is the low word). rounds must be at least 1; Random123
// publishes known answers for 10 and uses 7 by default.
func Block(ctr, key [4]uint32, rounds int) [4]uint32 {
	if rounds < 1 {
		panic("ars: rounds < 1")
	}
	v0, v1, v2, v3 := ctr[0]^key[0], ctr[1]^key[1], ctr[2]^key[2], ctr[3]^key[3]
	for r := 1; r < rounds; r++ {
		k := roundKey(key, r)
		v0, v1, v2, v3 = encRound(v0, v1, v2, v3, k[0], k[1], k[2], k[3])
	}
	k := roundKey(key, rounds)
	v0, v1, v2, v3 = encLast(v0, v1, v2, v3, k[0], k[1], k[2], k[3])
	return [4]uint32{v0, v1, v2, v3}
}

// roundKey is round r's key: the key advanced r times by the Weyl increments, its low and
// high 64 bits each (r·increment wraps as r additions do).
func roundKey(key [4]uint32, r int) [4]uint32 {
	lo := (uint64(key[0]) | uint64(key[1])<<32) + uint64(r)*weylLo
	hi := (uint64(key[2]) | uint64(key[3])<<32) + uint64(r)*weylHi
	return [4]uint32{uint32(lo), uint32(lo >> 32), uint32(hi), uint32(hi >> 32)}
}
