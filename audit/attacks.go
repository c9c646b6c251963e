package audit

import (
	"slices"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/internal/names"
)

// Attacks names the empirical attacks an audit runs on the published models; nil runs
// them all. Each attack is supporting evidence where the method's state is checked, and
// decides where it is not (models trained elsewhere); its power planning costs time at
// small δ, which is why a spec may name only the ones it wants.
type Attacks []string

// The attacks there are.
const (
	// GameAttack is the distinguishing game on the published models (EmpiricalRelease).
	GameAttack = "game"
	// MembershipAttack is the per-record attack on the deleted records' losses
	// (MembershipRelease; for models trained elsewhere, VerifyMembership).
	MembershipAttack = "membership"
)

// AttackNames lists the attacks in the order reports show them.
var AttackNames = []string{GameAttack, MembershipAttack}

// Has says whether the audit runs the named attack.
func (a Attacks) Has(name string) bool { return a == nil || slices.Contains(a, name) }

// ParseAttacks reads a comma-separated list of AttackNames; an unknown or repeated name is
// an error naming it.
func ParseAttacks(s string) (Attacks, error) {
	return names.Parse(s, AttackNames, "attack", "a comma-separated list of "+strings.Join(AttackNames, ", "))
}
