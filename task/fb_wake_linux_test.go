//go:build linux

package task

import (
	"container/heap"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A fallback executor's park has no bound: it lasts until a wake, a ready
// fd or the next timer. These tests count the parks that nothing but the
// test's own rescue ended (a lost wakeup), which must be none.

// newFallbackExec starts a fallback executor, without a poller when
// noPoller is set (it parks on its wake channel, as on Windows).
func newFallbackExec(t *testing.T, noPoller bool) *Executor {
	t.Helper()
	fbNoPoller = noPoller
	ex, err := NewExecutor(WithoutIOUring())
	fbNoPoller = false
	require.NoError(t, err)
	return ex
}

// fbRescue ends ex's park without the wake protocol (no claim): an
// eventfd write, or a token on the wake channel.
func fbRescue(ex *Executor) {
	if ex.fb.p != nil {
		ex.fb.p.wake()
		return
	}
	select {
	case ex.fb.wakeCh <- struct{}{}:
	default:
	}
}

// waitFor polls cond (safe from any goroutine) until it holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for !cond() {
		require.True(t, time.Now().Before(deadline), "never: %s", what)
		time.Sleep(20 * time.Microsecond)
	}
}

// recvRescuing returns what arrives on c. When nothing has within the hang
// guard, ex's park is one that no wake ended: it counts it in lost and
// rescues the executor, so that the test reports the count instead of
// hanging.
func recvRescuing[R any](t *testing.T, ex *Executor, c <-chan R, lost *int) R {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(hangGuard):
		*lost++
		fbRescue(ex)
		return within(t, c, "the executor never took the post, even after a rescue")
	}
}

// A Close posted while the executor runs what its loop drained (a Do's
// function here) is taken by the drain at the start of its next poll,
// which then found nothing runnable and parked: the post was taken, so
// none was left to wake the park, and Close waited for a shutdown that
// only a bound on the park could start. The executor must never park
// once it took the close: with no task and no blocking call left it
// stops without parking, so a park seen after the release (sleep state
// parked, work flag down) is this loss, counted and rescued.
func TestFallbackCloseTakenByPollStops(t *testing.T) {
	rounds := 200
	if testing.Short() {
		rounds = 50
	}
	lost := [2]int{}
	for i, noPoller := range []bool{false, true} {
		for range rounds {
			ex := newFallbackExec(t, noPoller)
			waitFor(t, "the new executor parked", func() bool { return ex.fb.sl.State() == fbParked })
			release, held := make(chan struct{}), make(chan struct{})
			go func() { _ = ex.Do(func() { close(held); <-release }) }()
			within(t, held, "the Do never ran")
			closed := make(chan error, 1)
			go func() { closed <- ex.Close() }()
			// The Do holds the executor: Close's post waits, work flag up.
			waitFor(t, "Close posted", ex.fb.sl.HasWork)
			close(release)
			parked := false
			waitFor(t, "Close returned or the executor parked", func() bool {
				select {
				case err := <-closed:
					require.NoError(t, err)
					return true
				default:
				}
				parked = ex.fb.sl.State() == fbParked && !ex.fb.sl.HasWork()
				return parked
			})
			if parked {
				lost[i]++
				fbRescue(ex)
				require.NoError(t, within(t, closed, "Close never returned, even after a rescue"))
			}
		}
	}
	require.Equal(t, [2]int{}, lost, "executors that parked with their close taken (poller, no poller), of %d each", rounds)
}

// A post wakes an executor parked in the netpoller on its epoll fd
// wherever its wake lands in the park. The readiness check that Go's
// RawConn.Read calls (the epoller's collect) is wrapped to post from
// another goroutine, and to return only once that post's Wake returned
// (its eventfd write done), in each window:
//
//   - before the park's first check (after the sleep state is stored);
//   - after a check found nothing, before Go waits for the epoll fd (only
//     a netpoller edge can end the park then);
//   - the same with a read deadline set (a timer far away);
//   - the same in the park right after one that ended at its deadline;
//   - the same after a spare wake's eventfd count was drained by ready().
//
// Each post must end its park: none needs the test's rescue. Every post
// claimed the sleep of the park it landed in.
func TestFallbackPostEndsParkInEveryWindow(t *testing.T) {
	rounds := 2000
	if testing.Short() {
		rounds = 500
	}
	ex := newFallbackExec(t, false)
	defer func() { require.NoError(t, ex.Close()) }()
	p, ok := ex.fb.p.(*epoller)
	require.True(t, ok)

	const (
		beforeCheck = iota
		afterEmptyCheck
		withDeadline
		afterTimedOut
		afterSpare
		windows
	)
	// Executor thread only (the check runs inside its park).
	var (
		window            int
		armed             bool
		injected, claimed int
	)
	handled := make(chan struct{}, 1)
	done := &T{finished: true} // the dummy timers' task: fire skips it
	post := func() {
		armed = false
		posted := make(chan struct{})
		go func() {
			ex.post(remoteMsg{kind: msgFunc, fn: func() { handled <- struct{}{} }})
			close(posted)
		}()
		<-posted
		injected++
		if ex.fb.sl.State() == 0 {
			claimed++
		}
	}
	collect := p.collect
	require.NoError(t, ex.Do(func() {
		p.check = func(fd uintptr) bool {
			if !armed {
				return collect(fd)
			}
			switch {
			case window == beforeCheck:
				post()
				return collect(fd)
			case window == afterTimedOut && ex.fb.timers.Len() > 0:
				return collect(fd) // the park that times out first
			}
			if collect(fd) {
				return true
			}
			post()
			return false
		}
	}))
	defer func() { require.NoError(t, ex.Do(func() { p.check = collect })) }()
	arm := func(w int) {
		window, armed = w, true
		ex.fb.timers = ex.fb.timers[:0] // only this test's dummies
		switch w {
		case withDeadline:
			heap.Push(&ex.fb.timers, timerEntry{when: time.Now().Add(10 * hangGuard).UnixNano(), t: done})
		case afterTimedOut:
			heap.Push(&ex.fb.timers, timerEntry{when: time.Now().Add(time.Millisecond).UnixNano(), t: done})
		case afterSpare:
			p.wake()
		}
	}
	lost := 0
	for w := range windows {
		for range rounds {
			require.NoError(t, ex.Do(func() { arm(w) }))
			recvRescuing(t, ex, handled, &lost)
		}
	}
	require.NoError(t, ex.Do(func() { ex.fb.timers = ex.fb.timers[:0] }))
	counts := onExec(t, ex, func() [2]int { return [2]int{injected, claimed} })
	require.Zero(t, lost, "posts whose wake never ended the park")
	require.Equal(t, windows*rounds, counts[0], "every round posted inside a park")
	require.Equal(t, counts[0], counts[1], "every post claimed the sleep of the park it landed in")
}
