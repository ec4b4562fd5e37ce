package task

// Chan is a channel between tasks of one executor. A send or receive that
// cannot complete parks the task (not the thread); neither switches while
// the buffer has room or values. Close works like Go's: receivers drain the
// buffer and then get ok == false; Send on a closed channel returns
// ErrChanClosed instead of panicking.
type Chan[V any] struct {
	ex      *Executor
	cap     int // -1: unbounded
	buf     fifo[V]
	sendq   fifo[sendRec[V]]
	recvq   fifo[waitRec]
	watch   fifo[waitRec]
	closed  bool
	pending int // values in buf promised to woken receivers of an unbuffered chan
}

type waitRec struct {
	t   *T
	tok uint32
}

type sendRec[V any] struct {
	waitRec
	v V
}

func (w *waitRec) live() bool {
	return w.t.parkTok == w.tok && !w.t.ready && !w.t.finished && w.t.parkKind == parkWait
}

// NewChan makes a channel with room for capacity values (0: unbuffered,
// a send waits for a receiver) on t's executor.
func NewChan[V any](t *T, capacity int) *Chan[V] {
	if capacity < 0 {
		capacity = 0
	}
	return &Chan[V]{ex: t.ex, cap: capacity}
}

// NewUnboundedChan makes a channel whose Send never waits.
func NewUnboundedChan[V any](t *T) *Chan[V] { return &Chan[V]{ex: t.ex, cap: -1} }

// Len returns the number of buffered values.
func (c *Chan[V]) Len() int { return c.buf.len() }

// popLive pops the first live waiter of q.
func popLive(q *fifo[waitRec]) *T {
	for q.len() > 0 {
		w := q.pop()
		if w.live() {
			return w.t
		}
	}
	return nil
}

func (c *Chan[V]) notifyWatchers() {
	for c.watch.len() > 0 {
		w := c.watch.pop()
		if w.live() {
			c.ex.wake(w.t)
		}
	}
}

// Send sends v, parking while the channel is full (or, unbuffered, until a
// receiver takes it).
func (c *Chan[V]) Send(t *T, v V) error {
	if c.closed {
		return ErrChanClosed
	}
	if c.recvq.len() > 0 {
		if r := popLive(&c.recvq); r != nil {
			c.buf.push(v)
			c.ex.wake(r)
			return nil
		}
	}
	if c.cap < 0 || c.buf.len() < c.cap {
		if !c.buf.put(v) {
			c.buf.push(v)
		}
		if c.watch.len() > 0 {
			c.notifyWatchers()
		}
		return nil
	}
	if err := t.check(); err != nil {
		return err
	}
	c.sendq.push(sendRec[V]{waitRec{t, t.parkTok}, v})
	c.notifyWatchers()
	if err := t.parkOn(parkWait); err != nil {
		return err
	}
	if t.chanClosed {
		t.chanClosed = false
		return ErrChanClosed
	}
	return nil
}

// TrySend sends v if that needs no wait.
func (c *Chan[V]) TrySend(v V) (bool, error) {
	if c.closed {
		return false, ErrChanClosed
	}
	if r := popLive(&c.recvq); r != nil {
		c.buf.push(v)
		c.ex.wake(r)
		return true, nil
	}
	if c.cap < 0 || c.buf.len() < c.cap {
		c.buf.push(v)
		c.notifyWatchers()
		return true, nil
	}
	return false, nil
}

// takeSender moves the first live sender's value into the buffer and wakes it.
func (c *Chan[V]) takeSender() bool {
	for c.sendq.len() > 0 {
		s := c.sendq.pop()
		if s.live() {
			c.buf.push(s.v)
			c.ex.wake(s.t)
			return true
		}
	}
	return false
}

// TryRecv receives a value if one is ready; ok is false when none is, or
// the channel is closed and drained (closed tells which).
func (c *Chan[V]) TryRecv() (v V, ok, closed bool) {
	if c.buf.len() > 0 || (c.sendq.len() > 0 && c.takeSender()) {
		v = c.buf.pop()
		if c.cap != 0 && c.sendq.len() > 0 {
			c.takeSender()
		}
		return v, true, false
	}
	return v, false, c.closed
}

// Recv receives a value, parking while the channel is empty; ok is false
// once the channel is closed and drained.
func (c *Chan[V]) Recv(t *T) (v V, ok bool, err error) {
	for {
		if c.buf.len() > 0 && c.sendq.len() == 0 {
			return c.buf.pop(), true, nil // the common case of a buffered channel
		}
		if v, ok, closed := c.TryRecv(); ok || closed {
			return v, ok, nil
		}
		if err := t.check(); err != nil {
			return v, false, err
		}
		c.recvq.push(waitRec{t, t.parkTok})
		if err := t.parkOn(parkWait); err != nil {
			return v, false, err
		}
	}
}

// Close closes the channel: parked receivers get ok == false once the
// buffer is drained, parked senders get ErrChanClosed.
func (c *Chan[V]) Close() {
	if c.closed {
		return
	}
	c.closed = true
	for c.recvq.len() > 0 {
		if r := popLive(&c.recvq); r != nil {
			c.ex.wake(r)
		}
	}
	for c.sendq.len() > 0 {
		s := c.sendq.pop()
		if s.live() {
			s.t.chanClosed = true
			c.ex.wake(s.t)
		}
	}
	c.notifyWatchers()
}

// Selectable is a channel Select can wait on.
type Selectable interface {
	readyToRecv() bool
	addWatch(t *T)
}

func (c *Chan[V]) readyToRecv() bool {
	if c.buf.len() > 0 || c.closed {
		return true
	}
	for c.sendq.len() > 0 {
		if c.sendq.peek().live() {
			return true
		}
		c.sendq.pop()
	}
	return false
}

func (c *Chan[V]) addWatch(t *T) { c.watch.push(waitRec{t, t.parkTok}) }

// Select parks until one of chans has a value (or is closed) and returns
// its index; receive it with TryRecv (another task may have taken it
// first, then Select again).
func Select(t *T, chans ...Selectable) (int, error) {
	for {
		for i, c := range chans {
			if c.readyToRecv() {
				return i, nil
			}
		}
		if err := t.check(); err != nil {
			return -1, err
		}
		for _, c := range chans {
			c.addWatch(t)
		}
		if err := t.parkOn(parkWait); err != nil {
			return -1, err
		}
	}
}
