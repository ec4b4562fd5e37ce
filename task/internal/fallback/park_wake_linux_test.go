//go:build linux

package fallback

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The Backend's park has no bound: it lasts until a wake, a ready fd or
// the next timer. A post that its wake does not deliver waits for good.

// A post wakes a Backend parked in the netpoller on its epoll fd wherever
// its wake lands in the park. The readiness check that Go's RawConn.Read
// calls (the epoller's collect) is wrapped to post from another goroutine,
// and to return only once that post's Wake returned (its eventfd write
// done), in each window:
//
//   - before the park's first check (after the sleep state is stored);
//   - after a check found nothing, before Go waits for the epoll fd (only
//     a netpoller edge can end the park then);
//   - the same with a read deadline set (a timer far away);
//   - the same in the park right after one that ended at its deadline;
//   - the same after a spare wake's eventfd count was drained by ready().
//
// The posted func arms the next round (in the drain before the next park)
// and reports it, so that nothing but the posts under test wakes the
// Backend. Each post must end its park: a park that only the test's rescue
// ended (after the hang guard) is a lost post, counted per window; a
// window stops at its first (each costs the guard). Every post claimed the
// sleep of the park it landed in.
func TestFallbackPostEndsParkInEveryWindow(t *testing.T) {
	rounds := 2000
	if testing.Short() {
		rounds = 500
	}
	const (
		beforeCheck = iota
		afterEmptyCheck
		withDeadline
		afterTimedOut
		afterSpare
		windows
	)
	total := windows * rounds
	// Loop thread only (the check runs inside its park); read after stop.
	var (
		lt                *loop
		f                 *Backend
		p                 *epoller
		round, window     int // the round armed (total: none left), its window
		armed             bool
		injected, claimed int
	)
	var skip atomic.Bool // a post of this window was lost: go on with the next
	next := make(chan int, 1)
	idle := &wait{} // the dummy timers' wait: never parked, fire skips it
	arm := func(r int) {
		round, window = r, r/rounds
		f.timers = f.timers[:0] // only this test's dummies
		if r == total {
			return
		}
		armed = true
		switch window {
		case withDeadline:
			pushTimer(&f.timers, timerEntry{when: time.Now().Add(10 * hangGuard).UnixNano(), wt: idle})
		case afterTimedOut:
			pushTimer(&f.timers, timerEntry{when: time.Now().Add(time.Millisecond).UnixNano(), wt: idle})
		case afterSpare:
			p.wake()
		}
	}
	handled := func() {
		r := round + 1
		if skip.Swap(false) {
			r = (window + 1) * rounds
		}
		arm(r)
		next <- r
	}
	post := func() {
		armed = false
		posted := make(chan struct{})
		go func() {
			lt.post(handled)
			close(posted)
		}()
		<-posted
		injected++
		if f.SleepState() == 0 {
			claimed++
		}
	}
	l := startLoop(t, func(l *loop) {
		lt, f = l, l.f
		var ok bool
		if p, ok = f.p.(*epoller); !ok {
			return
		}
		collect := p.collect
		p.check = func(fd uintptr) bool {
			if !armed {
				return collect(fd)
			}
			switch {
			case window == beforeCheck:
				post()
				return collect(fd)
			case window == afterTimedOut && f.timers.Len() > 0:
				return collect(fd) // the park that times out first
			}
			if collect(fd) {
				return true
			}
			post()
			return false
		}
		arm(0)
	})
	require.NotNil(t, p, "the Backend has no epoller")

	var lost [windows]int
	for r := 0; r < total; {
		select {
		case r = <-next:
		case <-time.After(hangGuard):
			lost[r/rounds]++
			skip.Store(true)
			l.f.Rescue()
			r = within(t, next, "the loop never took the post, even after a rescue")
		}
	}
	l.stop(t)
	require.Equal(t, [windows]int{}, lost, "posts whose wake never ended the park, per window (a window stops at its first)")
	require.Equal(t, total, injected, "every round posted inside a park")
	require.Equal(t, injected, claimed, "every post claimed the sleep of the park it landed in")
}
