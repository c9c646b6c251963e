//go:build amd64.v3

package testenv

// From GOAMD64=v3 the compiler fuses x*y + z into VFMADD where it chooses.
const fusesMultiplyAdds = true
