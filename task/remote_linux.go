//go:build linux

package task

import (
	"errors"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

const (
	msgSpawn      uint8 = iota // start t
	msgPoke                    // t's context is done: interrupt its wait
	msgWake                    // wake t if still parked with tok
	msgClose                   // begin the shutdown
	msgFunc                    // run fn on the executor's thread
	msgConnIO                  // submit req's RECV/SEND
	msgConnCancel              // cancel req's RECV/SEND if in flight
)

type remoteMsg struct {
	kind uint8
	tok  uint32
	t    *T
	fn   func()
	req  *connReq
}

// refuse answers m when the executor has stopped.
func (m *remoteMsg) refuse() {
	switch m.kind {
	case msgSpawn:
		m.t.finish(ErrClosed)
	case msgConnIO:
		m.req.complete(-int32(unix.ECANCELED))
	}
}

// post hands m to the executor from any goroutine (or another executor)
// and wakes it if it sleeps in the kernel.
func (ex *Executor) post(m remoteMsg) {
	ex.mu.Lock()
	if ex.dead {
		ex.mu.Unlock()
		m.refuse()
		return
	}
	ex.inbox = append(ex.inbox, m)
	ex.inboxN.Add(1)
	ex.mu.Unlock()
	// Pairs with poll: it sets sleeping, then checks inboxN, then blocks.
	if ex.sleeping.Load() && ex.wakeSent.CompareAndSwap(false, true) {
		ex.sendWake()
	}
}

// sendWake wakes a sleeping executor: a write to its eventfd when it parks
// in Go's netpoller; else a CQE posted to its ring with
// IORING_REGISTER_SEND_MSG_RING (6.13, no ring needed), or a MSG_RING from
// a shared helper ring.
func (ex *Executor) sendWake() {
	if ex.netpollParked() {
		kick(ex.wakeFile)
		return
	}
	var msg sys.SQE
	_ = sqe.MsgRing(&msg, ex.ringFd, 0, udWake) // sqe flags stay 0: the ring-less form refuses any
	_, err := sys.Register(-1, sys.RegisterSendMsgRing, &msg, 1)
	if err == nil || !errors.Is(err, unix.EINVAL) {
		return // sent, or the ring is gone (the executor is closing)
	}
	helperMu.Lock()
	defer helperMu.Unlock()
	if helper == nil {
		r, err := uring.New(8)
		if err != nil {
			return
		}
		helper = r
	}
	if s, err := helper.GetSQE(); err == nil {
		fillWake(s, ex.ringFd)
		_, _ = helper.Submit()
	}
}

var (
	helperMu sync.Mutex
	helper   *uring.Ring
)

// drain takes the messages other goroutines posted.
func (ex *Executor) drain() {
	if ex.inboxN.Load() == 0 {
		return
	}
	ex.mu.Lock()
	msgs := ex.inbox
	ex.inbox = ex.spare[:0]
	ex.inboxN.Store(0)
	ex.mu.Unlock()
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
			ex.pokeAll()
		case msgWake:
			if t := m.t; !t.finished && t.parkTok == m.tok && t.parkKind == parkWait {
				ex.wake(t)
			}
		case msgClose:
			ex.startClose()
		case msgFunc:
			m.fn()
		case msgConnIO:
			ex.connStart(m.req)
		case msgConnCancel:
			ex.connCancel(m.req)
		}
		*m = remoteMsg{}
	}
	ex.spare = msgs[:0]
}

// Do runs fn on the executor's thread (outside any task) and waits for it.
func (ex *Executor) Do(fn func()) error {
	if ex.closeReq.Load() {
		return ErrClosed
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
