package shell_test

import (
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/internal/shell"
)

func ExampleJoin() {
	fmt.Println(shell.Join([]string{"audit", "run", "--spec=my spec.json", "--out=$(touch PWNED)", "--data=it's.csv"}))
	// Output: audit run '--spec=my spec.json' '--out=$(touch PWNED)' '--data=it'\''s.csv'
}
