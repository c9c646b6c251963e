package artifact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/unlearnaudit/unlearnaudit/internal/clip"
	"github.com/unlearnaudit/unlearnaudit/internal/regular"
)

// CardSchema names the version of the toolkit's model card.
const CardSchema = "unlearnaudit/model-card/v1"

// A Card is the toolkit's own model file: the weights with everything an auditor needs to
// redo or check the training — the loss and its hyperparameters, the training recipe and
// seed, the dataset by digest, the deletion requests served, and the claim made.
//
//	{
//	  "schema": "unlearnaudit/model-card/v1",
//	  "weights": [0.12, -0.3, 0.05],
//	  "loss": {"name": "logistic", "lambda": 0.05},
//	  "recipe": {"method": "d2d", "variant": "strongly-convex", "params": {"iterations": "10"}},
//	  "seed": 7,
//	  "dataset": {"file": "heart_scale", "sha256": "5defa0a4…", "rows": 270, "features": 13},
//	  "deletions": [17, 42],
//	  "claim": {"epsilon": 1, "delta": 1e-6}
//	}
type Card struct {
	Schema    string            `json:"schema"`
	Weights   []float64         `json:"weights"`
	Loss      CardLoss          `json:"loss"`
	Recipe    CardRecipe        `json:"recipe"`
	Seed      uint64            `json:"seed"`
	Dataset   CardDataset       `json:"dataset"`
	Deletions []int64           `json:"deletions"`
	Claim     CardClaim         `json:"claim"`
	Notes     map[string]string `json:"notes,omitempty"`
}

// CardLoss is the loss the weights minimise.
type CardLoss struct {
	Name   string  `json:"name"`
	Lambda float64 `json:"lambda"`
}

// CardRecipe is how the weights were trained and unlearned: a method, its variant and its
// settings as the CLI would take them.
type CardRecipe struct {
	Method  string            `json:"method"`
	Variant string            `json:"variant"`
	Params  map[string]string `json:"params,omitempty"`
}

// CardDataset names the training data by digest.
type CardDataset struct {
	File     string `json:"file"`
	SHA256   string `json:"sha256"`
	Rows     int    `json:"rows"`
	Features int    `json:"features"`
}

// CardClaim is the (ε, δ)-unlearning claim made for the deletions.
type CardClaim struct {
	Epsilon float64 `json:"epsilon"`
	Delta   float64 `json:"delta"`
}

// maxCardBytes bounds a card: 8 MB holds a model of about 400,000 weights written as JSON.
const maxCardBytes = 8 << 20

// LoadCard reads a model card.
func LoadCard(path string) (*Card, error) {
	f, err := regular.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load model card: %w", err)
	}
	defer f.Close()
	return ParseCard(f, path)
}

// ParseCard reads a model card from r; name is used in errors. Unknown fields are errors,
// and so are a missing schema, weights that are absent or not finite, a claim outside
// ε > 0, 0 < δ < 1, a dataset digest that is not 64 hex digits, and counts that do not
// agree with the weights.
func ParseCard(r io.Reader, name string) (*Card, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxCardBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read model card %s: %w", name, err)
	}
	fail := func(field, format string, args ...any) error {
		return fmt.Errorf("%s: %s: %s", name, field, fmt.Sprintf(format, args...))
	}
	if len(b) > maxCardBytes {
		return nil, fail("file", "larger than %d bytes", maxCardBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var c Card
	if err := dec.Decode(&c); err != nil {
		return nil, fail("json", "%v", err)
	}
	if dec.More() {
		return nil, fail("json", "text after the card")
	}
	switch {
	case c.Schema != CardSchema:
		return nil, fail("schema", "%s; want %q", clip.Quote(c.Schema), CardSchema)
	case len(c.Weights) == 0:
		return nil, fail("weights", "missing or empty")
	case c.Loss.Name != "logistic" && c.Loss.Name != "ridge":
		return nil, fail("loss.name", "%s; want logistic or ridge", clip.Quote(c.Loss.Name))
	case !(c.Loss.Lambda >= 0) || math.IsInf(c.Loss.Lambda, 0):
		return nil, fail("loss.lambda", "%v; want a finite λ ≥ 0", c.Loss.Lambda)
	case c.Recipe.Method == "":
		return nil, fail("recipe.method", "missing")
	case !(c.Claim.Epsilon > 0) || math.IsInf(c.Claim.Epsilon, 0):
		return nil, fail("claim.epsilon", "%v; want a finite ε > 0", c.Claim.Epsilon)
	case !(c.Claim.Delta > 0 && c.Claim.Delta < 1):
		return nil, fail("claim.delta", "%v; want 0 < δ < 1", c.Claim.Delta)
	case len(c.Dataset.SHA256) != 64 || strings.Trim(strings.ToLower(c.Dataset.SHA256), "0123456789abcdef") != "":
		return nil, fail("dataset.sha256", "%s; want 64 hexadecimal digits", clip.Quote(c.Dataset.SHA256))
	case c.Dataset.Features != len(c.Weights):
		return nil, fail("dataset.features", "%d features for %d weights", c.Dataset.Features, len(c.Weights))
	case c.Dataset.Rows < 1 || len(c.Deletions) >= c.Dataset.Rows:
		return nil, fail("dataset.rows", "%d rows with %d deletions; want more rows than deletions", c.Dataset.Rows, len(c.Deletions))
	}
	for i, w := range c.Weights {
		if math.IsNaN(w) || math.IsInf(w, 0) {
			return nil, fail(fmt.Sprintf("weights[%d]", i), "%v; weights must be finite", w)
		}
	}
	seen := map[int64]bool{}
	for i, id := range c.Deletions {
		if seen[id] {
			return nil, fail(fmt.Sprintf("deletions[%d]", i), "record ID %d named twice", id)
		}
		seen[id] = true
	}
	return &c, nil
}
