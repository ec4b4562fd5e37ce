// Package udata reserves the user_data values of the library's own SQEs,
// in one place. Every one of them has Reserved (bit 63) set, which no
// token of poll's slots (index and generation) ever has, so a completion
// loop tells its own CQEs from its operations' by that bit alone; the
// values tell them apart from each other.
package udata

// Reserved is set in every user_data this library reserves.
const Reserved uint64 = 1 << 63

const (
	// WakePoll: the poll a poll.Core arms on its wake eventfd.
	WakePoll = Reserved | 1
	// Cancel: an ASYNC_CANCEL issued by a poll.Core or a Loop.
	Cancel = Reserved | 3
	// Ignore: an SQE whose CQE nobody waits for (an internal close, a link
	// timeout, a NOP standing in for an abandoned SQE): dropped by a Core.
	Ignore = Reserved | 4
	// CancelAll: a Core's ASYNC_CANCEL with CANCEL_ANY|CANCEL_ALL.
	CancelAll = Reserved | 5
	// RingWake: the CQE Ring.Close posts to wake a waiter blocked in the
	// kernel.
	RingWake = ^uint64(0) - 1
	// BufPool: a reg.BufPool's re-provides and the NOPs standing in for
	// them.
	BufPool = ^uint64(0) - 2
	// IOWorkersBound and IOWorkersUnbound: the NOP and the read that
	// reg.StartIOWorkers sends through io-wq.
	IOWorkersBound   = ^uint64(0) - 7
	IOWorkersUnbound = ^uint64(0) - 6
)

// All lists every reserved value, for the test that keeps them distinct.
var All = []uint64{WakePoll, Cancel, Ignore, CancelAll, RingWake, BufPool, IOWorkersBound, IOWorkersUnbound}
