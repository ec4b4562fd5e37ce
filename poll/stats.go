//go:build linux

package poll

// Stats are a loop's counters. The loop keeps them as plain fields on its
// thread; Stats() copies them there.
type Stats struct {
	Strategy        string    `json:"strategy"`
	Submitted       uint64    `json:"submitted"`         // SQEs prepared (user operations and cancels)
	Submits         uint64    `json:"submits"`           // submit-only calls (batches)
	Completed       uint64    `json:"completed"`         // CQEs delivered to handlers
	Requests        uint64    `json:"requests"`          // Do and Go operations started
	Enters          uint64    `json:"enters"`            // io_uring_enter calls the loop made (EINTR retries not counted)
	Waits           uint64    `json:"waits"`             // enters that slept in the kernel
	Reaps           uint64    `json:"reaps"`             // reaps that found CQEs
	CQEsPerEnter    float64   `json:"cqes_per_enter"`    // Completed / Enters
	OverflowFlushes uint64    `json:"overflow_flushes"`  // flushes of IORING_SQ_CQ_OVERFLOW backlogs
	Stale           uint64    `json:"stale"`             // CQEs whose slot generation did not match (dropped)
	Cancels         uint64    `json:"cancels"`           // ASYNC_CANCEL SQEs the loop issued
	Busy            uint64    `json:"busy"`              // enters answered EAGAIN/EBUSY
	SQWakeups       uint64    `json:"sq_wakeups"`        // SQPOLL thread wakeups (IORING_SQ_NEED_WAKEUP)
	WakeCQEs        uint64    `json:"wake_cqes"`         // wakeup CQEs reaped (the wake eventfd's poll)
	Kicks           uint64    `json:"kicks"`             // wakeups other goroutines sent to a loop asleep in the kernel (Park: on its eventfd)
	Parks           uint64    `json:"parks"`             // idle sleeps in Go (nothing in flight)
	InFlight        int       `json:"in_flight"`         // operations holding a slot
	Slots           int       `json:"slots"`             // slot table size
	SpinNanos       int64     `json:"spin_ns"`           // time spent spinning on an empty CQ
	BlockNanos      int64     `json:"block_ns"`          // time in timed kernel waits (not in Block's submit-and-wait enters) and Park's eventfd waits
	ParkNanos       int64     `json:"park_ns"`           // time parked idle
	Wakeup          string    `json:"wakeup"`            // "eventfd" (Park: the ring's eventfd), "poll" (a kernel wait ended by the wake eventfd's poll) or "go" (IOPOLL: never asleep in the kernel)
	ThreadViolation int64     `json:"thread_violations"` // ring calls off the loop thread (checked in tests only)
	Core            CoreStats `json:"core"`              // the counters of the loop's Core
}

func (l *Loop) snapshot() Stats {
	s := l.st
	cs := l.c.Stats()
	s.Core = cs
	s.Completed, s.Reaps, s.Stale, s.WakeCQEs = cs.Completed, cs.Reaps, cs.Stale, cs.WakeCQEs
	s.Kicks, s.Parks = cs.Kicks, cs.Parks
	s.InFlight = l.c.InFlight()
	s.Slots = l.c.Slots()
	s.ThreadViolation = l.violation.Load()
	if s.Enters > 0 {
		s.CQEsPerEnter = float64(s.Completed) / float64(s.Enters)
	}
	switch {
	case l.iopoll:
		s.Wakeup = "go"
	case l.c.NetPark():
		s.Wakeup = "eventfd"
	default:
		s.Wakeup = "poll"
	}
	return s
}

// Stats returns a snapshot of the loop's counters (the final ones once it
// is closed).
func (l *Loop) Stats() Stats {
	if l.onLoop() {
		return l.snapshot()
	}
	var s Stats
	r := getReq(l, msgStats)
	r.stats = &s
	if err := l.enqueue(msg{msgStats, r}); err != nil {
		putReq(r)
		<-l.done
		return l.final
	}
	<-r.done
	putReq(r)
	return s
}
