package props

import (
	"math/big"
)

// Exact laws of a single bootstrap slot under Algorithm 5, in rational arithmetic (spec d2d
// §4.7). A law maps a value (or record) to its probability.

// Law is a probability law over small integer labels.
type Law map[int]*big.Rat

// UniformOver is the uniform law over a multiset of values (repeats weigh more).
func UniformOver(values []int) Law {
	l := Law{}
	for _, v := range values {
		add(l, v, big.NewRat(1, int64(len(values))))
	}
	return l
}

func add(l Law, v int, p *big.Rat) {
	if l[v] == nil {
		l[v] = new(big.Rat)
	}
	l[v].Add(l[v], p)
}

// Equal reports whether two laws agree exactly.
func (l Law) Equal(o Law) bool {
	for _, m := range []Law{l, o} {
		for v := range m {
			a, b := l[v], o[v]
			if a == nil {
				a = new(big.Rat)
			}
			if b == nil {
				b = new(big.Rat)
			}
			if a.Cmp(b) != 0 {
				return false
			}
		}
	}
	return true
}

// DeleteValueAsPrinted is the slot's law after Algorithm 5 deletes one copy of value z from
// the multiset before (leaving after), as the paper prints it: every slot equal to z is
// redrawn from after. With several records sharing the value z this is biased (spec §2.7).
func DeleteValueAsPrinted(l Law, z int, after []int) Law {
	out := Law{}
	pz := l[z]
	draw := UniformOver(after)
	for v, p := range l {
		if v != z {
			add(out, v, p)
		}
	}
	if pz != nil {
		for v, q := range draw {
			add(out, v, new(big.Rat).Mul(pz, q))
		}
	}
	return out
}

// DeleteValueOneInC is the spec's fix for value multisets [EXT]: a slot equal to z is
// redrawn only with probability 1/c, c the number of copies of z before the deletion.
func DeleteValueOneInC(l Law, z, c int, after []int) Law {
	out := Law{}
	draw := UniformOver(after)
	for v, p := range l {
		if v != z {
			add(out, v, p)
			continue
		}
		keep := new(big.Rat).Mul(p, big.NewRat(int64(c-1), int64(c)))
		add(out, z, keep)
		redraw := new(big.Rat).Mul(p, big.NewRat(1, int64(c)))
		for w, q := range draw {
			add(out, w, new(big.Rat).Mul(redraw, q))
		}
	}
	return out
}

// AddRecordLaw is a slot's law after adding a new record z to a dataset that then holds ni
// records: the slot becomes z with probability 1/ni.
func AddRecordLaw(l Law, z, ni int) Law {
	out := Law{}
	stay := big.NewRat(int64(ni-1), int64(ni))
	for v, p := range l {
		add(out, v, new(big.Rat).Mul(p, stay))
	}
	add(out, z, big.NewRat(1, int64(ni)))
	return out
}
