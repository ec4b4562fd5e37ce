//go:build linux

package ring

import (
	"runtime"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/sockaddr"
	"github.com/pure-uring/uring/poll"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/pure-uring/uring/task/internal/iop"
)

// Every op's user_data is the token of a slot of the executor's Core
// (slot index and generation: a stale CQE is recognised and dropped
// there); the backend's own SQEs carry udIgnore, whose CQEs the Core
// drops.
const (
	udIgnore      = poll.IgnoreUserData
	slotFdResult  = 1 << 0 // the result is a new fd: close it if the op was cancelled
	slotZC        = 1 << 1 // zero-copy send: done on the notification CQE
	slotMultishot = 1 << 2 // CQEs go to a stream until F_MORE drops
	slotPeer      = 1 << 3 // accept/recvmsg: decode the peer address for the waiter
	slotMsgOut    = 1 << 4 // recvmsg: decode the msghdr's outputs for the waiter
	slotRecv      = 1 << 5 // recv: the CQE says whether the socket still has data
	slotSleep     = 1 << 6 // a sleep: -ETIME is its success
)

// slot keeps everything an operation lends the kernel reachable (and
// pinned) until its last CQE.
type slot struct {
	r     *Backend
	tok   poll.Token // its Core slot's token while in use
	inUse bool
	kind  uint8

	w         *iop.Waiter // nil once nobody waits
	out       *iop.Result // a link's: where its result goes
	cancelled bool        // ASYNC_CANCEL sent for it
	linkedTO  bool        // a LINK_TIMEOUT follows it
	zcRes     int32       // the result CQE of an op that posts more than one
	zcFlags   uint32      // a raw op's: that CQE's flags, less F_MORE
	zcHave    bool
	multi     *stream
	linkSQE   *sys.SQE // a Link's: its SQE while the chain is built

	pin    runtime.Pinner
	pinned bool
	heavy  bool // holds references beyond buf, w and out: recycle clears them

	// References the kernel may use until the CQE.
	buf   []byte
	bufs  [][]byte
	iov   []unix.Iovec
	path  []byte
	path2 []byte
	ptr   any
	ts    sys.Timespec
	lts   sys.Timespec // of the LINK_TIMEOUT
	msg   unix.Msghdr
	name  [128]byte // a msghdr's sockaddr
	sa    unix.RawSockaddrAny
	salen uint32
	sa4   unix.RawSockaddrInet4
	sa6   unix.RawSockaddrInet6
}

func (sl *slot) ud() uint64 { return uint64(sl.tok) }

// allocSlot takes a Core slot and the op record kept on it (made and
// kept there the first time the slot is used): the Core's free list is the
// only one.
func (r *Backend) allocSlot() *slot {
	tok, h := r.core.AcquireKept()
	sl, _ := h.(*slot)
	if sl == nil {
		sl = &slot{r: r}
		r.core.Keep(tok, sl)
		r.slots = append(r.slots, sl)
	}
	sl.tok = tok
	sl.inUse = true
	return sl
}

// freeSlot returns the slot of an op whose SQE never reached the kernel
// (it was refused, or turned into an ignored NOP).
func (r *Backend) freeSlot(sl *slot) {
	r.core.Release(sl.tok)
	r.recycle(sl)
}

// recycle clears an op record whose last CQE came (the Core released its
// slot before handing it the CQE).
func (r *Backend) recycle(sl *slot) {
	if sl.pinned {
		sl.pin.Unpin()
		sl.pinned = false
	}
	sl.buf, sl.w, sl.out = nil, nil, nil
	if sl.heavy {
		sl.bufs, sl.ptr, sl.multi = nil, nil, nil
		for i := range sl.iov {
			sl.iov[i] = unix.Iovec{}
		}
		sl.msg = unix.Msghdr{}
		sl.heavy = false
	}
	sl.kind, sl.cancelled, sl.linkedTO, sl.zcHave = 0, false, false, false
	sl.inUse = false
}

// pinBytes pins the memory behind b until the slot is freed.
func (sl *slot) pinBytes(b []byte) {
	if len(b) > 0 {
		sl.pin.Pin(&b[0])
		sl.pinned = true
	}
}

// keepBytes keeps b referenced and pinned until the slot is freed.
func (sl *slot) keepBytes(b []byte) {
	sl.buf = b
	sl.pinBytes(b)
}

func (sl *slot) pinPtr(p any) {
	sl.pin.Pin(p)
	sl.pinned = true
}

// Handle takes one CQE of the op (poll.Handler; the Core has checked its
// generation).
func (sl *slot) Handle(c *sys.CQE) {
	r := sl.r
	more := c.Flags&sys.CQEFMore != 0
	switch {
	case sl.kind&slotMultishot != 0:
		if sl.multi != nil {
			sl.multi.cqe(c.Res, uint32(c.Flags))
		}
		if more {
			return
		}
	case sl.kind&slotZC != 0:
		if c.Flags&sys.CQEFNotif == 0 {
			sl.zcRes, sl.zcHave = c.Res, true
			if more {
				return // the buffer is lent until the notification
			}
		}
		if more {
			return
		}
		r.finish(sl, sl.zcRes, uint32(c.Flags))
		return
	default:
		// A raw op (T.Await, a Link's SQEOp) that posts more than one
		// CQE (SEND_ZC, SENDMSG_ZC, a multishot op): the kernel holds
		// its memory until the CQE without F_MORE, so it ends there,
		// with the first CQE's result and flags (the send's byte count).
		if more {
			if !sl.zcHave {
				sl.zcRes, sl.zcFlags, sl.zcHave = c.Res, uint32(c.Flags&^sys.CQEFMore), true
			}
			return
		}
		// An error that ends the op after a first success (a multishot
		// op's) wins: it is not lost. A notification's res is no error.
		if sl.zcHave && !(sl.zcRes >= 0 && c.Res < 0 && c.Flags&sys.CQEFNotif == 0) {
			r.finish(sl, sl.zcRes, sl.zcFlags)
			return
		}
	}
	r.finish(sl, c.Res, uint32(c.Flags))
}

// finish ends the op in sl with its last CQE: the waiter gets the result
// and runs again once every op it waits for is done.
func (r *Backend) finish(sl *slot, res int32, flags uint32) {
	if sl.kind&slotFdResult != 0 && sl.cancelled && res >= 0 {
		// The task was told "cancelled": nobody will close this fd.
		r.closeFdAsync(int(res))
		res = -int32(unix.ECANCELED)
	}
	if sl.kind&slotSleep != 0 && res == -int32(unix.ETIME) {
		res = 0 // the timeout expired: the sleep is over
	}
	w, out := sl.w, sl.out
	if w != nil {
		switch {
		case sl.kind&slotMsgOut != 0:
			// Decode what the kernel wrote into the slot before it is reused.
			w.Peer = sockaddr.Get(sl.name[:], sl.msg.Namelen)
			w.OOBN, w.RecvFlags = int(sl.msg.Controllen), int(sl.msg.Flags)
		case sl.kind&slotPeer != 0:
			var b [128]byte
			w.Peer = sockaddr.Get(rawSockaddrBytes(&sl.sa, &b), sl.salen)
		case sl.kind&slotRecv != 0:
			w.Drained = sys.CQEFlags(flags)&sys.CQEFSockNonempty == 0
		}
	}
	r.recycle(sl)
	if out != nil {
		*out = iop.Result{Res: res, Flags: flags}
	} else if w != nil {
		w.Res, w.CFlags = int(res), flags
	}
	if w != nil {
		w.Pending--
		if w.Pending <= 0 {
			w.Ref = nil
			w.St = iop.Done
			w.Task.Wake()
		}
	}
}

// closeFdAsync closes fd with an internal CLOSE SQE.
func (r *Backend) closeFdAsync(fd int) {
	if s, err := r.internalSQE(); err == nil {
		if sqe.Close(s, fd) != nil {
			sqe.Nop(s)
		}
		s.UserData = udIgnore
		return
	}
	_ = sys.Close(fd)
}

// internalSQE gets an SQE for the backend's own use, submitting to make
// room.
func (r *Backend) internalSQE() (*sys.SQE, error) {
	for i := 0; ; i++ {
		s, err := r.ring.GetSQE()
		if err != uring.ErrSQFull || i == 100 {
			return s, err
		}
		_, _ = r.ring.Submit()
		r.reap()
	}
}

// cancelOp asks the kernel to cancel the op in sl (IORING_OP_ASYNC_CANCEL
// by user_data); its CQE still comes and frees the slot.
func (r *Backend) cancelOp(sl *slot) {
	if sl.cancelled || !sl.inUse {
		return
	}
	sl.cancelled = true
	if s, err := r.internalSQE(); err == nil {
		_ = sqe.Cancel(s, sl.ud(), 0) // flags 0 is always valid
		s.UserData = udIgnore
	}
}

// Cancel asks the kernel to cancel the ops w waits for (one, a chain's,
// or a stream's armed request); their CQEs wake it.
func (r *Backend) Cancel(w *iop.Waiter, _ error) {
	switch ref := w.Ref.(type) {
	case *slot:
		r.cancelOp(ref)
	case *chain:
		for i, sl := range ref.slots {
			if sl.tok == ref.toks[i] { // not done and reused by another op
				r.cancelOp(sl)
			}
		}
	}
}
