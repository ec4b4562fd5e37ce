//go:build linux

package feature

import (
	"fmt"
	"sync"

	"github.com/pure-uring/uring/sys"
	"golang.org/x/sys/unix"
)

var setupCache cache[sys.SetupFlags]

// needs lists what each setup flag cannot be tried without.
var needs = map[sys.SetupFlags]sys.SetupFlags{
	sys.SetupSQAff:            sys.SetupSQPoll,
	sys.SetupTaskrunFlag:      sys.SetupCoopTaskrun,
	sys.SetupDeferTaskrun:     sys.SetupSingleIssuer,
	sys.SetupRegisteredFdOnly: sys.SetupNoMmap,
	sys.SetupHybridIOPoll:     sys.SetupIOPoll,
	sys.SetupSQRewind:         sys.SetupNoSQArray,
}

// SetupFlag reports whether io_uring_setup(2) accepts a setup flag (one
// bit), by making a two-entry ring with it and whatever it requires:
// SQ_AFF with SQPOLL and a CPU this thread may run on, TASKRUN_FLAG with
// COOP_TASKRUN, DEFER_TASKRUN with SINGLE_ISSUER, CQSIZE with cq_entries,
// ATTACH_WQ with another ring's fd, NO_MMAP with one page each of ring and
// SQE memory, REGISTERED_FD_ONLY with NO_MMAP, HYBRID_IOPOLL with IOPOLL,
// SQ_REWIND with NO_SQARRAY. EINVAL means unsupported; the kernel has
// always rejected setup flags it does not know.
func SetupFlag(f sys.SetupFlags) error {
	if f == 0 || f&(f-1) != 0 {
		return fmt.Errorf("feature: SetupFlag(%v): want exactly one flag", f)
	}
	return setupCache.get(f, func() error {
		defer lockThread()()
		p := sys.Params{Flags: f | needs[f], SQThreadIdle: 1}
		switch f {
		case sys.SetupSQAff:
			cpu, err := allowedCPU()
			if err != nil {
				return notFinal(err)
			}
			p.SQThreadCPU = uint32(cpu)
		case sys.SetupCQSize:
			p.CQEntries = 8
		case sys.SetupAttachWQ:
			wq, err := newProbe(2, sys.Params{})
			if err != nil {
				return plainRingFailed(setupFeature(f), err)
			}
			defer wq.close()
			p.WQFd = uint32(wq.fd)
		}
		r, err := newProbe(2, p)
		if err != nil {
			return setupFailed(setupFeature(f), f.Since(), err)
		}
		r.close()
		return nil
	})
}

// allowedCPU returns the first CPU the calling thread may run on.
func allowedCPU() (int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return 0, fmt.Errorf("feature: sched_getaffinity: %w", err)
	}
	for cpu := 0; cpu < len(set)*64; cpu++ {
		if set.IsSet(cpu) {
			return cpu, nil
		}
	}
	return 0, fmt.Errorf("feature: sched_getaffinity: empty CPU set")
}

var (
	featMu   sync.Mutex
	featBits sys.Features
	featDone bool
)

// Features returns the IORING_FEAT_* bits the kernel reports for a plain
// ring (cached after the first success).
func Features() (sys.Features, error) {
	featMu.Lock()
	defer featMu.Unlock()
	if featDone {
		return featBits, nil
	}
	r, err := newProbe(1, sys.Params{})
	if err != nil {
		return 0, unwrapTransient(plainRingFailed("the feature bits", err))
	}
	featBits, featDone = r.p.Features, true
	r.close()
	return featBits, nil
}

// Feature reports whether the kernel reports every bit of f in the
// IORING_FEAT_* word of a plain ring; the answer names the lowest missing
// bit and the release that added it.
func Feature(f sys.Features) error {
	if f == 0 {
		return fmt.Errorf("feature: Feature(0): want at least one bit")
	}
	have, err := Features()
	if err != nil {
		return err
	}
	return missingFeature(f, have)
}

// MaxEntries finds the largest SQ and CQ the kernel makes: with
// IORING_SETUP_CLAMP it asks for more than any kernel allows and reads back
// what it got; before CLAMP (5.6) it tries 32768 SQ entries and halves until
// a ring is made (the CQ is then twice that).
func MaxEntries() (Limits, error) {
	var l Limits
	r, err := newProbe(1<<20, sys.Params{Flags: sys.SetupClamp})
	if err == nil {
		l.MaxSQEntries = r.p.SQEntries
		r.close()
		r, err = newProbe(1, sys.Params{Flags: sys.SetupClamp | sys.SetupCQSize, CQEntries: 1 << 30})
		if err != nil {
			return l, unwrapTransient(setupFailed(setupFeature(sys.SetupCQSize|sys.SetupClamp), sys.SetupClamp.Since(), err))
		}
		l.MaxCQEntries = r.p.CQEntries
		r.close()
		return l, nil
	}
	if errnoOf(err) != unix.EINVAL {
		return l, unwrapTransient(setupFailed(setupFeature(sys.SetupClamp), sys.SetupClamp.Since(), err))
	}
	for n := uint32(32768); n >= 1; n /= 2 {
		r, err := newProbe(n, sys.Params{})
		if err == nil {
			l.MaxSQEntries, l.MaxCQEntries = r.p.SQEntries, r.p.CQEntries
			r.close()
			return l, nil
		}
		if errnoOf(err) != unix.EINVAL {
			return l, unwrapTransient(plainRingFailed(fmt.Sprintf("%d entries", n), err))
		}
	}
	return l, fmt.Errorf("feature: no ring size accepted")
}
