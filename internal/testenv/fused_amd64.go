//go:build !amd64.v3

package testenv

// Below GOAMD64=v3 the compiler has no FMA instruction to fuse with.
const fusesMultiplyAdds = false
