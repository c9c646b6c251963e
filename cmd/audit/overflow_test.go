package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Numbers past what their flag, field, variable or file header can hold are refused with
// exit 2, naming where they came from and echoing them as written: never a value that
// overflowed or was clipped on the way (the red team saw "part 9223372036854775807 of 4"
// from SLURM_ARRAY_TASK_ID=-9223372036854775808, and a safetensors dimension of
// 99999999999 printed as 2147483647).
func TestHugeNumbersEchoedAsWritten(t *testing.T) {
	dir := t.TempDir()
	const d2d = `"method": {"name": "d2d", "variants": ["strongly-convex"]}, `
	spec := func(name, fields string) string {
		if !strings.Contains(fields, `"method"`) {
			fields = d2d + fields
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(`{"schema": "unlearnaudit/spec/v1", `+fields+` "claim": {"epsilon": 1, "delta": 0.01}}`), 0o644)
		return p
	}
	st := filepath.Join(dir, "st")
	os.MkdirAll(st, 0o755)
	header := `{"w":{"dtype":"F64","shape":[3,99999999999],"data_offsets":[0,8]}}`
	b := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	os.WriteFile(filepath.Join(st, "m.safetensors"), append(append(b, header...), make([]byte, 8)...), 0o644)
	vspec := filepath.Join(dir, "v.json")
	os.WriteFile(vspec, []byte(`{"method": {"name": "d2d"}, "claim": {"epsilon": 1, "delta": 1e-3}}`), 0o644)
	good := spec("good.json", "")
	for _, c := range []struct {
		name string
		env  map[string]string
		args []string
		want []string
	}{
		{"--trials past int64", nil, []string{"demo", "--trials", "99999999999999999999"}, []string{"--trials 99999999999999999999: overflows a 64-bit integer"}},
		{"--workers 1e400", nil, []string{"demo", "--workers", "1e400"}, []string{"--workers 1e400: want an integer"}},
		{"--seed -1", nil, []string{"demo", "--seed", "-1"}, []string{`"-1"`, "-seed"}},
		{"--seed past uint64", nil, []string{"demo", "--seed", "18446744073709551616"}, []string{`"18446744073709551616"`, "-seed", "out of range"}},
		{"--one-run-max int64", nil, []string{"demo", "--one-run", "--one-run-max", "9223372036854775807"}, []string{"--one-run-max 9223372036854775807: want 32 to"}},
		{"plan --trials int64", nil, []string{"plan", "--trials", "9223372036854775807", "--delta", "1e-5"}, []string{"--trials 9223372036854775807: want an integer in [2, 1000000]"}},
		{"--max-values 1e30", nil, []string{"demo", "--max-values", "1e30"}, []string{"--max-values 1e30: want an integer"}},
		{"--shard int64/int64", nil, []string{"run", "--spec", good, "--shard", "9223372036854775807/9223372036854775807"}, []string{`--shard: shard "9223372036854775807/9223372036854775807": 9223372036854775807 parts; want 1 to 100000`}},
		{"--shard past int64", nil, []string{"run", "--spec", good, "--shard", "0/99999999999999999999"}, []string{`--shard: shard "0/99999999999999999999": want I/N with integers`}},
		{"spec trials 1e20", nil, []string{"run", "--spec", spec("t.json", `"trials": 1e20, `)}, []string{"t.json: trials: 1e20: want an integer"}},
		{"spec trials past int64", nil, []string{"run", "--spec", spec("t2.json", `"trials": 99999999999999999999, `)}, []string{"t2.json: trials: 99999999999999999999: overflows a 64-bit integer"}},
		{"spec seed 2^64 as a float", nil, []string{"run", "--spec", spec("s.json", `"seed": 1.8446744073709552e19, `)}, []string{"s.json: seed: 1.8446744073709552e19: want a non-negative integer"}},
		{"spec seed 2^64", nil, []string{"run", "--spec", spec("s2.json", `"seed": 18446744073709551616, `)}, []string{"s2.json: seed: 18446744073709551616: want a non-negative integer"}},
		{"spec delete past int64", nil, []string{"run", "--spec", spec("d.json", `"deletes": [99999999999999999999], `)}, []string{"d.json: deletes[0]: 99999999999999999999: want an integer record ID"}},
		{"spec method param past int64", nil, []string{"run", "--spec", spec("m.json", `"method": {"name": "d2d", "params": {"iterations": 99999999999999999999}}, `)}, []string{"m.json: method.params.iterations: 99999999999999999999: overflows a 64-bit integer"}},
		{"spec confidence 1e400", nil, []string{"run", "--spec", spec("e.json", `"confidence": 1e400, `)}, []string{"e.json: confidence: 1e400: overflows float64"}},
		{"Slurm task ID of int64's least", map[string]string{"SLURM_ARRAY_TASK_ID": "-9223372036854775808", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "1"},
			[]string{"run", "--spec", good}, []string{"SLURM_ARRAY_TASK_ID=-9223372036854775808: want an integer from 0 to 2147483648"}},
		{"Indexed Job index past int64", map[string]string{"JOB_COMPLETION_INDEX": "99999999999999999999", "JOB_COMPLETIONS": "4"},
			[]string{"run", "--spec", good}, []string{"JOB_COMPLETION_INDEX=99999999999999999999: want an integer from 0 to"}},
		{"safetensors dimension past 2^31", nil, []string{"verify", "--spec", vspec, "--unlearned", st, "--retrained", st},
			[]string{"m.safetensors: w.shape: tensor w: shape [3 99999999999] holds more than the cap of 134217728 values"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			withEnv(t, c.env)
			args := append(append([]string{}, c.args...), "--out", filepath.Join(dir, "out-"+strings.ReplaceAll(c.name, " ", "-")))
			_, stderr, code := runCLI(t, args...)
			if code != exitUsage {
				t.Fatalf("exit %d, want 2: %s", code, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q; want %q", stderr, w)
				}
			}
			// no number the user did not write: int64's and int32's extremes appear only echoed
			for _, n := range []string{"9223372036854775807", "-9223372036854775808", "2147483647", "+Inf"} {
				if strings.Contains(stderr, n) && !strings.Contains(strings.Join(args, " ")+" "+envText(c.env), n) {
					t.Errorf("stderr %q prints %s, which the input did not hold", stderr, n)
				}
			}
		})
	}
}

func envText(env map[string]string) string {
	var s []string
	for k, v := range env {
		s = append(s, k+"="+v)
	}
	return strings.Join(s, " ")
}
