//go:build linux

package sqe_test

import (
	"flag"
	"testing"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sys"
)

// TestZZExecCoverage runs after the execution tests (files run in name
// order) and checks that every opcode up to PIPE (6.16) that the running
// kernel supports was submitted to it at least once: on an older kernel
// the parts of the tests that need something newer skip, but the opcodes
// it has still run.
func TestZZExecCoverage(t *testing.T) {
	if f := flag.Lookup("test.run"); f != nil && f.Value.String() != "" {
		t.Skip("only meaningful when every test runs")
	}
	var missing []sys.Op
	for op := sys.OpNop; op <= sys.OpPipe; op++ {
		if uring.CheckOp(op) != nil {
			continue
		}
		if _, ok := executed.Load(op); !ok {
			missing = append(missing, op)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("opcodes never executed (or their tests skipped): %v", missing)
	}
}
