//go:build linux

package feature

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"unsafe"

	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"golang.org/x/sys/unix"
)

var registerCache cache[sys.RegisterOp]

// regTry is how one register opcode is tried: on a ring made with flags,
// run makes the call (after any registration it needs, whose EINVAL means
// unsupported) and answer maps the result; ok lists errnos that also mean
// "supported".
type regTry struct {
	flags sys.SetupFlags
	ring  bool // run needs a Ring (it submits), not only a ring fd
	run   func(r *probe) error
	ok    []unix.Errno
	no    []unix.Errno // errnos that mean "unsupported" besides EINVAL and EOPNOTSUPP
}

// RegisterOp reports whether io_uring_register(2) supports an opcode
// (optionally with RegisterUseRegisteredRing). Each opcode is tried on a
// fresh tiny ring with valid, harmless arguments, so that success means
// supported and EINVAL (the kernel's answer to an opcode it does not know)
// means not; EOPNOTSUPP means compiled out. The arguments, and the answers
// other than success, per opcode:
//
//	BUFFERS, BUFFERS2            one page of anonymous memory
//	FILES, FILES2                one eventfd
//	EVENTFD, EVENTFD_ASYNC       one eventfd
//	FILES_UPDATE(2)              after FILES(2): slot 0 set to -1
//	BUFFERS_UPDATE               after BUFFERS2: slot 0 to the same page
//	UNREGISTER_*                 after the matching registration
//	PROBE                        256 ops
//	PERSONALITY, UNREGISTER_…    register, then drop the id
//	RESTRICTIONS, ENABLE_RINGS   on an R_DISABLED ring: allow NOP; enable
//	IOWQ_AFF, UNREGISTER_…       after one NOP (the thread's io-wq): this thread's CPUs
//	IOWQ_MAX_WORKERS             {0, 0}: read the limits
//	RING_FDS, UNREGISTER_…       the ring's own fd, then its index
//	PBUF_RING, UNREGISTER_…      one entry in a page, group 0
//	SYNC_CANCEL                  a user_data nothing has: ENOENT = supported
//	FILE_ALLOC_RANGE             after FILES: slots [0, 1)
//	PBUF_STATUS                  after PBUF_RING: group 0
//	NAPI, UNREGISTER_NAPI        dynamic tracking, no busy poll
//	CLOCK                        CLOCK_MONOTONIC
//	CLONE_BUFFERS                from a second ring with one buffer
//	SEND_MSG_RING                ring-less (fd -1), a MSG_DATA to the ring; EBADF = no ring-less form
//	ZCRX_IFQ                     DEFER_TASKRUN|CQE32 ring, argument in a PROT_NONE page:
//	                             EFAULT = supported (the kernel got to reading it);
//	                             EPERM = supported but needs CAP_NET_ADMIN
//	RESIZE_RINGS                 DEFER_TASKRUN ring, to 4 SQ entries
//	MEM_REGION                   one page of user memory
//	QUERY                        ring-less: QUERY_OPCODES; EBADF = no ring-less form
//	USE_REGISTERED_RING          PROBE through the ring's registered index
//	                             (another opcode with the flag: both must be supported)
//	ZCRX_CTRL, BPF_FILTER, newer decided by QUERY's nr_register_opcodes
//	                             (without QUERY, from before 6.18: unsupported)
func RegisterOp(op sys.RegisterOp) error {
	if base := op &^ sys.RegisterUseRegisteredRing; base != op && base != 0 {
		// An opcode through a registered ring needs both.
		if err := RegisterOp(sys.RegisterUseRegisteredRing); err != nil {
			return err
		}
		return RegisterOp(base)
	}
	return registerCache.get(op, func() error {
		defer lockThread()()
		what, since := registerFeature(op), op.Since()
		t, ok := regTries[op]
		if !ok {
			return registerByQuery(op, what)
		}
		newRing := func() (*probe, error) { return newProbe(2, sys.Params{Flags: t.flags}) }
		if t.ring {
			newRing = func() (*probe, error) { return newRingProbe(2, t.flags) }
		}
		r, err := newRing()
		if err != nil {
			if t.flags != 0 && errnoOf(err) == unix.EINVAL {
				return unsupported(what, since, "needs setup flags "+SetupFlagName(t.flags)+", which the kernel rejects", err)
			}
			return notFinal(unwrapTransient(plainRingFailed(what, err)))
		}
		defer r.close()
		err = t.run(r)
		if p, isPrereq := err.(prereqError); isPrereq {
			return registerPrereq(what, since, p.what, p.err)
		}
		for _, no := range t.no {
			if errnoOf(err) == no {
				return unsupported(what, since, "", err)
			}
		}
		if op == sys.RegisterZcrxIfq && errnoOf(err) == unix.EPERM {
			return notFinal(unsupported(what, "", "the kernel has it, but it needs CAP_NET_ADMIN", err))
		}
		return answer(what, since, err, append([]unix.Errno{0}, t.ok...)...)
	})
}

// prereqError is a registration a probe needed first that failed.
type prereqError struct {
	what string
	err  error
}

func (e prereqError) Error() string { return e.what + ": " + e.err.Error() }

func prereq(what string, err error) error {
	if err == nil {
		return nil
	}
	return prereqError{what, err}
}

// regFn adapts a call that returns (n, err).
func regFn[T any](op sys.RegisterOp, arg func(r *probe) (*T, uint32, error)) func(*probe) error {
	return func(r *probe) error {
		a, nr, err := arg(r)
		if err != nil {
			return err
		}
		_, err = register(r.fd, op, a, nr)
		return err
	}
}

func (r *probe) eventfd() (int32, error) {
	fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("eventfd: %w", err)
	}
	r.fds = append(r.fds, fd)
	return int32(fd), nil
}

// page returns one page of anonymous memory and an iovec over it.
func (r *probe) page() ([]byte, *unix.Iovec, error) {
	b, err := r.anon(os.Getpagesize())
	if err != nil {
		return nil, nil, err
	}
	iov := &unix.Iovec{Base: &b[0]}
	iov.SetLen(len(b))
	r.pin.Pin(iov)
	return b, iov, nil
}

func (r *probe) files() error {
	efd, err := r.eventfd()
	if err != nil {
		return err
	}
	fds := []int32{efd}
	_, err = register(r.fd, sys.RegisterFiles, &fds[0], 1)
	return prereq("REGISTER_FILES", err)
}

func (r *probe) files2() error {
	efd, err := r.eventfd()
	if err != nil {
		return err
	}
	fds := []int32{efd}
	r.pin.Pin(&fds[0])
	rr := sys.RsrcRegister{Nr: 1, Data: sys.SliceAddr(fds)}
	_, err = register(r.fd, sys.RegisterFiles2, &rr, uint32(unsafe.Sizeof(rr)))
	return err
}

func (r *probe) buffers2() error {
	_, iov, err := r.page()
	if err != nil {
		return err
	}
	rr := sys.RsrcRegister{Nr: 1, Data: sys.PtrAddr(iov)}
	_, err = register(r.fd, sys.RegisterBuffers2, &rr, uint32(unsafe.Sizeof(rr)))
	return err
}

func (r *probe) buffers() error {
	_, iov, err := r.page()
	if err != nil {
		return err
	}
	_, err = register(r.fd, sys.RegisterBuffers, iov, 1)
	return err
}

func (r *probe) pbufRing() error {
	b, _, err := r.page()
	if err != nil {
		return err
	}
	br := sys.BufReg{RingAddr: sys.SliceAddr(b), RingEntries: 1}
	_, err = register(r.fd, sys.RegisterPbufRing, &br, 1)
	return err
}

// submitNop submits one NOP and waits for it, so that the calling thread
// has an io_uring task context and io-wq (IOWQ_AFF needs them).
func (r *probe) submitNop() error {
	s, err := r.ring.GetSQE()
	if err != nil {
		return err
	}
	sqe.Nop(s)
	if _, err := r.ring.Submit(); err != nil {
		return err
	}
	if _, err := r.ring.WaitCQE(); err != nil {
		return err
	}
	var c [1]sys.CQE
	r.ring.Reap(c[:])
	return nil
}

// noneArg calls op with no argument and nrArgs.
func noneArg(r *probe, op sys.RegisterOp, nrArgs uint32) error {
	_, err := register[byte](r.fd, op, nil, nrArgs)
	return err
}

var regTries = map[sys.RegisterOp]regTry{
	sys.RegisterBuffers: {run: (*probe).buffers},
	sys.UnregisterBuffers: {run: func(r *probe) error {
		if err := prereq("REGISTER_BUFFERS", r.buffers()); err != nil {
			return err
		}
		return noneArg(r, sys.UnregisterBuffers, 0)
	}},
	sys.RegisterFiles: {run: func(r *probe) error {
		err := r.files()
		if p, ok := err.(prereqError); ok {
			return p.err // the call under test, not a prerequisite
		}
		return err
	}},
	sys.UnregisterFiles: {run: func(r *probe) error {
		if err := r.files(); err != nil {
			return err
		}
		return noneArg(r, sys.UnregisterFiles, 0)
	}},
	sys.RegisterEventfd: {run: regFn(sys.RegisterEventfd, func(r *probe) (*int32, uint32, error) {
		efd, err := r.eventfd()
		return &efd, 1, err
	})},
	sys.UnregisterEventfd: {run: func(r *probe) error {
		efd, err := r.eventfd()
		if err != nil {
			return err
		}
		if _, err := register(r.fd, sys.RegisterEventfd, &efd, 1); err != nil {
			return prereq("REGISTER_EVENTFD", err)
		}
		return noneArg(r, sys.UnregisterEventfd, 0)
	}},
	sys.RegisterFilesUpdate: {run: func(r *probe) error {
		if err := r.files(); err != nil {
			return err
		}
		fds := []int32{-1}
		r.pin.Pin(&fds[0])
		fu := sys.FilesUpdate{Fds: sys.SliceAddr(fds)}
		_, err := register(r.fd, sys.RegisterFilesUpdate, &fu, 1)
		return err
	}},
	sys.RegisterEventfdAsync: {run: regFn(sys.RegisterEventfdAsync, func(r *probe) (*int32, uint32, error) {
		efd, err := r.eventfd()
		return &efd, 1, err
	})},
	sys.RegisterProbe: {run: regFn(sys.RegisterProbe, func(r *probe) (*sys.Probe, uint32, error) {
		return new(sys.Probe), 256, nil
	})},
	sys.RegisterPersonality: {run: func(r *probe) error {
		id, err := register[byte](r.fd, sys.RegisterPersonality, nil, 0)
		if err == nil {
			noneArg(r, sys.UnregisterPersonality, uint32(id))
		}
		return err
	}},
	sys.UnregisterPersonality: {run: func(r *probe) error {
		id, err := register[byte](r.fd, sys.RegisterPersonality, nil, 0)
		if err != nil {
			return prereq("REGISTER_PERSONALITY", err)
		}
		return noneArg(r, sys.UnregisterPersonality, uint32(id))
	}},
	sys.RegisterRestrictions: {flags: sys.SetupRDisabled, run: regFn(sys.RegisterRestrictions, func(r *probe) (*sys.Restriction, uint32, error) {
		return &sys.Restriction{Opcode: sys.RestrictionSQEOp, Arg: uint8(sys.OpNop)}, 1, nil
	})},
	sys.RegisterEnableRings: {flags: sys.SetupRDisabled, run: func(r *probe) error {
		return noneArg(r, sys.RegisterEnableRings, 0)
	}},
	sys.RegisterFiles2: {run: (*probe).files2},
	sys.RegisterFilesUpdate2: {run: func(r *probe) error {
		if err := r.files2(); err != nil {
			return prereq("REGISTER_FILES2", err)
		}
		fds := []int32{-1}
		r.pin.Pin(&fds[0])
		u := sys.RsrcUpdate2{Data: sys.SliceAddr(fds), Nr: 1}
		_, err := register(r.fd, sys.RegisterFilesUpdate2, &u, uint32(unsafe.Sizeof(u)))
		return err
	}},
	sys.RegisterBuffers2: {run: (*probe).buffers2},
	sys.RegisterBuffersUpdate: {run: func(r *probe) error {
		if err := r.buffers2(); err != nil {
			return prereq("REGISTER_BUFFERS2", err)
		}
		_, iov, err := r.page()
		if err != nil {
			return err
		}
		u := sys.RsrcUpdate2{Data: sys.PtrAddr(iov), Nr: 1}
		_, err = register(r.fd, sys.RegisterBuffersUpdate, &u, uint32(unsafe.Sizeof(u)))
		return err
	}},
	sys.RegisterIOWQAff: {ring: true, run: func(r *probe) error {
		if err := r.submitNop(); err != nil {
			return fmt.Errorf("NOP for the thread's io-wq: %w", err)
		}
		var set unix.CPUSet
		if err := unix.SchedGetaffinity(0, &set); err != nil {
			return fmt.Errorf("sched_getaffinity: %w", err)
		}
		_, err := register(r.fd, sys.RegisterIOWQAff, &set, uint32(unsafe.Sizeof(set)))
		return err
	}},
	sys.UnregisterIOWQAff: {ring: true, run: func(r *probe) error {
		if err := r.submitNop(); err != nil {
			return fmt.Errorf("NOP for the thread's io-wq: %w", err)
		}
		return noneArg(r, sys.UnregisterIOWQAff, 0)
	}},
	sys.RegisterIOWQMaxWorkers: {run: regFn(sys.RegisterIOWQMaxWorkers, func(r *probe) (*[2]uint32, uint32, error) {
		return new([2]uint32), 2, nil
	})},
	sys.RegisterRingFds: {run: func(r *probe) error {
		_, err := r.registerSelf()
		return err
	}},
	sys.UnregisterRingFds: {run: func(r *probe) error {
		idx, err := r.registerSelf()
		if err != nil {
			return prereq("REGISTER_RING_FDS", err)
		}
		u := sys.RsrcUpdate{Offset: uint32(idx)}
		_, err = register(r.fd, sys.UnregisterRingFds, &u, 1)
		if err == nil {
			r.reg = -1
		}
		return err
	}},
	sys.RegisterPbufRing: {run: (*probe).pbufRing},
	sys.UnregisterPbufRing: {run: func(r *probe) error {
		if err := r.pbufRing(); err != nil {
			return prereq("REGISTER_PBUF_RING", err)
		}
		_, err := register(r.fd, sys.UnregisterPbufRing, &sys.BufReg{}, 1)
		return err
	}},
	sys.RegisterSyncCancel: {ok: []unix.Errno{unix.ENOENT}, run: regFn(sys.RegisterSyncCancel, func(r *probe) (*sys.SyncCancelReg, uint32, error) {
		return &sys.SyncCancelReg{Addr: 0xfeedface, Fd: -1, Timeout: sys.Timespec{Sec: -1, Nsec: -1}}, 1, nil
	})},
	sys.RegisterFileAllocRange: {run: func(r *probe) error {
		if err := r.files(); err != nil {
			return err
		}
		_, err := register(r.fd, sys.RegisterFileAllocRange, &sys.FileIndexRange{Len: 1}, 0)
		return err
	}},
	sys.RegisterPbufStatus: {run: func(r *probe) error {
		if err := r.pbufRing(); err != nil {
			return prereq("REGISTER_PBUF_RING", err)
		}
		_, err := register(r.fd, sys.RegisterPbufStatus, &sys.BufStatus{}, 1)
		return err
	}},
	sys.RegisterNAPI: {run: regFn(sys.RegisterNAPI, func(r *probe) (*sys.NAPI, uint32, error) {
		return &sys.NAPI{}, 1, nil
	})},
	sys.UnregisterNAPI: {run: regFn(sys.UnregisterNAPI, func(r *probe) (*sys.NAPI, uint32, error) {
		return &sys.NAPI{}, 1, nil
	})},
	sys.RegisterClock: {run: regFn(sys.RegisterClock, func(r *probe) (*sys.ClockRegister, uint32, error) {
		return &sys.ClockRegister{ClockID: unix.CLOCK_MONOTONIC}, 0, nil
	})},
	sys.RegisterCloneBuffers: {run: func(r *probe) error {
		src, err := newProbe(2, sys.Params{})
		if err != nil {
			return err
		}
		defer src.close()
		if err := src.buffers(); err != nil {
			return prereq("REGISTER_BUFFERS", err)
		}
		_, err = register(r.fd, sys.RegisterCloneBuffers, &sys.CloneBuffers{SrcFd: uint32(src.fd)}, 1)
		return err
	}},
	sys.RegisterSendMsgRing: {no: []unix.Errno{unix.EBADF}, run: func(r *probe) error {
		var msg sys.SQE
		if err := sqe.MsgRing(&msg, r.fd, 0, 0xfeedface); err != nil {
			return err
		}
		_, err := register(-1, sys.RegisterSendMsgRing, &msg, 1)
		return err
	}},
	sys.RegisterZcrxIfq: {flags: sys.SetupSingleIssuer | sys.SetupDeferTaskrun | sys.SetupCQE32,
		ok: []unix.Errno{unix.EFAULT}, run: func(r *probe) error {
			none, err := unix.Mmap(-1, 0, os.Getpagesize(), unix.PROT_NONE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
			if err != nil {
				return fmt.Errorf("mmap: %w", err)
			}
			defer unix.Munmap(none)
			_, err = register(r.fd, sys.RegisterZcrxIfq, &none[0], 1)
			return err
		}},
	sys.RegisterResizeRings: {flags: sys.SetupSingleIssuer | sys.SetupDeferTaskrun,
		run: regFn(sys.RegisterResizeRings, func(r *probe) (*sys.Params, uint32, error) {
			return &sys.Params{SQEntries: 4}, 1, nil
		})},
	sys.RegisterMemRegion: {run: func(r *probe) error {
		b, _, err := r.page()
		if err != nil {
			return err
		}
		rd := &sys.RegionDesc{UserAddr: sys.SliceAddr(b), Size: uint64(len(b)), Flags: sys.MemRegionTypeUser}
		r.pin.Pin(rd)
		_, err = register(r.fd, sys.RegisterMemRegion, &sys.MemRegionReg{RegionUptr: sys.PtrAddr(rd)}, 1)
		return err
	}},
	sys.RegisterQuery: {no: []unix.Errno{unix.EBADF}, run: func(r *probe) error {
		_, err := query()
		return err
	}},
	sys.RegisterUseRegisteredRing: {no: []unix.Errno{unix.EBADF, unix.EOPNOTSUPP}, run: func(r *probe) error {
		idx, err := r.registerSelf()
		if err != nil {
			return prereq("REGISTER_RING_FDS", err)
		}
		_, err = register(idx, sys.RegisterProbe|sys.RegisterUseRegisteredRing, new(sys.Probe), 256)
		return err
	}},
}

var (
	queryMu  sync.Mutex
	queryAns *sys.QueryOpcode
)

// query runs the ring-less REGISTER_QUERY for IO_URING_QUERY_OPCODES.
func query() (sys.QueryOpcode, error) {
	queryMu.Lock()
	defer queryMu.Unlock()
	if queryAns != nil {
		return *queryAns, nil
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	q := new(sys.QueryOpcode)
	pin.Pin(q)
	hdr := sys.QueryHdr{QueryOp: sys.QueryOpcodes, Size: uint32(unsafe.Sizeof(*q)), QueryData: sys.PtrAddr(q)}
	if _, err := register(-1, sys.RegisterQuery, &hdr, 0); err != nil {
		return sys.QueryOpcode{}, err
	}
	if hdr.Result != 0 {
		return sys.QueryOpcode{}, fmt.Errorf("io_uring_register: QUERY_OPCODES result %d: %w", hdr.Result, unix.Errno(-hdr.Result))
	}
	queryAns = q
	return *q, nil
}

// Query returns what REGISTER_QUERY (6.18) says the kernel knows: opcode
// counts and the feature, setup, enter and SQE flag masks. Before 6.18 the
// error is an *UnsupportedError.
func Query() (sys.QueryOpcode, error) {
	q, err := query()
	if err != nil {
		switch errnoOf(err) {
		case unix.EINVAL, unix.EBADF:
			return q, unsupported(registerFeature(sys.RegisterQuery), sys.RegisterQuery.Since(), "the kernel has no ring-less query", err)
		}
		if aerr := Available(); aerr != nil {
			return q, aerr
		}
	}
	return q, err
}

// registerByQuery decides opcodes with no safe try-and-see argument from
// QUERY's count of register opcodes; a kernel without QUERY (before 6.18)
// predates them.
func registerByQuery(op sys.RegisterOp, what string) error {
	q, err := Query()
	if err != nil {
		if isUnsupported(err) {
			return unsupported(what, op.Since(), "the kernel predates IORING_REGISTER_QUERY (6.18), and so the opcode", nil)
		}
		return notFinal(err)
	}
	if base := op &^ sys.RegisterUseRegisteredRing; uint32(base) < q.NrRegisterOpcodes {
		return nil
	}
	return unsupported(what, op.Since(), "the kernel knows "+strconv.Itoa(int(q.NrRegisterOpcodes))+" register opcodes", nil)
}
