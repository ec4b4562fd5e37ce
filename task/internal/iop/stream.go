package iop

import "github.com/pure-uring/uring/reg"

// Streams is the optional interface of a backend with multishot requests
// (io_uring), checked once when the executor starts. Without it, the
// multishot iterators of package task loop over single awaits, and those
// with a provided-buffer pool are unsupported.
type Streams interface {
	// Stream makes the state of one iteration of kind k on fd for w's
	// task (flags for accept and recv, events for poll, pool for recv
	// and read). Nothing is submitted until Arm.
	Stream(w *Waiter, k StreamKind, fd, flags int, events uint32, pool *reg.BufPool) Stream
	// TakeKept removes and returns the bytes a stream of fd read and did
	// not yield (nil when none).
	TakeKept(fd int) []byte
}

// StreamKind is the request a Stream keeps armed.
type StreamKind uint8

const (
	StreamAccept StreamKind = iota
	StreamRecv
	StreamRead
	StreamPoll
)

// Stream is one multishot request a task iterates over: one request stays
// armed and posts an Entry per CQE; it is re-armed when the kernel drops
// it.
type Stream interface {
	// Pop takes the next entry, its buffer (if any) out of the pool.
	Pop() (Entry, bool)
	// Armed reports whether a request is in flight (its last CQE has not
	// come).
	Armed() bool
	// Arm submits the request (again).
	Arm() error
	// Await marks the task as parked for the next CQE (on), or not (a CQE
	// wakes a parked task; Backend.Cancel of its Waiter cancels the
	// request meanwhile).
	Await(on bool)
	// Release puts e's buffer back into the pool, once.
	Release(e *Entry)
	// Abort ends the iteration: it disposes of the queued entries and the
	// later ones (fds closed, bytes kept for the fd's next read) and
	// cancels the request.
	Abort()
}

// Entry is one CQE of a Stream.
type Entry struct {
	Res  int32
	Err  error  // the pool refused the CQE's buffer
	Dry  bool   // ENOBUFS from a pool that ran dry: re-arm
	Data []byte // the CQE's bytes, in a pool buffer
	Bid  uint16 // the buffer's id
	Held bool   // Bid is out of the pool: Release puts it back
}
