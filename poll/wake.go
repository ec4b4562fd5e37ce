//go:build linux

package poll

import (
	"sync/atomic"

	"github.com/pure-uring/uring/internal/atomicx"
	"github.com/pure-uring/uring/sys"
)

// state32 is an atomic uint32 (the loop's sleeping state) that also has a
// release store.
type state32 struct{ v uint32 }

func (s *state32) Load() uint32          { return atomic.LoadUint32(&s.v) }
func (s *state32) Store(v uint32)        { atomic.StoreUint32(&s.v, v) }
func (s *state32) StoreRelease(v uint32) { atomicx.StoreRelease32(&s.v, v) }
func (s *state32) CompareAndSwap(old, v uint32) bool {
	return atomic.CompareAndSwapUint32(&s.v, old, v)
}

var oneByte = []byte{1}

// wake wakes the loop if it sleeps, with whichever kind of wakeup its
// sleep needs; of several goroutines only the one that flips the flag pays.
func (l *Loop) wake() {
	s := l.sleeping.Load()
	if s == awake || !l.sleeping.CompareAndSwap(s, awake) {
		return
	}
	switch s {
	case sleepKernel:
		l.kick()
		return
	case sleepEfd:
		l.kickEfd()
		return
	}
	select {
	case l.parkCh <- struct{}{}:
	default:
	}
}

// kick posts a CQE into the ring so that a wait in io_uring_enter returns:
// ring-less IORING_REGISTER_SEND_MSG_RING (6.13), else a byte on the pipe
// whose read is armed in the ring. kickMu keeps the ring fd open (and not
// reused) while a kick is in the kernel.
func (l *Loop) kick() {
	l.kickMu.RLock()
	if l.kickOK {
		l.kicks.Add(1)
		if l.usePipe {
			_, _ = l.pipeW.Write(oneByte)
		} else {
			_, _ = sys.Register(-1, sys.RegisterSendMsgRing, &l.kickSQE, 1)
		}
	}
	l.kickMu.RUnlock()
}

// armPipe arms a read of the wakeup pipe (loop thread); its CQE re-arms it.
func (l *Loop) armPipe() {
	if l.pipeArmed {
		return
	}
	s, err := l.getSQE()
	if err != nil {
		return // re-armed by the next reap round
	}
	l.st.Submitted-- // not a user operation
	*s = sys.SQE{Opcode: sys.OpRead, Fd: int32(l.pipeRFd), Addr: sys.SliceAddr(l.wakeBuf[:]), Len: uint32(len(l.wakeBuf)), Off: ^uint64(0), UserData: udPipe}
	l.pipeArmed = true
}

func (l *Loop) closePipe() {
	if l.pipeR != nil {
		_ = l.pipeR.Close()
		_ = l.pipeW.Close()
	}
}
