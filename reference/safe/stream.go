package safe

import (
	"fmt"
	"math/rand/v2"
)

// RandomStream draws rounds requests of size records each, without replacement, from n
// records (the paper's random-subset protocol: 20 rounds of 400).
func RandomStream(n, rounds, size int, r *rand.Rand) ([][]int, error) {
	if rounds < 1 || size < 0 || rounds*size >= n {
		return nil, fmt.Errorf("safe stream: %d rounds of %d records from %d; want at least one round and some record left", rounds, size, n)
	}
	perm := r.Perm(n)
	out := make([][]int, rounds)
	for t := range rounds {
		out[t] = perm[t*size : (t+1)*size]
	}
	return out, nil
}

// ClassStream deletes every record of one class over rounds, in a random order cut as
// evenly as possible, so that the class is gone after the last round (the paper's
// stream-for-class protocol, App. B.7).
func ClassStream(labels []int, class, rounds int, r *rand.Rand) ([][]int, error) {
	var rows []int
	for i, y := range labels {
		if y == class {
			rows = append(rows, i)
		}
	}
	if rounds < 1 || len(rows) < rounds || len(rows) == len(labels) {
		return nil, fmt.Errorf("safe stream: class %d has %d of %d records for %d rounds; want at least one a round, and another class left", class, len(rows), len(labels), rounds)
	}
	r.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	out := make([][]int, rounds)
	for t := range rounds {
		out[t] = rows[t*len(rows)/rounds : (t+1)*len(rows)/rounds]
	}
	return out, nil
}
