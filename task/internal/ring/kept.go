//go:build linux

package ring

// Bytes a multishot read or recv consumed that no loop body saw. The
// kernel may read data after the loop decided to end (a break, a cancelled
// context): its cancel races the request's next read, which runs as soon as
// data arrives unless DEFER_TASKRUN holds it back until the next enter (6.1+
// and not everywhere usable). Data queued behind the entry the body broke
// on is in the same place. Such bytes are no longer in the socket or pipe,
// so the executor keeps them per fd and the next Read, Recv, ReadMultishot
// or RecvMultishot of that fd on this executor returns them first; T.Close
// of the fd drops them. Executor thread only.

// keep appends a copy of data to what fd has kept.
func (r *Backend) keep(fd int, data []byte) {
	if len(data) == 0 {
		return
	}
	if r.kept == nil {
		r.kept = make(map[int][]byte)
	}
	r.kept[fd] = append(r.kept[fd], data...)
	r.c.KeptBytes += len(data)
}

// takeKept copies into buf what fd has kept, removing it unless peek.
// It reports 0 when nothing is kept (also for an empty buf); callers on
// hot paths check len(r.kept) first.
func (r *Backend) takeKept(fd int, buf []byte, peek bool) int {
	if len(buf) == 0 {
		return 0
	}
	k, ok := r.kept[fd]
	if !ok {
		return 0
	}
	n := copy(buf, k)
	switch {
	case peek:
	case n == len(k):
		delete(r.kept, fd)
	default:
		r.kept[fd] = k[n:]
	}
	return n
}

// TakeKept removes and returns what fd has kept (nil when nothing): a
// new multishot loop of fd yields it first (iop.Streams).
func (r *Backend) TakeKept(fd int) []byte {
	if len(r.kept) == 0 {
		return nil
	}
	k, ok := r.kept[fd]
	if ok {
		delete(r.kept, fd)
	}
	return k
}

// dropKept forgets what fd has kept (it is being closed).
func (r *Backend) dropKept(fd int) {
	if len(r.kept) != 0 {
		delete(r.kept, fd)
	}
}
