package cliflag

import (
	"errors"
	"fmt"
)

// A Rule is one requirement on which flags a command line gives together ("--x does not
// apply to --table", "--models needs --epsilon"). A command declares its rules as data,
// beside its flags, and checks them in one call (Check), so that the combinations it
// accepts are read in one place rather than followed through branches.
type Rule struct {
	flags   []string // the flags the rule is about, in the order they are tried
	unless  string   // a Refuse rule holds anyway when this flag is given ("": never)
	require bool     // Require: every one of flags must be given; else Refuse
	message string   // Refuse: a format whose one %s is the flag's name; Require: the text
}

// Refuse is broken by the first of flags given, in the order listed; its error is format
// with the flag's name for its %s (fmt's verbs, so a percent sign is written %%).
func Refuse(format string, flags ...string) Rule {
	return Rule{flags: flags, message: format}
}

// Unless makes a Refuse rule hold when flag is given too: Refuse(…, "power").Unless("epsilon")
// refuses --power alone and accepts it beside --epsilon.
func (r Rule) Unless(flag string) Rule {
	r.unless = flag
	return r
}

// Require is broken when any of flags is not given; message says what is missing and why.
func Require(message string, flags ...string) Rule {
	return Rule{flags: flags, require: true, message: message}
}

// broken is the rule's error under the flags given, nil when it holds.
func (r Rule) broken(set map[string]bool) error {
	for _, f := range r.flags {
		switch {
		case r.require && !set[f]:
			return errors.New(r.message)
		case !r.require && set[f] && (r.unless == "" || !set[r.unless]):
			return fmt.Errorf(r.message, f)
		}
	}
	return nil
}

// Check returns the error of the first rule that the flags given (Set's map) break, in
// the order the rules are listed. Broken Require rules that stand next to each other are
// reported together, one message a line (errors.Join), so that a command line missing two
// flags learns of both at once.
func Check(set map[string]bool, rules ...Rule) error {
	var missing []error
	for _, r := range rules {
		if !r.require && len(missing) > 0 {
			break
		}
		if err := r.broken(set); err != nil {
			if !r.require {
				return err
			}
			missing = append(missing, err)
		}
	}
	return errors.Join(missing...)
}
