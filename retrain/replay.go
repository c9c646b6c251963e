package retrain

import (
	"context"
	"fmt"

	"github.com/unlearnaudit/unlearnaudit/reference"
)

// A Recipe is a method's learning procedure: what a retrain from scratch reruns. It draws
// every random choice from the streams it is given, by purpose, so a retrain can share the
// randomness of the run it is compared with (ask for the same purpose) or stay independent
// of it (ask for another).
type Recipe interface {
	Learn(ctx context.Context, ds *reference.Dataset, s reference.Streams) (reference.Release, error)
}

// RecipeFunc adapts a function to a Recipe.
type RecipeFunc func(ctx context.Context, ds *reference.Dataset, s reference.Streams) (reference.Release, error)

// Learn calls f.
func (f RecipeFunc) Learn(ctx context.Context, ds *reference.Dataset, s reference.Streams) (reference.Release, error) {
	return f(ctx, ds, s)
}

// Replay applies the update sequence to ds and reruns the recipe from scratch on the
// result: the retrain an unlearning method is compared with.
func Replay(ctx context.Context, r Recipe, ds *reference.Dataset, updates []reference.Update, s reference.Streams) (reference.Release, error) {
	final := ds
	for i, u := range updates {
		next, err := final.Apply(u)
		if err != nil {
			return reference.Release{}, fmt.Errorf("replay update %d (%s): %w", i+1, u, err)
		}
		final = next
	}
	return r.Learn(ctx, final, s)
}

// FromScratch reruns the recipe on ds without the deleted records.
func FromScratch(ctx context.Context, r Recipe, ds *reference.Dataset, deleted []int64, s reference.Streams) (reference.Release, error) {
	rest, err := ds.Without(deleted...)
	if err != nil {
		return reference.Release{}, fmt.Errorf("retrain from scratch: %w", err)
	}
	return r.Learn(ctx, rest, s)
}
