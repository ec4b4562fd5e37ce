//go:build linux

package task

import (
	"runtime"
	"sync/atomic"
	"time"
)

// Adaptive spinning. Parking the executor in Go's netpoller hands its
// locked thread off and back (two thread wakeups, tens of µs on a VM),
// which at low queue depth costs more than the I/O itself: a 4 KiB
// O_DIRECT read at QD 1 ran at 6-14 K IOPS parked against 26-28 K with a
// 50 µs spin on the same disk. So an executor that has seen its recent
// waits end quickly spins up to twice their average (at most
// maxAdaptiveSpin) before parking; waits that last long (an idle server)
// turn the spin back to WithSpin's. It spins only while the process has
// more Ps than running executors, so a spinning executor never holds a P
// another goroutine needs.
const maxAdaptiveSpin = 100 * time.Microsecond

// runningExecutors counts the executors whose loops run, for the P check.
var runningExecutors atomic.Int32

// spinFor is how long the executor checks the ring before it parks.
func (ex *Executor) spinFor() time.Duration {
	if !ex.adaptive || ex.waitAvg <= 0 || 2*ex.waitAvg > maxAdaptiveSpin {
		return ex.spin
	}
	if runtime.GOMAXPROCS(0) <= int(runningExecutors.Load()) {
		return ex.spin
	}
	return max(ex.spin, 2*ex.waitAvg)
}

// noteWait feeds the length of an idle wait with operations in flight
// into the average (an exponential one, weight 1/8).
func (ex *Executor) noteWait(d time.Duration) {
	if ex.busy == 0 {
		return // nothing in flight: waiting for work, not for the kernel
	}
	d = min(d, 10*maxAdaptiveSpin)
	ex.waitAvg += (d - ex.waitAvg) / 8
}
