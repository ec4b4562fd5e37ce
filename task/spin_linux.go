//go:build linux

package task

import (
	"runtime"
	"sync/atomic"
	"time"
)

// Adaptive waiting. Parking the executor in Go's netpoller hands its
// locked thread off and back (two thread wakeups, tens of µs on a VM),
// which at low queue depth costs more than the I/O itself: 4 KiB O_DIRECT
// reads ran at 6-14 K IOPS at QD 1 and 27 K at QD 4 parked, against
// 21-23 K and 59 K waiting in io_uring_enter, on the same disk. So an
// executor whose recent waits for completions were short (storage, a busy
// server) first spins up to twice their average (at most maxAdaptiveSpin),
// then waits in the kernel, where the completion wakes its thread
// directly; waits that last long (an idle server) bring back the spin of
// WithSpin and the park. Both happen only while the process has more Ps
// than running executors, so the P a spinning or kernel-waiting executor
// holds is never one another goroutine needs.
const maxAdaptiveSpin = 100 * time.Microsecond

// maxKernelWait: waits shorter than this on average are taken in the
// kernel (with operations in flight).
const maxKernelWait = time.Millisecond

// runningExecutors counts the executors whose loops run, for the P check.
var runningExecutors atomic.Int32

// spareP reports whether the process has more Ps than running executors.
func spareP() bool { return runtime.GOMAXPROCS(0) > int(runningExecutors.Load()) }

// spinFor is how long the executor checks the ring before it waits.
func (ex *Executor) spinFor() time.Duration {
	if !ex.adaptive || ex.waitAvg <= 0 || 2*ex.waitAvg > maxAdaptiveSpin || !spareP() {
		return ex.spin
	}
	return max(ex.spin, 2*ex.waitAvg)
}

// waitInKernel reports whether the executor waits for its operations in
// io_uring_enter rather than parking on its eventfd.
func (ex *Executor) waitInKernel() bool {
	return ex.adaptive && ex.busy > 0 && ex.waitAvg < maxKernelWait && spareP()
}

// noteWait feeds the length of an idle wait with operations in flight
// into the average (an exponential one, weight 1/8).
func (ex *Executor) noteWait(d time.Duration) {
	if ex.busy == 0 {
		return // nothing in flight: waiting for work, not for the kernel
	}
	d = min(d, 10*maxKernelWait)
	ex.waitAvg += (d - ex.waitAvg) / 8
}
