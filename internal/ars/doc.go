// Package ars is ARS-4x32 (Advanced Randomization System), the counter-based generator
// of Salmon, Moraes, Dror and Shaw ("Parallel random numbers: as easy as 1, 2, 3", SC
// 2011) built from AES rounds, in pure Go.
//
// Block maps a 128-bit counter and a 128-bit key to 128 random bits, a bijection of the
// counter for each key, with no state carried between calls, like internal/philox's
// Philox4x32-10:
//
//	x := ars.Block([4]uint32{i, step, trial, trial >> 32}, key, 7)
//
// # Why it is here
//
// It is the generator a stream v3 of SGLU's noise would draw from (issue 44). On a Zen 4
// core, Philox4x32-10's words cost 0.30–0.34 ns a word in internal/philox's AVX-512
// kernel, near its count of operations, about 45 % of a float32 normal; a throwaway
// kernel of ARS on VAES (four AES blocks a 512-bit instruction) wrote its words at 0.088
// ns a word with five rounds and 0.122 with seven (docs/scale-out.md). Nothing draws
// from this package yet: the engine's stream is still v2, Philox's.
//
// # What it computes
//
// The key is xored into the counter, then each of rounds − 1 AES encryption rounds
// (x86's AESENC: ShiftRows, SubBytes, MixColumns, the round key xored) and a last round
// without MixColumns (AESENCLAST) follow, the round key advanced before each by the Weyl
// increments of the golden ratio (low 64 bits) and √3 − 1 (high 64 bits), as Random123's
// ars.h does. A state is the 128-bit register's bytes in memory order read as four
// little-endian words, so that ctr[0] is the low word, as Random123 prints it.
//
// The AES round is this package's own, from FIPS 197's definitions (the S-box computed
// from the inverse in GF(2⁸) and the affine map), a table of one column a byte rather
// than a constant-time one: this is a generator of noise for simulation, not a cipher,
// and nothing secret enters it.
//
// # How it is checked
//
// TestKnownAnswers holds Block to Random123's published ARS-4x32-10 answers
// (kat_vectors); TestRoundsAreAES holds the rounds to the standard library's AES-128
// (crypto/aes), ten of them with FIPS 197's key expansion, on random keys and blocks;
// TestSBox checks the S-box's published values and that it is a permutation. A planted
// error in any part of a round (ShiftRows' order, a row's rotation, the field's modulus,
// the S-box's constant, MixColumns in the last round, a round too few, the Weyl
// increments swapped) fails them. In pure Go a word costs about 11 ns (BenchmarkBlock,
// seven rounds), Philox4x32-10's about 9.
package ars
