package task

import (
	"os"
	"runtime"
	"sync"
)

// An executor is a goroutine locked to its thread, and it holds a P while
// it runs tasks. With as many busy executors as Ps, the program's other
// goroutines (a client in the same process, net/http, the collector's
// workers) run only when an executor parks, and an executor woken while
// goroutines hold every P waits for one. So while executors run, the
// package keeps GOMAXPROCS at least one above their number: it raises it
// when an executor starts and lowers it again, by no more than it raised
// it, when one closes. One executor on a 2-P process changes nothing; two
// make it 3. (An echo server on two executors with the client in the same
// process on 2 CPUs: 0.49-0.50 / 0.75-0.84 / 0.63-0.68x Go's net at 4 / 16
// / 64 connections with GOMAXPROCS 2, 0.86-1.08 / 1.26-1.42 / 0.83-0.88x
// with 3.) WithGOMAXPROCSUnchanged leaves an executor out of the count.
//
// The GOMAXPROCS environment variable is an operator's explicit choice:
// when it is set, the package counts executors but raises nothing.
//
// Only the package's own raise is given back: when the program has set
// GOMAXPROCS itself since (runtime.GOMAXPROCS reads another value than the
// package set), its value stands and the package forgets what it raised.
var procs struct {
	mu     sync.Mutex
	live   int // running executors that count
	raised int // how far this package raised GOMAXPROCS
	set    int // the value it set last
}

// gomaxprocsFromEnv: the GOMAXPROCS environment variable is set.
var gomaxprocsFromEnv = os.Getenv("GOMAXPROCS") != ""

// holdP counts a starting executor and raises GOMAXPROCS to leave one P
// beyond the executors.
func holdP() {
	procs.mu.Lock()
	defer procs.mu.Unlock()
	procs.live++
	cur, want := runtime.GOMAXPROCS(0), procs.live+1
	if cur != procs.set {
		procs.raised = 0 // the program set it: that value is the base now
	}
	if want > cur && !gomaxprocsFromEnv {
		runtime.GOMAXPROCS(want)
		procs.raised += want - cur
		procs.set = want
	}
}

// releaseP uncounts a closed executor and gives back what the package
// raised that the remaining executors do not need.
func releaseP() {
	procs.mu.Lock()
	defer procs.mu.Unlock()
	procs.live--
	cur := runtime.GOMAXPROCS(0)
	if procs.raised == 0 || cur != procs.set {
		procs.raised = 0
		return
	}
	if n := min(procs.raised, cur-(procs.live+1)); n > 0 {
		runtime.GOMAXPROCS(cur - n)
		procs.raised -= n
		procs.set = cur - n
	}
}

// releaseP gives back ex's count, once.
func (ex *Executor) releaseP() {
	if ex.holdsP {
		ex.holdsP = false
		releaseP()
	}
}
