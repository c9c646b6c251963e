//go:build !amd64

package philox

// bestPath is pure Go on this architecture: the kernels are amd64's.
func bestPath() int { return pathGo }

// The assembly's names, never called here (path is pathGo).
func philoxAVX512(*uint64, int, uint32, *[20]uint64)    { panic("philox: no assembly") }
func fillWideAVX512(*float64, *uint64, int, float64)    { panic("philox: no assembly") }
func philoxOneAVX512(*uint64, int, uint32, *[20]uint64) { panic("philox: no assembly") }
func fillWideOneAVX512(*float64, *uint64, int, float64) { panic("philox: no assembly") }
func philoxAVX2(*uint64, int, uint32, *[20]uint64)      { panic("philox: no assembly") }
func philoxOneAVX2(*uint64, int, uint32, *[20]uint64)   { panic("philox: no assembly") }
func fillWideAVX2(*float64, *uint64, int, float64)      { panic("philox: no assembly") }
func normals32AVX512(*float32, *uint64, int)            { panic("philox: no assembly") }
func normals32OneAVX512(*float32, *uint64, int)         { panic("philox: no assembly") }
func normals32AVX2(*float32, *uint64, int)              { panic("philox: no assembly") }
