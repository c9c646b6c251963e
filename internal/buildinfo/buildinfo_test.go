package buildinfo

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestDescribe(t *testing.T) {
	for _, c := range []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"a checkout's build", debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "false"}}},
			"0.1.0 (commit 0123456789ab; go1.26.0)"},
		{"a dirty tree", debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}},
			"0.1.0 (commit 0123456789ab, modified; go1.26.0)"},
		{"go install …@version", debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.0.0-20261127031936-415d663aa1b2"}},
			"0.1.0 (module v0.0.0-20261127031936-415d663aa1b2; go1.26.0)"},
		{"go run", debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}},
			"0.1.0 (commit not stamped: go run, a build with -buildvcs=false, or a build in a git worktree; go1.26.0)"},
	} {
		if got := Describe("0.1.0", FromBuildInfo(&c.bi)); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// Arch names the architecture and, on amd64, the level the build recorded (from v3 the
// compiler fuses multiply–adds); the running build's starts with its GOARCH.
func TestArch(t *testing.T) {
	v3 := &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "GOARCH", Value: "amd64"}, {Key: "GOAMD64", Value: "v3"}}}
	for _, c := range []struct {
		goarch string
		bi     *debug.BuildInfo
		want   string
	}{
		{"amd64", v3, "amd64/v3"},
		{"amd64", &debug.BuildInfo{}, "amd64"},
		{"amd64", nil, "amd64"},
		{"arm64", v3, "arm64"},
	} {
		if got := archOf(c.goarch, c.bi); got != c.want {
			t.Errorf("archOf(%s, %v) = %q, want %q", c.goarch, c.bi, got, c.want)
		}
	}
	if a := Arch(); !strings.HasPrefix(a, runtime.GOARCH) {
		t.Errorf("Arch() = %q, not this build's %s", a, runtime.GOARCH)
	}
}
