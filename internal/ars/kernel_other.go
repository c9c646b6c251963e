//go:build !amd64

package ars

// bestPath and bestARS are pure Go on this architecture: the kernels are amd64's.
func bestPath() int { return pathGo }
func bestARS() int  { return arsGo }

// The assembly's names, never called here (path is pathGo, words arsGo).
func wordsVAES(*uint32, int, uint32, *[8][4]uint32)     { panic("ars: no assembly") }
func wordsAES(*uint32, int, uint32, *[8][4]uint32)      { panic("ars: no assembly") }
func pairWideAVX512(*float64, *uint32, int, float64)    { panic("ars: no assembly") }
func pairWideOneAVX512(*float64, *uint32, int, float64) { panic("ars: no assembly") }
func pairWideAVX2(*float64, *uint32, int, float64)      { panic("ars: no assembly") }
func pair32AVX512(*float32, *uint32, int)               { panic("ars: no assembly") }
func pair32OneAVX512(*float32, *uint32, int)            { panic("ars: no assembly") }
func pair32AVX2(*float32, *uint32, int)                 { panic("ars: no assembly") }
