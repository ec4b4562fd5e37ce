package fdguard

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// Close waits for the calls in progress, refuses the calls after it, and
// reports a second Close.
func TestCloseWaitsForCalls(t *testing.T) {
	var g Guard
	require.True(t, g.Acquire())
	require.True(t, g.Acquire())
	closed := make(chan bool)
	go func() { closed <- g.Close() }()
	for g.Acquire() { // until Close has begun
		g.Release()
		runtime.Gosched()
	}
	g.Release()
	select {
	case <-closed:
		t.Fatal("Close returned with a call in progress")
	default:
	}
	g.Release()
	require.True(t, <-closed)
	require.False(t, g.Acquire())
	require.False(t, g.Close(), "a second Close")
	require.True(t, g.state.Load() == closedBit, "nothing counted after Close")
}

// Calls racing Close either run whole before Close returns or are
// refused: none is in progress after Close returned.
func TestCallsRacingClose(t *testing.T) {
	for round := 0; round < 200; round++ {
		var g Guard
		var inside, late atomic.Int64
		var closedDone atomic.Bool
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 100 {
					if !g.Acquire() {
						return
					}
					inside.Add(1)
					if closedDone.Load() {
						late.Add(1)
					}
					inside.Add(-1)
					g.Release()
				}
			}()
		}
		require.True(t, g.Close())
		closedDone.Store(true)
		require.Zero(t, inside.Load(), "round %d: a call in progress after Close returned", round)
		wg.Wait()
		require.Zero(t, late.Load(), "round %d: a call began after Close returned", round)
	}
}
