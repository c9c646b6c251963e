package props_test

import (
	"testing"

	"github.com/unlearnaudit/unlearnaudit/props"
	"github.com/unlearnaudit/unlearnaudit/reference/d2d"
	"pgregory.net/rapid"
)

func TestSensitivityLemma212(t *testing.T)      { rapid.Check(t, props.Sensitivity) }
func TestD2DTrajectorySecretState(t *testing.T) { rapid.Check(t, props.D2DTrajectory(d2d.SecretState)) }
func TestD2DTrajectoryPerfect(t *testing.T)     { rapid.Check(t, props.D2DTrajectory(d2d.Perfect)) }
func TestD2DTrajectoryConvexStrong(t *testing.T) {
	rapid.Check(t, props.D2DTrajectory(d2d.ConvexStrong))
}
func TestD2DTrajectoryConvexWeak(t *testing.T) { rapid.Check(t, props.D2DTrajectory(d2d.ConvexWeak)) }
func TestSigmaMonotone(t *testing.T)           { rapid.Check(t, props.SigmaMonotone) }

func TestDistributedTrajectoryPaper(t *testing.T) {
	rapid.Check(t, props.DistributedTrajectory(d2d.PaperSchedule))
}
func TestDistributedTrajectoryFixed(t *testing.T) {
	rapid.Check(t, props.DistributedTrajectory(d2d.FixedSchedule))
}
