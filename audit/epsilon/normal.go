package epsilon

import "github.com/unlearnaudit/unlearnaudit/internal/normal"

// normals draws what rand.New(rand.NewPCG(seed1, seed2)).NormFloat64 draws, the same
// values bit for bit (TestNormalsAreNormFloat64), with internal/normal's generator inlined
// into the simulation's loops: the power simulation draws 10⁹ normals for one plan.
type normals struct{ hi, lo uint64 }

// newNormals is the stream of rand.NewPCG(seed1, seed2).
func newNormals(seed1, seed2 uint64) normals { return normals{seed1, seed2} }

// fill sets pos[i] = mu + z₂ᵢ and neg[i] = z₂ᵢ₊₁ for the stream's next normals z (pos first,
// as the simulation has always drawn them).
func (g *normals) fill(pos, neg []float64, mu float64) {
	neg = neg[:len(pos)]
	hi, lo := g.hi, g.lo
	for i := range pos {
		// normal, by hand: the compiler does not inline it
		u, h, l := normal.Step(hi, lo)
		p, ok := normal.Fast(u)
		if hi, lo = h, l; !ok {
			p, hi, lo = normal.Slow(u, hi, lo)
		}
		u, h, l = normal.Step(hi, lo)
		n, ok := normal.Fast(u)
		if hi, lo = h, l; !ok {
			n, hi, lo = normal.Slow(u, hi, lo)
		}
		pos[i], neg[i] = mu+p, n
	}
	g.hi, g.lo = hi, lo
}

// count draws what fill draws for the next pairs pairs, counting them into c's buckets
// (begun) and adding those in c's tails to the tails kept.
func (g *normals) count(mu float64, c *chooser, pairs int) {
	hi, lo := g.hi, g.lo
	bLo, scale, nb := c.lo, c.scale, c.nb
	sp, sn := c.startP[1:nb+1], c.startN[1:nb+1]
	tailL, tailR := c.tailL, c.tailR
	tp, tn := c.tp, c.tn
	for range pairs {
		u, h, l := normal.Step(hi, lo)
		p, ok := normal.Fast(u)
		if hi, lo = h, l; !ok {
			p, hi, lo = normal.Slow(u, hi, lo)
		}
		p += mu
		u, h, l = normal.Step(hi, lo)
		n, ok := normal.Fast(u)
		if hi, lo = h, l; !ok {
			n, hi, lo = normal.Slow(u, hi, lo)
		}
		sp[bucketOf(p, bLo, scale, nb)]++
		sn[bucketOf(n, bLo, scale, nb)]++
		if p <= tailL || p >= tailR {
			tp = append(tp, p)
		}
		if n <= tailL || n >= tailR {
			tn = append(tn, n)
		}
	}
	g.hi, g.lo = hi, lo
	c.tp, c.tn, c.tails = tp, tn, true
}

// next is the stream's next normal.
func (g *normals) next() float64 {
	z, hi, lo := normal.Normal(g.hi, g.lo)
	g.hi, g.lo = hi, lo
	return z
}
