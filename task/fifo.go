package task

// fifo is a growable ring buffer; it allocates only when it grows. head
// and tail run free (they wrap as uints); the slot of index i is
// i & mask, len(buf) a power of two. put and pop are small enough to
// inline; push, which may grow the buffer, is not (hot paths try put
// first).
type fifo[E any] struct {
	buf  []E
	head uint // index of the oldest element
	tail uint // index one past the newest
	mask uint // len(buf)-1
}

func (q *fifo[E]) len() int { return int(q.tail - q.head) }

func (q *fifo[E]) push(e E) {
	if !q.put(e) {
		q.grow()
		q.put(e)
	}
}

// put appends e unless the buffer is full (inlinable: hot paths try it
// before push).
func (q *fifo[E]) put(e E) bool {
	if q.tail-q.head == uint(len(q.buf)) {
		return false
	}
	q.buf[q.tail&q.mask] = e
	q.tail++
	return true
}

// grow doubles the buffer.
func (q *fifo[E]) grow() {
	size := len(q.buf) * 2
	if size == 0 {
		size = 8
	}
	nb := make([]E, size)
	n := q.len()
	for i := 0; i < n; i++ {
		nb[i] = q.buf[(q.head+uint(i))&q.mask]
	}
	q.buf, q.head, q.tail, q.mask = nb, 0, uint(n), uint(size-1)
}

// peek returns a pointer to the head; q must not be empty.
func (q *fifo[E]) peek() *E { return &q.buf[q.head&q.mask] }

// last returns a pointer to the tail; q must not be empty.
func (q *fifo[E]) last() *E { return &q.buf[(q.tail-1)&q.mask] }

// dropLast removes the tail; q must not be empty.
func (q *fifo[E]) dropLast() {
	var zero E
	*q.last() = zero
	q.tail--
}

// pop removes and returns the head; q must not be empty. The slot is
// cleared so that the buffer keeps nothing reachable.
func (q *fifo[E]) pop() E {
	var zero E
	p := &q.buf[q.head&q.mask]
	e := *p
	*p = zero
	q.head++
	return e
}
