package testenv

// 386 has no fused multiply–add for the compiler to choose.
const fusesMultiplyAdds = false
