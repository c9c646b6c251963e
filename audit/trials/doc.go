// Package trials runs an audit's trials: it samples a Subject many times, keeps every
// finished trial on disk, and hands the results to the checks.
//
// A Subject is an unlearning setup the auditor can sample: each trial learns, serves the
// requests and publishes (Unlearned), and retrains from scratch on the final data and
// publishes (Retrained). Its Claim says what the method certifies.
//
//	res, err := trials.Engine{Workers: 4, Checkpoint: "gauss.jsonl"}.Run(ctx, subject, seed, 1000)
//
// The Engine runs trials on a worker pool. Trial i takes all its randomness from
// reference.Streams{Seed, i}, so results do not depend on the number of workers, and each
// finished trial (a TrialResult) is appended to a checkpoint file at once, so an
// interrupted audit resumes where it stopped. A checkpoint is keyed by the subject's
// Fingerprint — its claim, and whatever else a Fingerprinter says about its configuration
// — so one written for another configuration is refused, never mixed in, with the
// settings that differ named; CheckpointPath gives each configuration a file of its own,
// and ConfigFingerprint is the one hash every method's Fingerprint uses. Every line carries
// its index and a checksum: a line edited, duplicated, out of range or copied from another
// configuration's file is a CheckpointError naming the file and line. With an evidence key
// (Engine.Key, package evidence) every line also carries an HMAC-SHA256 tag, so a forged
// line is refused, not merely a damaged one. A Dimensioned subject bounds each line by
// MaxTrialLineBytes of its models' size, so a hostile line costs about that bound to refuse.
// MaxTrials is the most trials per subject any front end accepts; CheckTrialCapacity
// refuses, before any work, trials whose kept models would pass reference.MaxValues.
//
// # Shards
//
// Because a trial depends only on (configuration, seed, index), an audit splits across
// machines without a scheduler: a Shard is part I of N (ParseShard, ShardFromEnv), and an
// Engine with a Shard runs only trials I, I+N, I+2N, … Each part's folder holds a
// ShardManifest naming the audit's RunFingerprint; MergeShards gathers the parts
// (FindShards) and refuses, in one MergeError, parts that do not belong together or leave
// trials missing (with the command to rerun); ShardSet.WriteCheckpoints leaves the merged
// trials where a one-machine run would have, and an Engine with ResumeOnly reports them
// without running any, so the merged report is the one-machine report byte for byte.
// Files inside an output folder are written through an atomicfile.Folder, which follows no link.
//
// # The check phase
//
// Checks of many subjects run after their trials, through a CheckQueue: its CheckPhase
// bounds how many run at once (each holds working copies of its trials' models). Checks
// that should share their membership resamples (a subject and its controls, drawing them
// once) are handed one set explicitly, at most SharedBudget bytes.
package trials
