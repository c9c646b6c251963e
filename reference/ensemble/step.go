package ensemble

import "fmt"

// NoisyStep is the update of k lockstep SGLU runs after their gradients and noise: with
// theta and g d × k (row-major, column t run t), z k × d (row t run t's standard normals,
// as float32: the noise before its scale sd) and norm2 of length k, it sets, for each run t
// and coordinate i = 0…d−1 in order,
//
//	v = θ[i·k+t] + (sd·float64(z[t·d+i]) − η·g[i·k+t]),  θ[i·k+t] = v,  norm2[t] += v·v,
//
// each operation rounded on its own, in that order (no fused multiply–add), and each run's
// squared norm added in coordinate order: the bits of that scalar loop on every path (up to
// a NaN's payload where two NaNs meet, which Go does not fix either). sd·float64(z) is
// ars.FillScaledWide's value for FillWideRows32's z, so the noise is drawn at half the
// bytes and scaled here, in the same pass. Where the CPU has AVX-512 it takes 8
// coordinates of 16 runs (then of 8) at a time — z's rows read along their length, widened,
// scaled and transposed in registers 8 × 8, θ's and g's rows read contiguously — where the
// loop reads z with stride d and runs one element at a time; the last k mod 8 runs and d
// mod 8 coordinates go through the loop. It does not allocate.
func NoisyStep(theta []float64, z []float32, sd float64, g, norm2 []float64, d, k int, eta float64) {
	checkStep("NoisyStep", len(theta), len(theta), len(z), len(g), len(norm2), d, k)
	noisyStep(theta, nil, z, sd, g, norm2, d, k, eta)
}

// NoisyStep32 is NoisyStep for a float32 ensemble: it reads float32 gradients (widened to
// float64, exactly, so the bits NoisyStep gives on a float64 copy of them) and also sets
// theta32[i·k+t] = float32(v), the copy of the iterates the float32 gradient kernels read
// — so a step makes no conversion pass of its own over the d × k gradients and
// iterates. A caller that changes θ afterwards (a projection) narrows the
// changed entries again.
func NoisyStep32(theta []float64, theta32 []float32, z []float32, sd float64, g []float32, norm2 []float64, d, k int, eta float64) {
	checkStep("NoisyStep32", len(theta), len(theta32), len(z), len(g), len(norm2), d, k)
	noisyStep(theta, theta32, z, sd, g, norm2, d, k, eta)
}

// noisyStep is NoisyStep (theta32 nil, float64 g) and NoisyStep32 after their checks: the
// AVX-512 kernels on whole tiles, runs in pairs of tiles then one tile, then the Go loop on
// the runs past the tiles and every run's last coordinates.
func noisyStep[G float](theta []float64, theta32 []float32, z []float32, sd float64, g []G, norm2 []float64, d, k int, eta float64) {
	kb, db := 0, 0
	if HasAsm && HasAVX512 && d >= stepTile && k >= stepTile {
		kb, db = k&^(stepTile-1), d&^(stepTile-1)
		k2 := k &^ (2*stepTile - 1) // runs in pairs of tiles, then one tile
		if k2 > 0 {
			stepTiles(theta, theta32, z, sd, g, norm2, 0, db, d, k, k2/(2*stepTile), 2, eta)
		}
		if kb > k2 {
			stepTiles(theta, theta32, z, sd, g, norm2, k2, db, d, k, 1, 1, eta)
		}
	}
	noisyStepGo(theta, theta32, z, sd, g, norm2, d, k, 0, db, kb, k, eta) // the runs past the tiles
	noisyStepGo(theta, theta32, z, sd, g, norm2, d, k, db, d, 0, k, eta)  // then every run's last coordinates
}

// stepTiles runs the AVX-512 update kernel on blocks blocks of tiles tiles (8 runs each)
// from run t0, coordinates below db: the float64 kernels for float64 g, the float32 ones
// (which also write theta32) for float32 g.
func stepTiles[G float](theta []float64, theta32 []float32, z []float32, sd float64, g []G, norm2 []float64, t0, db, d, k, blocks, tiles int, eta float64) {
	switch g := any(g).(type) {
	case []float64:
		if tiles == 2 {
			noisyStepF64x16AVX512(&theta[t0], &z[t0*d], sd, &g[t0], &norm2[t0], db, d, k, blocks, eta)
		} else {
			noisyStepF64x8AVX512(&theta[t0], &z[t0*d], sd, &g[t0], &norm2[t0], db, d, k, blocks, eta)
		}
	case []float32:
		if tiles == 2 {
			noisyStepF32x16AVX512(&theta[t0], &theta32[t0], &z[t0*d], sd, &g[t0], &norm2[t0], db, d, k, blocks, eta)
		} else {
			noisyStepF32x8AVX512(&theta[t0], &theta32[t0], &z[t0*d], sd, &g[t0], &norm2[t0], db, d, k, blocks, eta)
		}
	}
}

// stepTile is the side of the AVX-512 update's tiles: 8 coordinates of 8 runs (its kernels
// take one tile or two side by side).
const stepTile = 8

func checkStep(name string, theta, theta32, z, g, norm2, d, k int) {
	if d < 1 || k < 1 || theta < d*k || theta32 < d*k || z < k*d || g < d*k || norm2 < k {
		panic(fmt.Sprintf("ensemble: %s: d = %d, k = %d with len(θ) = %d, len(θ32) = %d, len(z) = %d, len(g) = %d, len(norm2) = %d",
			name, d, k, theta, theta32, z, g, norm2))
	}
}

// noisyStepGo is the update's scalar loop on coordinates i0 ≤ i < i1 of runs t0 ≤ t < t1,
// also narrowing v into theta32 where it is non-nil.
func noisyStepGo[G float](theta []float64, theta32 []float32, z []float32, sd float64, g []G, norm2 []float64, d, k, i0, i1, t0, t1 int, eta float64) {
	if t0 >= t1 {
		return
	}
	norm2 = norm2[t0:t1]
	for i := i0; i < i1; i++ {
		th, gi := theta[i*k+t0:i*k+t1], g[i*k+t0:i*k+t1]
		gi, n2 := gi[:len(th)], norm2[:len(th)] // bounds the compiler then knows
		zi := z[t0*d+i:]
		for t := range th {
			v := th[t] + (float64(sd*float64(zi[t*d])) - float64(eta*float64(gi[t])))
			th[t] = v
			n2[t] += float64(v * v)
		}
		if theta32 != nil {
			for t, v := range th {
				theta32[i*k+t0+t] = float32(v)
			}
		}
	}
}
