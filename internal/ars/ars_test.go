package ars

import (
	"crypto/aes"
	"encoding/binary"
	"encoding/hex"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// Random123's known answers for ars4x32 with 10 rounds (its kat_vectors file: counter,
// key, expected, each four words low first).
func TestKnownAnswers(t *testing.T) {
	cases := []struct{ ctr, key, want [4]uint32 }{
		{[4]uint32{0, 0, 0, 0}, [4]uint32{0, 0, 0, 0}, [4]uint32{0x8d73ee19, 0x506401ef, 0x13c2dbe4, 0x0cbe9c0d}},
		{[4]uint32{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, [4]uint32{0xa4093822, 0x299f31d0, 0x082efa98, 0xec4e6c89},
			[4]uint32{0xa516e7d6, 0x8357ad74, 0x5b59b3ec, 0x8763fff3}},
		{[4]uint32{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, [4]uint32{0xffffffff, 0xffffffff, 0, 0},
			[4]uint32{0xbb3743b1, 0x9f635551, 0xecbc87fc, 0xa19478a9}},
	}
	if len(cases) == 0 {
		t.Fatal("no known answers")
	}
	for _, c := range cases {
		if got := Block(c.ctr, c.key, 10); got != c.want {
			t.Errorf("Block(%08x, %08x, 10) = %08x, want %08x", c.ctr, c.key, got, c.want)
		}
	}
}

// FIPS 197's S-box values at a few places, and that it is a permutation.
func TestSBox(t *testing.T) {
	for x, want := range map[byte]byte{0x00: 0x63, 0x01: 0x7c, 0x53: 0xed, 0xff: 0x16, 0x10: 0xca, 0xc9: 0xdd} {
		if sbox[x] != want {
			t.Errorf("S(%#02x) = %#02x, want %#02x", x, sbox[x], want)
		}
	}
	var seen [256]bool
	for _, v := range sbox {
		if seen[v] {
			t.Fatalf("S-box value %#02x repeated: not a permutation", v)
		}
		seen[v] = true
	}
}

// expandKey is FIPS 197's AES-128 key expansion (§5.2), in the state's words.
func expandKey(key [4]uint32) (rk [11][4]uint32) {
	rk[0] = key
	rcon := uint32(1)
	for r := 1; r <= 10; r++ {
		p := rk[r-1][3]
		p = bits.RotateLeft32(p, -8) // RotWord on a little-endian word
		p = uint32(sbox[byte(p)]) | uint32(sbox[byte(p>>8)])<<8 | uint32(sbox[byte(p>>16)])<<16 | uint32(sbox[byte(p>>24)])<<24
		p ^= rcon
		rcon = uint32(mulGF(byte(rcon), 2))
		for c := range 4 {
			p ^= rk[r-1][c]
			rk[r][c] = p
		}
	}
	return rk
}

// The rounds, with FIPS 197's key expansion, are AES-128: the same ciphertext as
// crypto/aes for random keys and blocks, and the FIPS 197 appendix C.1 example.
func TestRoundsAreAES(t *testing.T) {
	words := func(b []byte) (w [4]uint32) {
		for c := range w {
			w[c] = binary.LittleEndian.Uint32(b[4*c:])
		}
		return w
	}
	encrypt := func(key, in []byte) [4]uint32 {
		rk := expandKey(words(key))
		v := words(in)
		v0, v1, v2, v3 := v[0]^rk[0][0], v[1]^rk[0][1], v[2]^rk[0][2], v[3]^rk[0][3]
		for r := 1; r < 10; r++ {
			k := rk[r]
			v0, v1, v2, v3 = encRound(v0, v1, v2, v3, k[0], k[1], k[2], k[3])
		}
		k := rk[10]
		v0, v1, v2, v3 = encLast(v0, v1, v2, v3, k[0], k[1], k[2], k[3])
		return [4]uint32{v0, v1, v2, v3}
	}
	fips := func(s string) []byte {
		b, err := hex.DecodeString(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	key, in := fips("000102030405060708090a0b0c0d0e0f"), fips("00112233445566778899aabbccddeeff")
	if got, want := encrypt(key, in), words(fips("69c4e0d86a7b0430d8cdb78070b4c55a")); got != want {
		t.Errorf("FIPS 197 C.1: %08x, want %08x", got, want)
	}
	r := rand.New(rand.NewPCG(1, 2))
	key, in = make([]byte, 16), make([]byte, 16)
	out := make([]byte, 16)
	for range 1000 {
		for i := range key {
			key[i], in[i] = byte(r.Uint32()), byte(r.Uint32())
		}
		c, err := aes.NewCipher(key)
		if err != nil {
			t.Fatal(err)
		}
		c.Encrypt(out, in)
		if got, want := encrypt(key, in), words(out); got != want {
			t.Fatalf("key %x block %x: %08x, crypto/aes %08x", key, in, got, want)
		}
	}
}

// BenchmarkBlock is the pure-Go cost of a block of seven rounds (four words), blocks of
// consecutive counters as a fill draws them.
func BenchmarkBlock(b *testing.B) {
	var x [4]uint32
	var i uint32
	for b.Loop() {
		y := Block([4]uint32{i, 2, 3, 4}, [4]uint32{1, 2, 3, 4}, 7)
		x[0] ^= y[0]
		i++
	}
	_ = x
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/4, "ns/word")
}
