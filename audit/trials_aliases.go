// Code generated for the move of the trial engine to audit/trials; DO NOT EDIT. These aliases keep old names compiling while callers move to package trials, and go when they have.

package audit

import "github.com/unlearnaudit/unlearnaudit/audit/trials"

type (
	BatchSubject    = trials.BatchSubject
	CheckFunc       = trials.CheckFunc
	CheckPhase      = trials.CheckPhase
	CheckQueue      = trials.CheckQueue
	CheckpointError = trials.CheckpointError
	Dimensioned     = trials.Dimensioned
	Engine          = trials.Engine
	Fingerprinter   = trials.Fingerprinter
	FoundShard      = trials.FoundShard
	MergeError      = trials.MergeError
	Shard           = trials.Shard
	ShardManifest   = trials.ShardManifest
	ShardSet        = trials.ShardSet
	ShardSubject    = trials.ShardSubject
	Subject         = trials.Subject
	TrialResult     = trials.TrialResult
)

const (
	EnvJobCompletions = trials.EnvJobCompletions
	EnvJobIndex       = trials.EnvJobIndex
	EnvSlurmTaskCount = trials.EnvSlurmTaskCount
	EnvSlurmTaskID    = trials.EnvSlurmTaskID
	EnvSlurmTaskMin   = trials.EnvSlurmTaskMin
	EnvSlurmTaskStep  = trials.EnvSlurmTaskStep
	MaxShards         = trials.MaxShards
	MaxTrials         = trials.MaxTrials
	ShardManifestFile = trials.ShardManifestFile
	ShardSchema       = trials.ShardSchema
	SharedBudget      = trials.SharedBudget
)

var (
	CheckTrialCapacity  = trials.CheckTrialCapacity
	CheckpointPath      = trials.CheckpointPath
	ConfigFingerprint   = trials.ConfigFingerprint
	EncodeShardManifest = trials.EncodeShardManifest
	FindShards          = trials.FindShards
	Fingerprint         = trials.Fingerprint
	MaxTrialLineBytes   = trials.MaxTrialLineBytes
	MergeShards         = trials.MergeShards
	MergeShardsProgress = trials.MergeShardsProgress
	ParamsOf            = trials.ParamsOf
	ParseShard          = trials.ParseShard
	ReadShardManifest   = trials.ReadShardManifest
	RunFingerprint      = trials.RunFingerprint
	RunTrial            = trials.RunTrial
	ShardFromEnv        = trials.ShardFromEnv
	WriteShardManifest  = trials.WriteShardManifest
)
