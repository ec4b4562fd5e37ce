package sys

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// A locked goroutine's thread is the same on every call; another locked
// goroutine's thread is another; the zero Thread is no thread.
func TestCurrentThread(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	me := CurrentThread()
	require.True(t, me.Is(CurrentThread()))
	require.False(t, Thread{}.Is(Thread{}))
	require.False(t, me.Is(Thread{}))
	other := make(chan Thread)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		other <- CurrentThread()
	}()
	require.False(t, me.Is(<-other), "a goroutine locked to another thread")
	require.Zero(t, testing.AllocsPerRun(100, func() { _ = CurrentThread().Is(me) }))
}
