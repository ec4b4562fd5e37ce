package fdinfo

import (
	"errors"
	"time"
)

// ErrUnsupported is returned by Scan where there is no /proc with io_uring
// fds to read (systems other than Linux).
var ErrUnsupported = errors.New("fdinfo: io_uring inspection needs Linux /proc")

// Instance is one io_uring fd of one process.
type Instance struct {
	PID      int
	Comm     string // /proc/PID/comm
	FD       int
	Info     *Info
	Attempts int     // reads of the fdinfo file; more than 1 when a part was missing
	SQThread *Thread // the SQPOLL thread's CPU time, nil without one (or when unreadable)
}

// Result is what Scan found.
type Result struct {
	Instances []Instance // sorted by pid, then fd
	// Denied lists the processes whose fds could not be read (permission).
	Denied []int
	// Errors holds one error per pid asked for by number that could not be
	// scanned (no such process, no permission).
	Errors []error
}

// ScanOptions tune Scan; the zero value is the default.
type ScanOptions struct {
	Proc       string        // procfs root, "/proc" when empty
	Retries    int           // extra reads when a locked part is missing; 4 when 0, none when < 0
	RetryDelay time.Duration // delay before the first retry, doubled each time; 1ms when 0
	// PartialLock overrides the kernel-generation guess (see Options);
	// nil means: from /proc/sys/kernel/osrelease.
	PartialLock *bool
}

func (o ScanOptions) withDefaults() ScanOptions {
	if o.Proc == "" {
		o.Proc = "/proc"
	}
	switch {
	case o.Retries == 0:
		o.Retries = 4
	case o.Retries < 0:
		o.Retries = 0
	}
	if o.RetryDelay <= 0 {
		o.RetryDelay = time.Millisecond
	}
	return o
}
