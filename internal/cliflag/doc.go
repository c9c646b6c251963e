// Package cliflag is the command line's one vocabulary: flag help printed the same way
// by every command, and old flag names kept as hidden aliases of the new ones for a
// release.
//
// Print writes a flag set's help as the tool's users read it — `--name PLACEHOLDER`,
// the usage, and one default — leaving aliases out:
//
//	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
//	fs.Float64("power-against", 2, "the violation to detect: true ε = F × the claim")
//	cliflag.Alias(fs, "factor", "power-against") // the old name still parses
//	fs.Usage = func() { cliflag.Print(fs.Output(), fs) }
//
// (ExampleAlias runs it.)
//
// A value names its placeholder by implementing Placeholder() string (the audit
// package's parameters do: N for an integer, X for a number); otherwise the usage's
// back-quoted word names it, as in the flag package, or the value's Go type does.
//
// An alias shares its flag's value: Canonical maps a name as given to the flag it sets,
// so a report's command line records `--power-against=3` however it was spelled, and
// Conflicts refuses a command line that sets one flag under two names. IfGiven points at a
// flag's value only when it was given, for a setting that overrides another's.
//
// Which flags go together is declared as Rules and checked by one call, in the order
// listed: Refuse names flags that do not apply (with Unless, not without another),
// Require flags that must be given, and adjacent missing flags are reported at once:
//
//	err := cliflag.Check(cliflag.Set(fs),
//		cliflag.Refuse("--%s does not apply to --table", "trials", "json"),
//		cliflag.Refuse("--%s needs --epsilon", "power").Unless("epsilon"),
//		cliflag.Require("--delta is required", "delta"))
package cliflag
