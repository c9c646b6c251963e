package olu

import (
	"fmt"
)

// A Request asks at round Tau to forget the cost function that arrived at round U
// (1 ≤ U ≤ Tau ≤ T). It is served after f_Tau is consumed (spec olu §1.2's canonical
// convention), so U = Tau — delete on arrival — is legal and still needs noise.
type Request struct{ U, Tau int }

// A Schedule is the deletion requests (U, 𝒯) in the order they are served: public, so the
// noise may depend on them. Request i (from 1) is the i-th.
type Schedule []Request

// Validate checks the schedule against a horizon T: each 1 ≤ U ≤ Tau ≤ T, no function
// deleted twice, the τ non-decreasing (strictly increasing unless ties are allowed:
// Algorithm 1 serves ties one by one, Algorithm 2 does not). Errors name the request.
func (s Schedule) Validate(T int, ties bool) error {
	seen := map[int]int{}
	for i, r := range s {
		switch {
		case r.U < 1 || r.U > T:
			return fmt.Errorf("olu: request %d: u = %d is outside the stream's rounds [1, %d]", i+1, r.U, T)
		case r.Tau < r.U:
			return fmt.Errorf("olu: request %d: τ = %d comes before the function it deletes arrived (u = %d)", i+1, r.Tau, r.U)
		case r.Tau > T:
			return fmt.Errorf("olu: request %d: τ = %d is past the horizon T = %d", i+1, r.Tau, T)
		}
		if j, ok := seen[r.U]; ok {
			return fmt.Errorf("olu: request %d: f_%d was already deleted by request %d", i+1, r.U, j)
		}
		seen[r.U] = i + 1
		if i > 0 {
			prev := s[i-1].Tau
			if r.Tau < prev || r.Tau == prev && !ties {
				return fmt.Errorf("olu: request %d: τ = %d does not come after request %d's τ = %d", i+1, r.Tau, i, prev)
			}
		}
	}
	return nil
}

// Deleted is the set of rounds whose functions the first i requests delete.
func (s Schedule) Deleted(i int) map[int]bool {
	out := make(map[int]bool, i)
	for _, r := range s[:i] {
		out[r.U] = true
	}
	return out
}

// Without is the stream with the first i requests' functions replaced by ⊥ (nil) in place:
// the paper's retraining dataset S \ S^U_i, time indices kept.
func Without(stream []Cost, s Schedule, i int) []Cost {
	out := make([]Cost, len(stream))
	copy(out, stream)
	for _, r := range s[:i] {
		out[r.U-1] = nil
	}
	return out
}

// Taus lists the requests' rounds.
func (s Schedule) Taus() []int {
	out := make([]int, len(s))
	for i, r := range s {
		out[i] = r.Tau
	}
	return out
}

// check validates the schedule against the stream: Validate, and no request naming a round
// that is already ⊥.
func (s Schedule) check(stream []Cost, ties bool) error {
	if err := s.Validate(len(stream), ties); err != nil {
		return err
	}
	for i, r := range s {
		if stream[r.U-1] == nil {
			return fmt.Errorf("olu: request %d: f_%d is already ⊥ in this stream", i+1, r.U)
		}
	}
	return nil
}
