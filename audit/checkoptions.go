package audit

import "github.com/unlearnaudit/unlearnaudit/mia"

// CheckOptions configure a method package's Check (and the controls it runs): one type for
// every method, each reading the fields that apply to it.
type CheckOptions struct {
	// Confidence is the confidence of the statistical checks (a FAIL is a violation shown
	// at it); 0 means 0.95.
	Confidence float64
	// Alpha is the Rényi order the release checks report where a method reports one order
	// (d2d); 0 means 2.
	Alpha float64
	// Seed seeds the checks' own randomness: the estimators' resampling, the attacks'
	// shadow draws and the replays of a trial the implementation checks run (the audit's
	// trial seed, so that a replay reproduces the trial it checks).
	Seed uint64
	// PowerAgainst is the multiple of the claimed ε the empirical attacks must catch with
	// 80 % power to PASS; 0 means DefaultPowerAgainst.
	PowerAgainst float64
	// Attacks are the empirical attacks run (nil: all).
	Attacks Attacks
	// MIASamples caps the members and non-members each that a method's own membership
	// attacker fits on (safe's SVC attack); 0 means the method's default (safe: 300).
	MIASamples int
	// Resamples, when set, are shared by the membership checks of the subjects built with
	// these options (MembershipRelease.Resamples): a run with controls sets one for all.
	Resamples *mia.Resamples
}
