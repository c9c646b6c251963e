package trials

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A folder of shard folders is listed, not globbed: its name is a name even when it holds
// pattern characters. Under filepath.Glob, "res[1]" matched nothing (the red team's merge
// of two real shards was refused) and "r*" read a decoy folder rX that no one named.
func TestShardFoldersTakeTheNameLiterally(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"res[1]/shard-0-of-2", "res[1]/shard-1-of-2", "res[1]/notes", "r*/shard-0-of-1", "rX/shard-0-of-2", "a?b/shard-0-of-1"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for dir, want := range map[string][]string{
		"res[1]": {"res[1]/shard-0-of-2", "res[1]/shard-1-of-2"},
		"r*":     {"r*/shard-0-of-1"},
		"a?b":    {"a?b/shard-0-of-1"},
		"absent": nil,
	} {
		got, err := shardFolders(filepath.Join(root, dir))
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			want[i] = filepath.Join(root, want[i])
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", dir, got, want)
		}
	}
}
