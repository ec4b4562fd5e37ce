//go:build linux

package sqe_test

import (
	"flag"
	"testing"

	"github.com/pure-uring/uring/sys"
)

// TestZZExecCoverage runs after the execution tests (files run in name
// order) and checks that every opcode of Linux 6.18 was submitted to the
// kernel at least once.
func TestZZExecCoverage(t *testing.T) {
	if f := flag.Lookup("test.run"); f != nil && f.Value.String() != "" {
		t.Skip("only meaningful when every test runs")
	}
	var missing []sys.Op
	for op := sys.OpNop; op <= sys.OpPipe; op++ {
		if _, ok := executed.Load(op); !ok {
			missing = append(missing, op)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("opcodes never executed (or their tests skipped): %v", missing)
	}
}
