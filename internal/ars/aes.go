package ars

import "math/bits"

// The AES S-box and the encryption round's table, computed once from their definitions
// (FIPS 197 §5.1): the S-box is the multiplicative inverse in GF(2⁸) modulo
// x⁸ + x⁴ + x³ + x + 1 (0 to 0) followed by the affine map; te0[x] is the column that
// byte x contributes from row 0 after SubBytes and MixColumns, (2·S(x), S(x), S(x), 3·S(x))
// from row 0 to row 3, low byte first. A byte of row r contributes te0 rotated left by 8r
// bits.
var sbox, te0 = tables()

// mulGF is multiplication in GF(2⁸) modulo x⁸ + x⁴ + x³ + x + 1.
func mulGF(a, b byte) byte {
	var p byte
	for ; b != 0; b >>= 1 {
		if b&1 != 0 {
			p ^= a
		}
		a = a<<1 ^ byte(int8(a)>>7)&0x1b
	}
	return p
}

func tables() (s [256]byte, t [256]uint32) {
	for x := range 256 {
		inv := byte(0)
		for y := 1; y < 256 && x != 0; y++ {
			if mulGF(byte(x), byte(y)) == 1 {
				inv = byte(y)
				break
			}
		}
		s[x] = inv ^ bits.RotateLeft8(inv, 1) ^ bits.RotateLeft8(inv, 2) ^
			bits.RotateLeft8(inv, 3) ^ bits.RotateLeft8(inv, 4) ^ 0x63
	}
	for x, v := range s {
		t[x] = uint32(mulGF(v, 2)) | uint32(v)<<8 | uint32(v)<<16 | uint32(mulGF(v, 3))<<24
	}
	return s, t
}

// encRound is one AES encryption round as x86's AESENC computes it: ShiftRows, SubBytes,
// MixColumns, then the round key k xored. A state is its four columns s0…s3, each a word
// with row 0 in its low byte: the 128-bit register's bytes in memory order, read as
// little-endian words. (Words, not arrays: Go passes arrays through memory, which made a
// round three times slower.)
func encRound(s0, s1, s2, s3, k0, k1, k2, k3 uint32) (uint32, uint32, uint32, uint32) {
	return col(s0, s1, s2, s3) ^ k0, col(s1, s2, s3, s0) ^ k1, col(s2, s3, s0, s1) ^ k2, col(s3, s0, s1, s2) ^ k3
}

// col is an output column of a round before its key: row r's byte taken from a, b, c, d
// for r = 0, 1, 2, 3 (ShiftRows), through te0 rotated to its row.
func col(a, b, c, d uint32) uint32 {
	return te0[byte(a)] ^ bits.RotateLeft32(te0[byte(b>>8)], 8) ^
		bits.RotateLeft32(te0[byte(c>>16)], 16) ^ bits.RotateLeft32(te0[byte(d>>24)], 24)
}

// encLast is AESENCLAST: the round without MixColumns.
func encLast(s0, s1, s2, s3, k0, k1, k2, k3 uint32) (uint32, uint32, uint32, uint32) {
	return last(s0, s1, s2, s3) ^ k0, last(s1, s2, s3, s0) ^ k1, last(s2, s3, s0, s1) ^ k2, last(s3, s0, s1, s2) ^ k3
}

// last is col without MixColumns: the S-box's bytes in their rows.
func last(a, b, c, d uint32) uint32 {
	return uint32(sbox[byte(a)]) | uint32(sbox[byte(b>>8)])<<8 | uint32(sbox[byte(c>>16)])<<16 | uint32(sbox[byte(d>>24)])<<24
}
