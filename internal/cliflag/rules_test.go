package cliflag

import (
	"testing"
)

// The rules of audit plan --models, as its command declares them: each combination is
// refused with its own message, the first broken rule wins, adjacent missing flags are
// reported together, and a command line that breaks none passes.
func TestCheckRules(t *testing.T) {
	rules := []Rule{
		Refuse("--%s does not apply to --models (its power 80 %%)", "trials", "power"),
		Refuse("--%s asks about a claim: it needs --epsilon", "power-against").Unless("epsilon"),
		Require("--retrains needs --models", "models"),
		Require("--models needs --epsilon", "epsilon"),
		Require("--table needs --epsilon and --delta", "epsilon", "delta"),
		Refuse("--%s is refused after the requirements", "json"),
	}
	for _, c := range []struct {
		given []string
		want  string // "" : no error
	}{
		{[]string{"models", "epsilon", "delta"}, ""},
		{[]string{"models", "epsilon", "delta", "power-against"}, ""},
		{[]string{"power", "trials", "models"}, "--trials does not apply to --models (its power 80 %)"}, // the order listed, not the order given
		{[]string{"power", "models"}, "--power does not apply to --models (its power 80 %)"},
		{[]string{"power-against", "models", "delta"}, "--power-against asks about a claim: it needs --epsilon"},
		{[]string{"retrains"}, "--retrains needs --models\n--models needs --epsilon\n--table needs --epsilon and --delta"},
		{[]string{"models", "epsilon"}, "--table needs --epsilon and --delta"},
		{[]string{"epsilon", "delta", "json"}, "--retrains needs --models"}, // the missing flags come before a later refusal
		{[]string{"models", "epsilon", "delta", "json"}, "--json is refused after the requirements"},
	} {
		set := map[string]bool{}
		for _, f := range c.given {
			set[f] = true
		}
		got := ""
		if err := Check(set, rules...); err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("Check(%v) = %q, want %q", c.given, got, c.want)
		}
	}
	if err := Check(nil); err != nil {
		t.Errorf("Check without rules = %v, want nil", err)
	}
}
