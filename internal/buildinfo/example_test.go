package buildinfo_test

import (
	"fmt"
	"runtime/debug"

	"github.com/unlearnaudit/unlearnaudit/internal/buildinfo"
)

func ExampleDescribe() {
	bi := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "415d663aa1b2c3d4e5f6"}}}
	fmt.Println(buildinfo.Describe("0.1.0", buildinfo.FromBuildInfo(bi)))
	// Output: 0.1.0 (commit 415d663aa1b2; go1.26.0)
}
