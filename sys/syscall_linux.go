//go:build linux

package sys

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Setup calls io_uring_setup(2). The kernel fills p; the new ring fd is
// returned (or a registered index with SETUP_REGISTERED_FD_ONLY).
func Setup(entries uint32, p *Params) (int, error) {
	fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(entries), uintptr(unsafe.Pointer(p)), 0)
	if errno != 0 {
		return -1, os.NewSyscallError("io_uring_setup", errno)
	}
	return int(fd), nil
}

// Enter calls io_uring_enter(2) with no signal mask. It may block (with
// GETEVENTS or SQ_WAIT), so it goes through the scheduler-aware Syscall6.
func Enter(fd int, toSubmit, minComplete uint32, flags EnterFlags) (int, error) {
	n, _, errno := unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(fd), uintptr(toSubmit), uintptr(minComplete), uintptr(flags), 0, 0)
	if errno != 0 {
		return int(n), enterError(errno)
	}
	return int(n), nil
}

// EnterSubmit calls io_uring_enter(2) to submit only (min_complete 0, no
// GETEVENTS): the kernel issues the SQEs without blocking (work that
// would block goes to io-wq), so the raw form, without the runtime's
// syscall bookkeeping, is safe. Any flag that may make the call wait or
// run completion work (GETEVENTS, SQ_WAIT, EXT_ARG) goes through Enter.
func EnterSubmit(fd int, toSubmit uint32, flags EnterFlags) (int, error) {
	if flags&(EnterGetEvents|EnterSQWait|EnterExtArg|EnterExtArgReg) != 0 {
		return Enter(fd, toSubmit, 0, flags)
	}
	n, _, errno := unix.RawSyscall6(unix.SYS_IO_URING_ENTER, uintptr(fd), uintptr(toSubmit), 0, uintptr(flags), 0, 0)
	if errno != 0 {
		return int(n), enterError(errno)
	}
	return int(n), nil
}

// EnterArg calls io_uring_enter(2) with IORING_ENTER_EXT_ARG and arg
// (timeout, min-wait and signal mask).
func EnterArg(fd int, toSubmit, minComplete uint32, flags EnterFlags, arg *GeteventsArg) (int, error) {
	n, _, errno := unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(fd), uintptr(toSubmit), uintptr(minComplete),
		uintptr(flags|EnterExtArg), uintptr(unsafe.Pointer(arg)), unsafe.Sizeof(*arg))
	if errno != 0 {
		return int(n), enterError(errno)
	}
	return int(n), nil
}

// EnterRegWait calls io_uring_enter(2) with IORING_ENTER_EXT_ARG_REG: the
// wait arguments are the RegWait at byte offset off of the registered wait
// region.
func EnterRegWait(fd int, toSubmit, minComplete uint32, flags EnterFlags, off uint32) (int, error) {
	n, _, errno := unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(fd), uintptr(toSubmit), uintptr(minComplete),
		uintptr(flags|EnterExtArg|EnterExtArgReg), uintptr(off), unsafe.Sizeof(RegWait{}))
	if errno != 0 {
		return int(n), enterError(errno)
	}
	return int(n), nil
}

// Register calls io_uring_register(2) with arg pointing at one T (or nil)
// and nrArgs as the kernel expects for op.
func Register[T any](fd int, op RegisterOp, arg *T, nrArgs uint32) (int, error) {
	n, _, errno := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(fd), uintptr(op), uintptr(unsafe.Pointer(arg)), uintptr(nrArgs), 0, 0)
	if errno != 0 {
		return int(n), os.NewSyscallError("io_uring_register", errno)
	}
	return int(n), nil
}

// RegisterSlice calls io_uring_register(2) with arg pointing at s[0] and
// nrArgs = len(s).
func RegisterSlice[T any](fd int, op RegisterOp, s []T) (int, error) {
	var p *T
	if len(s) > 0 {
		p = &s[0]
	}
	return Register(fd, op, p, uint32(len(s)))
}

// Mmap maps length bytes of the ring fd at the magic offset off (OffSQRing,
// OffCQRing, OffSQEs, OffPbufRing|bgid<<OffPbufShift), shared and populated.
func Mmap(fd int, off int64, length int) ([]byte, error) {
	return mmap(fd, off, length, unix.MAP_SHARED|unix.MAP_POPULATE)
}

// MmapAnon maps length bytes of zeroed anonymous memory off the Go heap,
// with huge pages when huge is set (MAP_HUGETLB: needs reserved huge pages).
func MmapAnon(length int, huge bool) ([]byte, error) {
	flags := unix.MAP_PRIVATE | unix.MAP_ANONYMOUS | unix.MAP_POPULATE
	if huge {
		flags |= unix.MAP_HUGETLB
	}
	return mmap(-1, 0, length, flags)
}

func mmap(fd int, off int64, length, flags int) ([]byte, error) {
	if length <= 0 {
		return nil, os.NewSyscallError("mmap", unix.EINVAL)
	}
	p, err := unix.MmapPtr(fd, off, nil, uintptr(length), unix.PROT_READ|unix.PROT_WRITE, flags)
	if err != nil {
		return nil, os.NewSyscallError("mmap", err)
	}
	return unsafe.Slice((*byte)(p), length), nil
}

// Munmap unmaps memory returned by Mmap or MmapAnon. Unmapping nil is a
// no-op.
func Munmap(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	if err := unix.MunmapPtr(unsafe.Pointer(unsafe.SliceData(b)), uintptr(cap(b))); err != nil {
		return os.NewSyscallError("munmap", err)
	}
	return nil
}

// Close closes an fd (the ring's, or one the kernel installed).
func Close(fd int) error {
	if err := unix.Close(fd); err != nil {
		return os.NewSyscallError("close", err)
	}
	return nil
}

// Supported reports whether this build can reach io_uring at all.
const Supported = true

// MmapFixedAnon replaces the mapping b in place with zeroed anonymous
// memory (MAP_FIXED), dropping whatever b mapped. A closed ring uses it so
// that a racing access to its old ring memory reads zeros instead of
// faulting.
func MmapFixedAnon(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	_, err := unix.MmapPtr(-1, 0, unsafe.Pointer(unsafe.SliceData(b)), uintptr(cap(b)),
		unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_FIXED)
	if err != nil {
		return os.NewSyscallError("mmap", err)
	}
	return nil
}

// Gettid returns the calling thread's id.
func Gettid() int { return unix.Gettid() }

// Errors io_uring_enter returns in normal operation (a wait timing out, a
// signal, back-pressure) are preallocated so that those paths allocate
// nothing.
var (
	errEnterETIME  error = os.NewSyscallError("io_uring_enter", unix.ETIME)
	errEnterEINTR  error = os.NewSyscallError("io_uring_enter", unix.EINTR)
	errEnterEAGAIN error = os.NewSyscallError("io_uring_enter", unix.EAGAIN)
	errEnterEBUSY  error = os.NewSyscallError("io_uring_enter", unix.EBUSY)
)

func enterError(errno unix.Errno) error {
	switch errno {
	case unix.ETIME:
		return errEnterETIME
	case unix.EINTR:
		return errEnterEINTR
	case unix.EAGAIN:
		return errEnterEAGAIN
	case unix.EBUSY:
		return errEnterEBUSY
	}
	return os.NewSyscallError("io_uring_enter", errno)
}

// SendMsgRing posts the CQE that msg, an IORING_OP_MSG_RING SQE, describes
// into the ring with fd (msg.Fd is set here) from outside any ring:
// IORING_REGISTER_SEND_MSG_RING with no source ring (fd -1, Linux 6.13).
// Every ring-less post of the library is this call; the caller keeps fd
// open and its number the target's across it.
func SendMsgRing(fd int, msg *SQE) error {
	if msg == nil {
		return &os.SyscallError{Syscall: "io_uring_register SEND_MSG_RING: msg is nil", Err: unix.EINVAL}
	}
	msg.Fd = int32(fd)
	_, err := Register(-1, RegisterSendMsgRing, msg, 1)
	return err
}
