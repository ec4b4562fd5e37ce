//go:build linux

package reg

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/udata"
	"github.com/pure-uring/uring/sqe"
)

// The kernel's side, read in io_uring/io-wq.c of Linux 5.10.262, 6.1.192
// and 6.12: io_wqe_create_worker makes the first worker inline, and
// create_io_thread's copy_process refuses with -ERESTARTNOINTR while the
// thread has a signal pending; create_worker_cont retries from the
// thread's task work WORKER_INIT_LIMIT (3) times, then, with no worker of
// that kind left, cancels its queued work (io_acct_cancel_pending_work ->
// -ECANCELED). io_wqe_worker never lets the last worker of a kind exit.

// startAttempts bounds the rounds of StartIOWorkers: each round that the
// kernel cancels is a start that a signal spoiled.
const startAttempts = 64

// StartIOWorkers starts the calling thread's io-wq workers, one for
// bounded work (regular files, block devices) and one for unbounded work
// (sockets, pipes, character devices), on every NUMA node the thread may
// run on, and returns once both exist. It sends a NOP and an empty read of
// an eventfd with IOSQE_ASYNC through r and waits for them, again while
// the kernel cancels them (see below).
//
// Why: a request the kernel cannot finish inline goes to the io-wq of the
// thread that submitted it. Starting that thread's first worker fails
// while the thread has a signal pending, and Go's runtime signals its
// threads constantly (preemption, profiling); after four failed starts
// the kernel completes the queued requests with -ECANCELED although no one
// cancelled them (Linux 5.10 through 6.18: on 5.10 and 6.1 every pipe read
// and write takes that path). The kernel keeps the last worker of each
// kind for the life of the thread, so after StartIOWorkers no request of
// this thread meets a cold io-wq. Package poll's Core and package task's
// executors call it on their own threads; call it yourself on each thread
// that submits to a raw Ring (with the goroutine locked by
// runtime.LockOSThread). On an SQPOLL ring it starts the SQ thread's
// workers, which do not need it (kernel threads get no such signals).
//
// Call it before anything is in flight on r: it reaps every CQE until its
// own arrive, so it refuses (an *ArgError naming r) a ring with SQEs
// queued or CQEs ready. Its requests hold no memory (an empty read), but
// the read names its eventfd by number, which the kernel looks up only
// when a worker runs it: when it returns an error with a read whose CQE it
// did not reap (a failed submit left it queued for a later one, or Close
// ended the wait), it leaves that eventfd open for good (one fd), so that
// the read, whenever it runs, reads nothing but it. After 64 rounds that
// the kernel cancelled it returns an error wrapping ECANCELED.
func StartIOWorkers(r *uring.Ring) error {
	if r == nil {
		return argErr("StartIOWorkers", "r", "is nil")
	}
	if r.SQReady() != 0 || r.CQReady() != 0 {
		return argErr("StartIOWorkers", "r", "has SQEs queued or CQEs ready: call it before anything is submitted")
	}
	// Any fd that is not a regular file or a block device makes unbounded
	// work. The SQE names it by number, which the kernel looks up when it
	// issues the read (in an io-wq worker, or the SQ thread's), so efd
	// must stay open until the read's CQE: a number closed before could
	// name another file by then (a socket, a pipe), and even an empty read
	// is not nothing on every file.
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return os.NewSyscallError("eventfd", err)
	}
	var out int // reads of efd sent whose CQEs were not reaped
	defer func() {
		if out == 0 {
			unix.Close(efd)
		}
		// Else an error left a read queued or in flight, and nothing
		// will tell when it is done: efd stays open.
	}()
	nodes := numaNodeCPUs()
	if nodes == nil {
		return startOnThisNode(r, efd, &out)
	}
	// Kernels before 6.4 keep one io-wq per NUMA node: start each, with
	// the thread moved there for the time it takes.
	var saved unix.CPUSet
	if err := unix.SchedGetaffinity(0, &saved); err != nil {
		return startOnThisNode(r, efd, &out)
	}
	defer func() { _ = unix.SchedSetaffinity(0, &saved) }()
	for i := range nodes {
		if unix.SchedSetaffinity(0, &nodes[i]) != nil {
			continue // not a node this thread may run on
		}
		if err := startOnThisNode(r, efd, &out); err != nil {
			return err
		}
	}
	return nil
}

// startOnThisNode sends a NOP (bounded work) and an empty read of efd
// (unbounded), both IOSQE_ASYNC, until neither comes back cancelled.
// Each round waits for the CQEs of what it sent. *out counts the reads of
// efd sent (an SQE filled) and not reaped.
func startOnThisNode(r *uring.Ring, efd int, out *int) error {
	need := [2]bool{true, true} // bounded, unbounded
	for round := 0; round < startAttempts && (need[0] || need[1]); round++ {
		sent := uint32(0)
		for kind, n := range need {
			if !n {
				continue
			}
			s, err := r.GetSQE()
			if err != nil {
				return err
			}
			if kind == 0 {
				sqe.Nop(s)
			} else if err := sqe.Read(s, efd, nil, 0); err != nil {
				return err
			} else {
				*out++ // the SQE names efd from here on
			}
			sqe.SetAsync(s)
			s.UserData = udata.IOWorkersBound + uint64(kind) // IOWorkersUnbound for kind 1
			sent++
		}
		if _, err := r.SubmitAndWait(sent); err != nil {
			return err
		}
		for got := uint32(0); got < sent; {
			c, err := r.WaitCQE()
			if err != nil {
				return err
			}
			ud, res := c.UserData, c.Res
			r.CQESeen(c)
			if ud != udata.IOWorkersBound && ud != udata.IOWorkersUnbound {
				continue // not ours: the ring was said to be idle
			}
			got++
			if ud == udata.IOWorkersUnbound {
				*out-- // the kernel is done with efd's number
			}
			// Any other result means a worker ran it (the read fails
			// there with EINVAL, or EOPNOTSUPP on an IOPOLL ring).
			need[ud-udata.IOWorkersBound] = res == -int32(unix.ECANCELED)
		}
	}
	if need[0] || need[1] {
		return fmt.Errorf("reg: StartIOWorkers: the kernel cancelled its requests in all %d rounds: %w",
			startAttempts, unix.ECANCELED)
	}
	return nil
}

// numaNodeCPUs returns the CPUs of each NUMA node that has any, or nil on
// a machine with one node (or whose sysfs does not say).
func numaNodeCPUs() []unix.CPUSet {
	b, err := os.ReadFile("/sys/devices/system/node/has_cpu")
	if err != nil {
		return nil
	}
	nodes := parseCPUList(strings.TrimSpace(string(b)))
	if len(nodes) < 2 {
		return nil
	}
	var sets []unix.CPUSet
	for _, n := range nodes {
		c, err := os.ReadFile("/sys/devices/system/node/node" + strconv.Itoa(n) + "/cpulist")
		if err != nil {
			continue
		}
		var set unix.CPUSet
		for _, cpu := range parseCPUList(strings.TrimSpace(string(c))) {
			set.Set(cpu)
		}
		if set.Count() > 0 {
			sets = append(sets, set)
		}
	}
	if len(sets) < 2 {
		return nil
	}
	return sets
}

// parseCPUList reads a kernel list such as "0-3,8,10-11".
func parseCPUList(s string) []int {
	var out []int
	for _, part := range strings.Split(s, ",") {
		if part == "" {
			continue
		}
		lo, hi, ok := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil
		}
		b := a
		if ok {
			if b, err = strconv.Atoi(hi); err != nil {
				return nil
			}
		}
		for i := a; i <= b && i < 1<<16; i++ {
			out = append(out, i)
		}
	}
	return out
}
