package fallback

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/poll"
	"github.com/pure-uring/uring/task/internal/iop"
)

func TestMain(m *testing.M) { testutil.Main(m) }

// hangGuard bounds each wait of a test for what should come at once. A
// post that no wake delivers costs one guard: the test counts it and
// rescues the Backend (Rescue), so that it reports the count instead of
// hanging.
const hangGuard = 20 * time.Second

// within returns what arrives on c, or fails the test after the hang
// guard.
func within[R any](t *testing.T, c <-chan R, what string) R {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(hangGuard):
		t.Fatal(what)
		panic("unreachable")
	}
}

// loop drives a Backend as package task's executor does, without one: a
// goroutine locked to its thread calls Poll(true) until stop. It is the
// Backend's iop.Sched: funcs posted from any goroutine go through a
// poll.Inbox bound to the Backend, as task's post does with its messages
// (append and raise the work flag under the lock, then Wake, which claims
// the sleep and wakes only a park it claimed), and Drain runs them.
type loop struct {
	f        *Backend
	in       poll.Inbox[func()]
	stopping atomic.Bool
	closed   chan error // the Backend's Close, once the loop stopped
	stopOnce sync.Once
}

// startLoop starts a loop on a new Backend, stopped at the end of the
// test; setup runs on its thread before the first Poll (l.f is set).
func startLoop(t *testing.T, setup func(l *loop)) *loop {
	t.Helper()
	l := &loop{closed: make(chan error, 1)}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		f, err := New(l)
		if err != nil {
			started <- err
			return
		}
		l.f = f
		l.in.Bind(f)
		setup(l)
		started <- nil
		for !l.stopping.Load() {
			f.Poll(true)
		}
		l.closed <- f.Close()
	}()
	require.NoError(t, within(t, started, "the loop never started"))
	t.Cleanup(func() { l.stop(t) })
	return l
}

// stop ends the loop and closes its Backend. It does not post (its wake
// may be the one under test): the flag, then a Rescue, which ends a park
// without the wake protocol; a Poll that has not parked yet sees the flag
// (Closing) and does not.
func (l *loop) stop(t *testing.T) {
	t.Helper()
	l.stopOnce.Do(func() {
		l.stopping.Store(true)
		l.f.Rescue()
		require.NoError(t, within(t, l.closed, "the loop never stopped"))
	})
}

// post hands fn to the loop thread from any goroutine, and wakes the loop
// if it parks.
func (l *loop) post(fn func()) {
	if err := l.in.Post(fn); err != nil {
		panic(err) // the inbox is never closed
	}
}

// The iop.Sched of the Backend (loop thread, but Post).

func (l *loop) Drain() {
	for _, fn := range l.in.Take() {
		fn()
	}
}

// Runnable: there are no tasks, and Drain ran every func it took; a post
// after it is the work flag's (the sleep protocol's) to see.
func (l *loop) Runnable() bool { return false }

// Closing: once stop began the Backend must not park, as once an
// executor's close began.
func (l *loop) Closing() bool { return l.stopping.Load() }

func (l *loop) Trim(time.Time)   {}
func (l *loop) Signalled() bool  { return false }
func (l *loop) Post(e iop.Event) { l.post(func() { e.To.Posted(&e) }) }

var _ iop.Sched = (*loop)(nil)
