package canary

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/internal/atomicfile"
)

// WritePlan writes p to a new file at path, one JSON line, as ReadCanaryPlan reads it. A
// plan must match the training run drawn from it, so it is never overwritten: a file
// already at path is refused (an *atomicfile.NotCreatedError, whose text says so), and a
// write that fails leaves no file (atomicfile.WriteNew).
func WritePlan(path string, p CanaryPlan) error {
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	err = atomicfile.WriteNew(path, append(b, '\n'), 0o644)
	if nc := (*atomicfile.NotCreatedError)(nil); errors.As(err, &nc) {
		return &atomicfile.NotCreatedError{Err: fmt.Errorf("%w (a plan is never overwritten: it must match the training run)", nc.Err)}
	}
	return err
}

// NumIncluded is how many canaries the plan trains on (and then deletes).
func (p CanaryPlan) NumIncluded() int {
	n := 0
	for _, v := range p.Included {
		n += v
	}
	return n
}
