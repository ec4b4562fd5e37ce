//go:build linux

package poll

import (
	"runtime"
	"sync/atomic"
	"time"

	"github.com/pure-uring/uring/sys"
)

// Adaptive waiting (Core.Wait). Parking in Go's netpoller hands the
// owner's locked thread off and back (two thread wakeups, tens of µs on a
// VM), which at low queue depth costs more than the I/O itself: 4 KiB
// O_DIRECT reads ran at 6-14 K IOPS at QD 1 and 27 K at QD 4 parked,
// against 21-23 K and 59 K waiting in io_uring_enter, on the same disk.
// So an owner whose recent waits for completions were short (storage, a
// busy server) first spins up to twice their average (at most
// maxAdaptiveSpin), then waits in the kernel, where the completion wakes
// its thread directly; waits that last long (an idle server) bring back
// the configured spin and the park. Both happen only while the process
// has more Ps than running Cores, so the P a spinning or kernel-waiting
// owner holds is never one another goroutine needs.
const (
	maxAdaptiveSpin = 100 * time.Microsecond
	// maxKernelWait: waits shorter than this on average are taken in the
	// kernel (with operations in flight).
	maxKernelWait = time.Millisecond
	// DefaultSpin is how long an idle owner checks the ring before it
	// parks, unless SetSpin says otherwise.
	DefaultSpin = 5 * time.Microsecond
)

// runningCores counts the Cores whose owners run, for the P check.
var runningCores atomic.Int32

// spareP reports whether the process has more Ps than running Cores.
func spareP() bool { return runtime.GOMAXPROCS(0) > int(runningCores.Load()) }

// waitPolicy is the state of Core.Wait.
type waitPolicy struct {
	spin     time.Duration
	adaptive bool          // spin longer while recent waits were short
	avg      time.Duration // average wait with operations in flight
}

// SetSpin sets how long Wait checks the ring before it sleeps, and
// whether it adapts to the recent waits (owner thread). The default is
// DefaultSpin, adaptive.
func (c *Core) SetSpin(d time.Duration, adaptive bool) {
	c.wp.spin, c.wp.adaptive = max(d, 0), adaptive
}

// SetWaitHint primes the average wait for completions (owner thread): an
// owner that knows its completions come fast (fast storage) starts with
// the short adaptive spin and kernel waits instead of learning it.
func (c *Core) SetWaitHint(avg time.Duration) { c.wp.avg = max(avg, 0) }

// Wait waits for a completion or a posted message, with nothing runnable
// and the SQ submitted (owner thread): it spins (adaptively), then waits
// in io_uring_enter while recent waits were short, else parks in Go's
// netpoller (ParkNetpoll; without NetPark it waits in the kernel).
// parkNow skips the spin and the kernel wait: the owner just made
// goroutines runnable, which need the P it would hold. The caller reaps
// afterwards.
func (c *Core) Wait(parkNow bool) {
	start := time.Now()
	if !parkNow && c.Spin(0, c.spinFor()) {
		c.noteWait(time.Since(start))
		return
	}
	if !c.NetPark() || (!parkNow && c.waitInKernel()) {
		if slept, _ := c.SleepInKernel(); slept {
			c.st.KernelWaits++
			c.noteWait(time.Since(start))
			return
		}
	}
	if c.NetPark() {
		_ = c.ParkNetpoll(0) // an error (never expected) only ends the park
		c.noteWait(time.Since(start))
	}
}

// Spin checks the ring without a system call until it has something to
// reap or a message to take (true: the caller reaps; deferred completion
// work the SQ flags announce is run first, with one enter) or its budget is
// spent (false): polls empty checks when polls > 0, else d of time (a
// zero budget checks nothing). It is the package's one spin: Wait's, and
// a Loop's under Spin, Hybrid and SQPoll. Without a P to spare (GOMAXPROCS
// at most the running owners) it yields between checks, so that the
// goroutines that feed the owner run instead of waiting for a preemption.
// It never spins where deferred completions wait without showing in the
// SQ flags (DEFER_TASKRUN without TASKRUN_FLAG): only an enter finds them.
func (c *Core) Spin(polls int, d time.Duration) bool {
	if (polls <= 0 && d <= 0) || !c.canFlag {
		return false
	}
	r := c.ring
	yield := !spareP()
	staleFlag := false
	var start time.Time
	for i := 0; ; i++ {
		if r.CQReady() > 0 || c.sl.HasWork() {
			return true
		}
		if !staleFlag && r.SQFlags()&sys.SQTaskrun != 0 {
			// Deferred completion work waits for a GETEVENTS enter: run it,
			// and report what it posted. The flag may stay set over an empty
			// list: the kernel sets it after it queues the work
			// (io_req_local_work_add), so a run of that work in between (it
			// clears the flag first) leaves it set, and no enter clears it
			// until more work comes (seen on 6.18 right after
			// reg.StartIOWorkers' io-wq completions). Such a flag is ignored
			// for the rest of the spin, or every check would find it; work
			// that posted nothing is no reason to stop either.
			_, _ = r.Submit()
			if r.CQReady() > 0 || c.sl.HasWork() {
				return true
			}
			staleFlag = r.SQFlags()&sys.SQTaskrun != 0
		}
		if polls > 0 {
			if i+1 >= polls {
				return false
			}
		} else if i&31 == 0 {
			if i == 0 {
				start = time.Now()
			} else if time.Since(start) >= d {
				return false
			}
		}
		if yield {
			runtime.Gosched()
		}
	}
}

// spinFor is how long Wait checks the ring before it sleeps.
func (c *Core) spinFor() time.Duration {
	p := &c.wp
	if !p.adaptive || p.avg <= 0 || 2*p.avg > maxAdaptiveSpin || !spareP() {
		return p.spin
	}
	return max(p.spin, 2*p.avg)
}

// waitInKernel reports whether Wait waits for the operations in flight in
// io_uring_enter rather than parking on the eventfd.
func (c *Core) waitInKernel() bool {
	p := &c.wp
	return p.adaptive && c.inflight > 0 && p.avg < maxKernelWait && spareP()
}

// noteWait feeds the length of a wait with operations in flight into the
// average (an exponential one, weight 1/8).
func (c *Core) noteWait(d time.Duration) {
	if c.inflight == 0 {
		return // nothing in flight: waiting for work, not for the kernel
	}
	d = min(d, 10*maxKernelWait)
	c.wp.avg += (d - c.wp.avg) / 8
}
