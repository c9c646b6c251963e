package props_test

import (
	"math"
	"math/big"
	"slices"
	"testing"

	"github.com/unlearnaudit/unlearnaudit/props"
	"github.com/unlearnaudit/unlearnaudit/reference"
	"github.com/unlearnaudit/unlearnaudit/reference/d2d"
	"gonum.org/v1/gonum/stat/distuv"
)

// §4.7.1: deleting one copy of a duplicated value. The golden case of the spec:
// 𝒟 = {a, a, b, c}, delete one a: the paper's value rule leaves the slot law
// (1/6, 5/12, 5/12) over (a, b, c) instead of the uniform (1/3, 1/3, 1/3); redrawing each
// matching slot with probability 1/c restores it; and keying by record (the toolkit's rule)
// is exact because a record is never duplicated.
func TestReservoirDuplicateValues(t *testing.T) {
	const a, b, c = 0, 1, 2
	before := props.UniformOver([]int{a, a, b, c})
	after := []int{a, b, c}
	printed := props.DeleteValueAsPrinted(before, a, after)
	golden := props.Law{a: big.NewRat(1, 6), b: big.NewRat(5, 12), c: big.NewRat(5, 12)}
	if !printed.Equal(golden) {
		t.Fatalf("printed rule: %v, spec golden (1/6, 5/12, 5/12)", printed)
	}
	if fixed := props.DeleteValueOneInC(before, a, 2, after); !fixed.Equal(props.UniformOver(after)) {
		t.Fatalf("1/c rule: %v, want uniform", fixed)
	}
	// by record: records 0 and 1 both carry the value a; deleting record 0 is exact
	if byID := props.DeleteValueAsPrinted(props.UniformOver([]int{0, 1, 2, 3}), 0, []int{1, 2, 3}); !byID.Equal(props.UniformOver([]int{1, 2, 3})) {
		t.Fatalf("keyed by record: %v, want uniform", byID)
	}
}

// §4.7.4: retrain equivalence on tiny universes. The joint law of the B slots after a
// sequence of additions and deletions, computed exactly by enumerating every random choice
// of Algorithm 5 (keyed by record), equals the law of a fresh bootstrap sample of 𝒟_i:
// B independent uniform draws.
func TestReservoirRetrainEquivalenceExact(t *testing.T) {
	const B = 3
	type seq struct {
		start []int
		steps []struct {
			add bool
			rec int
		}
	}
	cases := []seq{
		{[]int{0, 1}, []struct {
			add bool
			rec int
		}{{true, 2}, {false, 0}, {true, 3}, {false, 2}}},
		{[]int{0, 1, 2, 3}, []struct {
			add bool
			rec int
		}{{false, 1}, {false, 3}, {true, 4}}},
	}
	// fresh is the law of B independent uniform draws from members: a fresh bootstrap
	// sample, with the slot tuples encoded as base-10 digits.
	fresh := func(members []int) map[int]*big.Rat {
		out := map[int]*big.Rat{}
		p := big.NewRat(1, int64(len(members)*len(members)*len(members)))
		for _, x := range members {
			for _, y := range members {
				for _, z := range members {
					k := x*100 + y*10 + z
					if out[k] == nil {
						out[k] = new(big.Rat)
					}
					out[k].Add(out[k], p)
				}
			}
		}
		return out
	}
	for _, c := range cases {
		members := slices.Clone(c.start)
		law := fresh(members) // the joint law over slot tuples
		for _, st := range c.steps {
			next := map[int]*big.Rat{}
			if st.add {
				members = append(members, st.rec)
			} else {
				members = slices.DeleteFunc(members, func(v int) bool { return v == st.rec })
			}
			ni := len(members)
			for k, p := range law {
				slots := []int{k / 100, k / 10 % 10, k % 10}
				// every slot independently: its outcomes and their probabilities
				var outcomes [B][]struct {
					v int
					p *big.Rat
				}
				for s, v := range slots {
					switch {
					case st.add:
						outcomes[s] = append(outcomes[s], struct {
							v int
							p *big.Rat
						}{st.rec, big.NewRat(1, int64(ni))}, struct {
							v int
							p *big.Rat
						}{v, big.NewRat(int64(ni-1), int64(ni))})
					case v == st.rec:
						for _, w := range members {
							outcomes[s] = append(outcomes[s], struct {
								v int
								p *big.Rat
							}{w, big.NewRat(1, int64(ni))})
						}
					default:
						outcomes[s] = append(outcomes[s], struct {
							v int
							p *big.Rat
						}{v, big.NewRat(1, 1)})
					}
				}
				for _, o0 := range outcomes[0] {
					for _, o1 := range outcomes[1] {
						for _, o2 := range outcomes[2] {
							key := o0.v*100 + o1.v*10 + o2.v
							q := new(big.Rat).Mul(p, o0.p)
							q.Mul(q, o1.p)
							q.Mul(q, o2.p)
							if next[key] == nil {
								next[key] = new(big.Rat)
							}
							next[key].Add(next[key], q)
						}
					}
				}
			}
			law = next
		}
		want := fresh(members)
		for k := range mergeKeys(law, want) {
			a, b := law[k], want[k]
			if a == nil {
				a = new(big.Rat)
			}
			if b == nil {
				b = new(big.Rat)
			}
			if a.Cmp(b) != 0 {
				t.Fatalf("slot tuple %03d: %v after the sequence, %v for a fresh sample of %v", k, a, b, members)
			}
		}
	}
}

func mergeKeys(a, b map[int]*big.Rat) map[int]bool {
	out := map[int]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// chiSquareP is the p-value of Pearson's test of observed counts against expected ones.
func chiSquareP(observed []int, expected []float64) float64 {
	var x2 float64
	for i, o := range observed {
		d := float64(o) - expected[i]
		x2 += d * d / expected[i]
	}
	return 1 - distuv.ChiSquared{K: float64(len(observed) - 1)}.CDF(x2)
}

// §4.7.2–3, 5–6 on the implementation (ReservoirAdd/Delete), by simulation. Each chi-square
// test fails falsely with probability 1e-6 (its p-value threshold), so the whole test with
// its 4 tests fails falsely with probability below 4e-6.
func TestReservoirImplementationLaws(t *testing.T) {
	reps := 50000
	if testing.Short() {
		reps = 10000
	}
	r := reference.Stream(3, 0, "reservoir")
	// 2. an addition's chosen set: independent Bernoulli(1/n_i) per slot, all 2^B subsets
	const B, ni = 4, 3
	counts := make([]int, 1<<B)
	slots := make([]int, B)
	var changed []int
	for range reps {
		clear(slots)
		changed = d2d.ReservoirAdd(changed[:0], slots, 9, ni, r)
		mask := 0
		for _, s := range changed {
			mask |= 1 << s
		}
		counts[mask]++
	}
	expected := make([]float64, 1<<B)
	for mask := range expected {
		k := float64(popcount(mask))
		expected[mask] = float64(reps) * math.Pow(1.0/ni, k) * math.Pow(1-1.0/ni, B-k)
	}
	if p := chiSquareP(counts, expected); p < 1e-6 {
		t.Errorf("addition's chosen set: p = %v", p)
	}
	// 3. marginals and pairwise independence after a long random sequence: each step adds a
	// fresh record then deletes a random member, so every sequence ends with 4 members
	joint := make([]int, 4*4)
	for range reps {
		members := []int{0, 1, 2, 3}
		next := 4
		s := []int{members[r.IntN(4)], members[r.IntN(4)]}
		for range 5 {
			members = append(members, next)
			d2d.ReservoirAdd(nil, s, next, len(members), r)
			next++
			victim := members[r.IntN(len(members))]
			members = slices.DeleteFunc(members, func(v int) bool { return v == victim })
			d2d.ReservoirDelete(nil, s, victim, members, r)
		}
		rank := func(v int) int { return slices.Index(members, v) }
		joint[4*rank(s[0])+rank(s[1])]++
	}
	var marg [4]int
	total := 0
	for _, v := range joint {
		total += v
	}
	for i := range 4 {
		for j := range 4 {
			marg[i] += joint[4*i+j]
		}
	}
	t.Logf("%d of %d sequences end with 4 members and enter the marginal tests", total, reps)
	if total < reps/10 {
		t.Fatalf("only %d sequences usable", total)
	}
	if p := chiSquareP(marg[:], []float64{float64(total) / 4, float64(total) / 4, float64(total) / 4, float64(total) / 4}); p < 1e-6 {
		t.Errorf("slot marginal after a sequence: %v, p = %v", marg, p)
	}
	exp := make([]float64, 16)
	for i := range exp {
		exp[i] = float64(total) / 16
	}
	if p := chiSquareP(joint, exp); p < 1e-6 {
		t.Errorf("two slots after a sequence are not independent uniform: %v, p = %v", joint, p)
	}
	// 5. the number of changed slots: Bin(B, 1/n_i) for an addition, Bin(B, 1/n_{i−1})
	// for the deletion of a record present once; and frequency above Lemma 4.3's bound ≤ δ'
	const bigB, n = 40, 20
	delCounts := make([]int, bigB+1)
	above := 0
	bound := d2d.ReservoirChangedBound(bigB, n, 1e-3)
	members := make([]int, n)
	for i := range members {
		members[i] = i
	}
	s := make([]int, bigB)
	for range reps {
		for i := range s {
			s[i] = r.IntN(n)
		}
		ch := d2d.ReservoirDelete(changed[:0], s, 0, members[1:], r)
		delCounts[len(ch)]++
		if float64(len(ch)) > bound {
			above++
		}
		if slices.Contains(s, 0) {
			t.Fatal("a slot still holds the deleted record")
		}
	}
	bin := distuv.Binomial{N: bigB, P: 1.0 / n}
	var obs []int
	var want []float64
	tail := 0.0
	tailObs := 0
	for k := range delCounts {
		e := float64(reps) * bin.Prob(float64(k))
		if e < 5 { // pool the sparse tail into one cell, as Pearson's test needs
			tail += e
			tailObs += delCounts[k]
			continue
		}
		obs, want = append(obs, delCounts[k]), append(want, e)
	}
	obs, want = append(obs, tailObs), append(want, tail)
	if p := chiSquareP(obs, want); p < 1e-6 {
		t.Errorf("changed slots of a deletion are not Bin(B, 1/n): p = %v", p)
	}
	if f := float64(above) / float64(reps); f > 1e-3 {
		t.Errorf("changed slots exceed Lemma 4.3's bound in %v of deletions (δ' = 1e-3)", f)
	}
}

func popcount(x int) int {
	c := 0
	for ; x > 0; x &= x - 1 {
		c++
	}
	return c
}
