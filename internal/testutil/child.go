package testutil

import (
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
)

// Child re-runs this test binary with only the test named run, the extra
// environment env, and -test.short when this run has it: for what needs a
// process of its own (process-wide limits, fresh threads, seccomp). It
// returns the combined output and fails the test when the child fails or
// did not run the test.
func Child(t *testing.T, run string, env ...string) string {
	t.Helper()
	args := []string{"-test.run=^" + run + "$", "-test.v", "-test.count=1"}
	if testing.Short() {
		args = append(args, "-test.short")
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "child %s: %s", run, out)
	require.Contains(t, string(out), "--- PASS: "+run, "child did not run the test: %s", out)
	return string(out)
}
