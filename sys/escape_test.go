package sys

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

//go:noinline
func growStack(n int) int {
	var pad [1024]byte
	if n == 0 {
		return int(pad[0])
	}
	return growStack(n-1) + int(pad[n%1024])
}

// TestAddrOfLocalSurvivesStackGrowth: a local whose address went to the
// kernel stays where it is when the goroutine's stack moves.
func TestAddrOfLocalSurvivesStackGrowth(t *testing.T) {
	var ts Timespec
	before := PtrAddr(&ts)
	buf := make([]byte, 16)
	beforeBuf := SliceAddr(buf)
	growStack(2000) // forces the stack to be copied to a bigger one
	require.Equal(t, before, PtrAddr(&ts))
	require.Equal(t, beforeBuf, SliceAddr(buf))
	runtime.KeepAlive(&ts)
}
