package task

import (
	"github.com/pure-uring/uring/sys"
	"github.com/pure-uring/uring/task/internal/iop"
)

const (
	msgSpawn  uint8 = iota // start t
	msgPoke                // w's context is done: interrupt its tasks' waits
	msgWake                // wake t if still parked with tok
	msgClose               // begin the shutdown
	msgFunc                // run fn on the executor's thread
	msgEvent               // a backend's goroutine handed ev to the executor's thread
	msgNotify              // n was notified: wake its waiting task
)

type remoteMsg struct {
	kind uint8
	tok  uint32
	t    *T
	fn   func()
	w    *ctxWatch
	n    *Notifier // msgNotify
	ev   iop.Event // msgEvent
}

// refuse answers m when the executor has stopped.
func (m *remoteMsg) refuse() {
	if m.kind == msgSpawn {
		m.t.finish(ErrClosed)
	}
}

// post hands m to the executor from any goroutine (or another executor)
// and wakes it if it sleeps; a stopped executor refuses it.
func (ex *Executor) post(m remoteMsg) {
	if ex.inbox.Post(m) != nil {
		m.refuse()
	}
}

// onThread reports whether the caller runs on the executor's thread: it
// is one of its tasks (coroutines run on the executor's locked thread).
// Callers check that the executor runs first: once it has stopped, its
// thread is gone and the number may be another thread's.
// A tid of 0 (a system whose thread ids sys does not know) never matches.
func (ex *Executor) onThread() bool { return ex.tid != 0 && ex.tid == sys.Gettid() }

// drain takes the messages other goroutines posted.
func (ex *Executor) drain() {
	msgs := ex.inbox.Take()
	for i := range msgs {
		m := &msgs[i]
		switch m.kind {
		case msgSpawn:
			if ex.closing {
				m.t.finish(ErrClosed)
			} else {
				ex.linkLive(m.t)
				ex.pushNew(m.t)
			}
		case msgPoke:
			ex.poke(m.w)
		case msgWake:
			if t := m.t; !t.finished && t.parkTok == m.tok && t.parkKind == parkWait {
				ex.wake(t)
			}
		case msgClose:
			ex.startClose()
		case msgFunc:
			m.fn()
		case msgEvent:
			m.ev.To.Posted(&m.ev)
		case msgNotify:
			m.n.notified(ex)
		}
		*m = remoteMsg{}
	}
}

// Do runs fn on the executor's thread (outside any task) and waits for it.
// From a task of the executor it returns ErrWouldDeadlock.
func (ex *Executor) Do(fn func()) error {
	if ex.closeReq.Load() {
		return ErrClosed
	}
	if ex.onThread() {
		return ErrWouldDeadlock
	}
	done := make(chan struct{})
	ex.post(remoteMsg{kind: msgFunc, fn: func() { fn(); close(done) }})
	select {
	case <-done:
		return nil
	case <-ex.done:
		return ErrClosed
	}
}
