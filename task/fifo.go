package task

// fifo is a growable ring buffer; it allocates only when it grows.
type fifo[E any] struct {
	buf  []E
	head int
	n    int
}

func (q *fifo[E]) len() int { return q.n }

func (q *fifo[E]) push(e E) {
	if q.n == len(q.buf) {
		q.grow()
	}
	q.buf[(q.head+q.n)&(len(q.buf)-1)] = e
	q.n++
}

func (q *fifo[E]) grow() {
	size := len(q.buf) * 2
	if size == 0 {
		size = 8
	}
	nb := make([]E, size)
	for i := 0; i < q.n; i++ {
		nb[i] = q.buf[(q.head+i)&(len(q.buf)-1)]
	}
	q.buf, q.head = nb, 0
}

// peek returns a pointer to the head; q must not be empty.
func (q *fifo[E]) peek() *E { return &q.buf[q.head] }

// last returns a pointer to the tail; q must not be empty.
func (q *fifo[E]) last() *E { return &q.buf[(q.head+q.n-1)&(len(q.buf)-1)] }

// dropLast removes the tail; q must not be empty.
func (q *fifo[E]) dropLast() {
	var zero E
	*q.last() = zero
	q.n--
}

func (q *fifo[E]) pop() E {
	var zero E
	e := q.buf[q.head]
	q.buf[q.head] = zero
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.n--
	return e
}
