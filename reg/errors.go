//go:build linux

package reg

import (
	"errors"
	"os"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// Error is a failed io_uring_register(2) call: the register opcode, the
// kernel's error (an *os.SyscallError wrapping unix.Errno, so
// errors.Is(err, unix.EINVAL) works) and a hint at the likely cause.
type Error struct {
	Op sys.RegisterOp // the register opcode, without USE_REGISTERED_RING
	// Err is the kernel's error; when Unsupported, an
	// *uring.UnsupportedError that names what the kernel lacks (the opcode,
	// or a flag of the call such as IOU_PBUF_RING_INC) and the release
	// that added it, and wraps the kernel's error.
	Err  error
	Hint string // likely causes, "" when nothing useful is known
	// Unsupported is set when the kernel answered EINVAL and the feature
	// probes say it lacks the opcode, or a flag the call used:
	// errors.Is(err, uring.ErrUnsupported) and errors.Is(err,
	// errors.ErrUnsupported) then hold, and errors.As finds the
	// *uring.UnsupportedError.
	Unsupported bool
	// NotIssuer is set when the kernel answered EEXIST because the ring is
	// SINGLE_ISSUER and the call came from another thread:
	// errors.Is(err, uring.ErrNotIssuer) then holds.
	NotIssuer bool
}

func (e *Error) Error() string {
	s := "reg: " + e.Op.String() + ": " + e.Err.Error()
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

// Unwrap returns the kernel's error.
func (e *Error) Unwrap() error { return e.Err }

// Is matches uring.ErrUnsupported and errors.ErrUnsupported when the kernel
// lacks the opcode, and uring.ErrNotIssuer for a call off the issuer thread.
func (e *Error) Is(target error) bool {
	if e.NotIssuer {
		return target == uring.ErrNotIssuer
	}
	return e.Unsupported && (target == uring.ErrUnsupported || target == errors.ErrUnsupported)
}

// Errno returns the kernel's errno, or 0.
func (e *Error) Errno() unix.Errno {
	var en unix.Errno
	if errors.As(e.Err, &en) {
		return en
	}
	return 0
}

// ArgError reports an argument reg rejected before calling the kernel. It
// unwraps to unix.EINVAL, the errno the kernel would have returned. It is
// the library's one argument error, sqe.ArgError.
type ArgError = sqe.ArgError

func argErr(fn, arg, reason string) error {
	return &ArgError{Func: fn, Arg: arg, Reason: reason, Pkg: "reg"}
}

func itoa(v int) string    { return strconv.Itoa(v) }
func utoa(v uint64) string { return strconv.FormatUint(v, 10) }
func eq(v int) string      { return "= " + strconv.Itoa(v) }
func equ(v uint64) string  { return "= " + strconv.FormatUint(v, 10) }
func hex(v uint64) string  { return "0x" + strconv.FormatUint(v, 16) }

// issuerChecker is a Target that knows its SINGLE_ISSUER submitter
// (*uring.Ring).
type issuerChecker interface{ OnIssuerThread() bool }

// notIssuerHint explains the kernel's EEXIST to a register call on a
// SINGLE_ISSUER ring from a thread other than its submitter.
const notIssuerHint = "the ring is SINGLE_ISSUER and this thread is not its submitter: register from the thread " +
	"that made (or enabled) the ring, with the goroutine locked by runtime.LockOSThread"

// wrapFor is wrap for a call on t with argument arg, which tells an
// EEXIST of the opcode from one the kernel returns off a SINGLE_ISSUER
// ring's issuer thread.
func wrapFor(t Target, op sys.RegisterOp, arg any, err error) error {
	if err == nil {
		return nil
	}
	if c, ok := t.(issuerChecker); ok && errors.Is(err, unix.EEXIST) && !c.OnIssuerThread() {
		return &Error{Op: op &^ sys.RegisterUseRegisteredRing, Err: err, Hint: notIssuerHint, NotIssuer: true}
	}
	return wrapArg(op, arg, err)
}

// wrap turns a register error into *Error with a hint; nil stays nil.
func wrap(op sys.RegisterOp, err error) error { return wrapArg(op, nil, err) }

// wrapArg is wrap for a call with argument arg (nil when unknown). An
// EINVAL is first put to the feature probes: when the kernel lacks the
// opcode, or a flag in arg, the error is that *uring.UnsupportedError
// (wrapping the kernel's answer) rather than a guess.
func wrapArg(op sys.RegisterOp, arg any, err error) error {
	if err == nil {
		return nil
	}
	op &^= sys.RegisterUseRegisteredRing
	e := &Error{Op: op, Err: err}
	en := e.Errno()
	if en == unix.EINVAL {
		if ue := lacks(op, arg); ue != nil {
			u := *ue
			u.Err = err // the call's own answer, not the probe's
			e.Err, e.Unsupported = &u, true
			return e
		}
	}
	e.Hint = hintArg(op, en, arg)
	return e
}

// lacks returns what the kernel lacks for a call of op with arg, by the
// feature probes, or nil when it has all of it (the EINVAL is then about
// the values). A probe that cannot run falls back to the release that
// added op.
func lacks(op sys.RegisterOp, arg any) *uring.UnsupportedError {
	perr := probeOff(func() error { return supportsRegisterOp(op) })
	var ue *uring.UnsupportedError
	switch {
	case errors.As(perr, &ue):
		return ue
	case perr != nil && op.Since() != "":
		if ok, kerr := uring.KernelAtLeast(op.Since()); kerr == nil && !ok {
			return &uring.UnsupportedError{Feature: "register opcode " + uring.RegisterOpName(op),
				MinimumVersion: op.Since(), Kernel: uring.KernelRelease()}
		}
	}
	var caps []uring.Capability
	switch a := arg.(type) {
	case *sys.BufReg:
		if a != nil && a.Flags&sys.PbufRingInc != 0 {
			caps = append(caps, uring.CapBufRingInc)
		}
		if a != nil && a.Flags&sys.PbufRingMmap != 0 {
			caps = append(caps, uring.CapBufRingMmap)
		}
	case *sys.RsrcRegister:
		if a != nil && a.Flags&sys.RsrcRegisterSparse != 0 {
			switch op {
			case sys.RegisterFiles2:
				caps = append(caps, uring.CapSparseFiles)
			case sys.RegisterBuffers2:
				caps = append(caps, uring.CapSparseBuffers)
			}
		}
	case *sys.NAPI:
		if a != nil && op == sys.RegisterNAPI && (a.Opcode != 0 || a.OpParam != 0) {
			caps = append(caps, uring.CapNAPIStaticTracking)
		}
	}
	for _, c := range caps {
		if ue := probed(func() error { return supports(c) }); ue != nil {
			return ue
		}
	}
	return nil
}

// The probes lacks asks (variables for tests).
var (
	supportsRegisterOp = uring.CheckRegisterOp
	supports           = uring.CheckCapability
)

// probed runs a probe (off this thread, see probeOff) and returns its
// *uring.UnsupportedError, or nil for a yes or a probe that failed.
func probed(probe func() error) *uring.UnsupportedError {
	var ue *uring.UnsupportedError
	if errors.As(probeOff(probe), &ue) {
		return ue
	}
	return nil
}

// probeOff runs a feature probe on a goroutine of its own: a probe may
// leave per-thread state (an io-wq, the registered-ring table) on the
// thread it runs on, and the caller's thread may be locked, with state
// that matters (a SINGLE_ISSUER submitter, a thread without io-wq).
// Answers are cached, so only the first error of a kind pays for a probe.
func probeOff(probe func() error) error {
	ch := make(chan error, 1)
	go func() { ch <- probe() }()
	return <-ch
}

type opErrno struct {
	op sys.RegisterOp
	en unix.Errno
}

// hints explain the errnos each opcode is known to return, from the kernel
// sources (io_uring/register.c, rsrc.c, kbuf.c, filetable.c, napi.c).
var hints = map[opErrno]string{
	{sys.RegisterFiles2, unix.EBUSY}:          "a file table is already registered; unregister it first",
	{sys.RegisterFiles2, unix.EMFILE}:         "more slots than RLIMIT_NOFILE allows",
	{sys.RegisterFiles2, unix.EBADF}:          "an fd in the table is not open",
	{sys.RegisterFiles2, unix.EINVAL}:         "zero slots, more than 1<<20, a tag on an empty slot, or an io_uring fd in the table",
	{sys.RegisterFilesUpdate2, unix.ENXIO}:    "no file table is registered",
	{sys.RegisterFilesUpdate2, unix.EINVAL}:   "the range runs past the table, or a tag on an empty slot",
	{sys.RegisterFilesUpdate2, unix.EBADF}:    "an fd in the update is not open",
	{sys.UnregisterFiles, unix.ENXIO}:         "no file table is registered",
	{sys.RegisterFileAllocRange, unix.ENXIO}:  "no file table is registered",
	{sys.RegisterFileAllocRange, unix.EINVAL}: "the range runs past the file table",
	{sys.RegisterBuffers2, unix.EBUSY}:        "a buffer table is already registered; unregister it first",
	{sys.RegisterBuffers2, unix.EINVAL}:       "zero buffers, more than 16384, or a buffer of 0 bytes or over 1 GiB",
	{sys.RegisterBuffers2, unix.ENOMEM}:       "RLIMIT_MEMLOCK is too low to pin the buffers",
	{sys.RegisterBuffers2, unix.EFAULT}:       "a buffer's memory is not mapped",
	{sys.RegisterBuffers2, unix.EOPNOTSUPP}:   "the memory is file-backed (not anonymous or huge-page memory)",
	{sys.RegisterBuffersUpdate, unix.ENXIO}:   "no buffer table is registered",
	{sys.RegisterBuffersUpdate, unix.EINVAL}:  "the range runs past the table, or a buffer of 0 bytes or over 1 GiB",
	{sys.UnregisterBuffers, unix.ENXIO}:       "no buffer table is registered",
	{sys.RegisterCloneBuffers, unix.EBUSY}:    "the destination already has buffers (use the replace option)",
	{sys.RegisterCloneBuffers, unix.ENXIO}:    "the source ring has no registered buffers",
	{sys.RegisterCloneBuffers, unix.EINVAL}:   "the range runs past the source table, or source and destination are the same ring",
	{sys.RegisterCloneBuffers, unix.EBADF}:    "the source is not an io_uring fd",
	{sys.RegisterPbufRing, unix.EEXIST}:       "the group id is already registered on this ring",
	{sys.RegisterPbufRing, unix.EINVAL}:       "entries not a power of two or above 32768, a ring address not page aligned (or, with IOU_PBUF_RING_MMAP, not zero), unknown flags, or nonzero reserved fields",
	{sys.RegisterPbufRing, unix.ENOMEM}:       "the kernel could not allocate the ring",
	{sys.UnregisterPbufRing, unix.ENOENT}:     "no buffer ring with this group id",
	{sys.UnregisterPbufRing, unix.EINVAL}:     "the group uses legacy provided buffers, not a ring",
	{sys.RegisterPbufStatus, unix.ENOENT}:     "no buffer ring with this group id",
	{sys.RegisterPbufStatus, unix.EINVAL}:     "the group uses legacy provided buffers, not a ring",
	{sys.RegisterEventfd, unix.EBUSY}:         "an eventfd is already registered; unregister it first",
	{sys.RegisterEventfdAsync, unix.EBUSY}:    "an eventfd is already registered; unregister it first",
	{sys.UnregisterEventfd, unix.ENXIO}:       "no eventfd is registered",
	{sys.UnregisterPersonality, unix.EINVAL}:  "no personality with this id",
	{sys.RegisterRestrictions, unix.EBADFD}:   "the ring is not disabled (create it with uring.WithDisabled)",
	{sys.RegisterRestrictions, unix.EBUSY}:    "restrictions are already registered",
	{sys.RegisterEnableRings, unix.EBADFD}:    "the ring is already enabled",
	{sys.RegisterIOWQAff, unix.EINVAL}:        "the CPU set names no online CPU, or the calling thread has no io-wq (io-wq settings are per thread: call from the thread that made or submits to the ring)",
	{sys.RegisterIOWQMaxWorkers, unix.EINVAL}: "nr_args is not 2",
	{sys.RegisterRingFds, unix.EBUSY}:         "the fd is already registered in this thread's ring table",
	{sys.RegisterRingFds, unix.EINVAL}:        "the index is out of range (16 per thread) or the table is full",
	{sys.RegisterRingFds, unix.EOPNOTSUPP}:    "the fd is not an io_uring fd",
	{sys.UnregisterRingFds, unix.EINVAL}:      "the index is out of range",
	{sys.RegisterNAPI, unix.EINVAL}:           "an opcode or tracking strategy the kernel does not know, or nonzero padding",
	{sys.RegisterNAPI, unix.EEXIST}:           "the NAPI id is already tracked",
	{sys.UnregisterNAPI, unix.EINVAL}:         "nonzero padding or reserved fields in the argument",
	{sys.RegisterClock, unix.EINVAL}:          "only CLOCK_MONOTONIC and CLOCK_BOOTTIME are accepted",
	{sys.RegisterResizeRings, unix.EINVAL}:    "the ring needs SETUP_DEFER_TASKRUN, or the new sizes are invalid",
	{sys.RegisterResizeRings, unix.EOVERFLOW}: "the new CQ ring is too small for the CQEs pending",
	{sys.RegisterMemRegion, unix.EINVAL}:      "a wait region needs a ring created disabled; or size/flags are invalid",
	{sys.RegisterMemRegion, unix.EBUSY}:       "a region is already registered",
	{sys.RegisterSyncCancel, unix.ENOENT}:     "no request matched",
	{sys.RegisterSyncCancel, unix.EALREADY}:   "the request was already running and could not be cancelled in time",
	{sys.RegisterSyncCancel, unix.ETIME}:      "the timeout expired before the matched requests finished",
	{sys.RegisterSendMsgRing, unix.EBADFD}:    "the target ring is disabled",
	{sys.RegisterSendMsgRing, unix.EBADF}:     "the target fd is not an io_uring fd",
	{sys.RegisterSendMsgRing, unix.EINVAL}:    "only IORING_MSG_DATA can be sent without a source ring",
	{sys.RegisterSendMsgRing, unix.EOVERFLOW}: "the target ring's CQ is full",
	{sys.RegisterQuery, unix.EINVAL}:          "bad query header",
}

// generic explains errnos any opcode may return.
var generic = map[unix.Errno]string{
	unix.EINVAL:     "invalid argument, or an opcode this kernel lacks",
	unix.EFAULT:     "an address passed to the kernel is not mapped",
	unix.EACCES:     "the ring's restrictions forbid this register opcode",
	unix.EBADFD:     "the ring is disabled (created with WithDisabled and not enabled yet)",
	unix.EBADF:      "the ring fd (or registered ring index) is not valid",
	unix.EOPNOTSUPP: "the fd is not an io_uring instance, or the kernel lacks the feature",
	unix.ENXIO:      "nothing of this kind is registered",
	unix.EPERM:      "not permitted (capabilities, seccomp or kernel.io_uring_disabled)",
	unix.ENOMEM:     "out of memory or over RLIMIT_MEMLOCK",
	unix.EBUSY:      "already registered, or the ring is busy",
	unix.EEXIST:     "already exists, or the ring is SINGLE_ISSUER and this thread is not its submitter",
	unix.EINTR:      "interrupted by a signal while waiting for quiescence; retry",
}

// hintArg is hint, made exact where the argument shows the cause.
func hintArg(op sys.RegisterOp, en unix.Errno, arg any) string {
	if br, ok := arg.(*sys.BufReg); ok && br != nil && op == sys.RegisterPbufRing && en == unix.EINVAL {
		if h := bufRegHint(br); h != "" {
			return h
		}
	}
	return hint(op, en)
}

// bufRegHint names what the kernel checks in io_uring_buf_reg and br
// breaks (io_uring/kbuf.c), or "".
func bufRegHint(br *sys.BufReg) string {
	n := br.RingEntries
	rest := *br // what is left once the fields every kernel reads are zeroed
	rest.RingAddr, rest.RingEntries, rest.Bgid, rest.Flags = 0, 0, 0, 0
	switch {
	case n == 0 || n&(n-1) != 0:
		return "ring_entries = " + utoa(uint64(n)) + " is not a power of two"
	case n >= 1<<16:
		return "ring_entries = " + utoa(uint64(n)) + " is above 32768"
	case br.Flags&^(sys.PbufRingMmap|sys.PbufRingInc) != 0:
		return "unknown flags " + hex(uint64(br.Flags&^(sys.PbufRingMmap|sys.PbufRingInc)))
	case br.Flags&sys.PbufRingMmap != 0 && br.RingAddr != 0:
		return "IOU_PBUF_RING_MMAP takes no ring address (the kernel allocates the ring)"
	case br.Flags&sys.PbufRingMmap == 0 && br.RingAddr%uint64(os.Getpagesize()) != 0:
		return "the ring address " + hex(br.RingAddr) + " is not page aligned"
	case rest != sys.BufReg{}:
		return "nonzero reserved fields (or a field newer than this kernel)"
	}
	return ""
}

func hint(op sys.RegisterOp, en unix.Errno) string {
	if h, ok := hints[opErrno{op, en}]; ok {
		return h
	}
	return generic[en]
}
