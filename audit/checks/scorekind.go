package checks

// ScoreKind says which way a per-record score points.
type ScoreKind int

const (
	LossScores       ScoreKind = iota // a loss: lower on records a model remembers
	ConfidenceScores                  // a confidence or logit: higher on records a model remembers
)

func (k ScoreKind) String() string {
	if k == ConfidenceScores {
		return "logit-scaled confidence"
	}
	return "loss"
}

// MemberSign is the sign that orients a score so that higher means remembered: −1 for a
// loss, +1 for a confidence.
func (k ScoreKind) MemberSign() float64 {
	if k == ConfidenceScores {
		return 1
	}
	return -1
}
