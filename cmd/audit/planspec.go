package main

import (
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/unlearnaudit/unlearnaudit/audit/pipeline"
)

// planRequest is audit plan --spec's question: the power target, and how to calibrate.
type planRequest struct {
	spec           string  // the spec file, as given
	power, against float64 // against 0: the spec's power.against, else verdict.DefaultPowerAgainst
	shards         int
	budget         time.Duration
	json           bool
}

// runPlanSpec answers audit plan --spec (pipeline.AnswerPlan) and prints the answer.
func runPlanSpec(ctx context.Context, c demoConfig, plan pipeline.Plan, setup time.Duration, stdout io.Writer) error {
	pr := c.replay.plan
	q := c.PlanQuestion(pipeline.PlanQuestion{Spec: pr.spec, Power: pr.power, Against: pr.against, Shards: pr.shards, Budget: pr.budget})
	out, cal, err := pipeline.AnswerPlan(ctx, plan, q, setup)
	if err != nil {
		return err
	}
	if pr.json {
		return json.NewEncoder(stdout).Encode(out)
	}
	out.WriteText(stdout, cal, setup)
	return nil
}
