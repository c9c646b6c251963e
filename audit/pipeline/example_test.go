package pipeline_test

import (
	"context"
	"fmt"
	"log"

	"github.com/unlearnaudit/unlearnaudit/audit"
	_ "github.com/unlearnaudit/unlearnaudit/audit/methods" // every method registers itself
	"github.com/unlearnaudit/unlearnaudit/audit/pipeline"
)

// A library user gets the demo's report without the command: load the data, ask the
// methods for the subjects of the variants wanted, and run the plan.
func ExampleRun() {
	ctx := context.Background()
	var src pipeline.DataSource // no file: the built-in synthetic set
	data, err := src.Load(ctx, 3)
	if err != nil {
		log.Fatal(err)
	}
	attacks, err := audit.ParseAttacks("game,membership")
	if err != nil {
		log.Fatal(err)
	}
	subjects, requests, err := pipeline.NewSubjects(context.Background(), data.Set, pipeline.Setup{Lambda: 0.05, Epsilon: 1, Delta: 1e-6, Seed: 3,
		Confidence: 0.95, PowerAgainst: 2, Attacks: attacks, Variants: "perfect", MethodArgs: audit.DefaultArgs(pipeline.DemoParams())})
	if err != nil {
		log.Fatal(err)
	}
	rep, err := pipeline.Run(ctx, pipeline.Plan{Command: "demo", Version: "example", Seed: 3, Trials: 16, Confidence: 0.95,
		Data: data, Requests: requests, Subjects: subjects})
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range rep.Subjects {
		fmt.Println(s.Name, s.Verdict)
	}
	fmt.Println("overall:", rep.Summary.Verdict)
	// Output:
	// d2d/perfect PASS
	// overall: PASS
}
