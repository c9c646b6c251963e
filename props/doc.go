// Package props holds rapid generators and reusable property suites for unlearning
// methods: small datasets drawn as scaled integers, losses, and update sequences mixing
// additions and deletions, with properties checked against exact retraining (the
// retrain package) and against each method's theorem.
package props
