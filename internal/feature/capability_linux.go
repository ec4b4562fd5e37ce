//go:build linux

package feature

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"golang.org/x/sys/unix"
)

var capCache cache[Capability]

// Cap reports whether the kernel has capability c, with the contract of
// every probe here: nil, an *UnsupportedError (naming c and the release
// that added it), or another error when the probe failed (not cached).
// How each is tried:
//
//	MultishotPoll        POLL_ADD|POLL_ADD_MULTI on a readable eventfd: the first CQE has F_MORE
//	MultishotAccept      ACCEPT|ACCEPT_MULTISHOT on a listening unix socket with a
//	                     connection waiting: the first CQE (the fd, closed again) has F_MORE
//	MultishotRecv        RECV|RECV_MULTISHOT from a provided-buffer group (PROVIDE_BUFFERS)
//	                     on a socketpair holding a byte: the first CQE has F_MORE
//	MultishotTimeout     TIMEOUT|TIMEOUT_MULTISHOT of 1 µs, twice: the first CQE has F_MORE
//	MultishotRead        the opcode READ_MULTISHOT (REGISTER_PROBE)
//	CancelFlags          ASYNC_CANCEL|CANCEL_ANY with nothing in flight: ENOENT
//	BufRing              the register opcode PBUF_RING (RegisterOp)
//	BufRingMmap          PBUF_RING with IOU_PBUF_RING_MMAP, one entry: success
//	BufRingInc           PBUF_RING with IOU_PBUF_RING_INC in a page of ours: success
//	RecvSendBundle       IORING_FEAT_RECVSEND_BUNDLE in the feature bits
//	NopInjectResult      NOP|NOP_INJECT_RESULT of 42: the CQE says 42
//	NopCQE32             NOP|NOP_CQE32 on a CQE32 ring: res 0 and the two words echoed
//	SparseFiles          REGISTER_FILES2 with RSRC_REGISTER_SPARSE, one slot: success
//	SparseBuffers        REGISTER_BUFFERS2 with RSRC_REGISTER_SPARSE, one slot: success
//	RinglessMsgRing      the register opcode SEND_MSG_RING (RegisterOp: its ring-less form)
//	SocketCmd            URING_CMD SOCKET_URING_OP_SIOCINQ on a UDP socket: 0
//	SocketGetsockname    URING_CMD SOCKET_URING_OP_GETSOCKNAME on a UDP socket: 0
//	NAPIStaticTracking   REGISTER_NAPI with IO_URING_NAPI_TRACKING_STATIC: success
//	TimeoutETimeSuccess  TIMEOUT|TIMEOUT_ETIME_SUCCESS of 1 µs: -ETIME
//
// A "no" is EINVAL (or, for socket commands, EOPNOTSUPP) where the kernel
// rejects what it does not know, or a multishot request that completes
// without F_MORE (a kernel that ignored the flag).
func Cap(c Capability) error {
	if !c.Valid() {
		return fmt.Errorf("feature: Cap(%d): no such capability", int(c))
	}
	return capCache.get(c, func() error {
		defer lockThread()()
		return capProbes[c](c)
	})
}

// capNo is the final "no" for c: the kernel rejects what c needs.
func capNo(c Capability, reason string, err error) error {
	return unsupported(c.feature(), c.Since(), reason, err)
}

// capBy answers c from another probe's answer: c's own error for a "no",
// the answer as is otherwise.
func capBy(c Capability, err error, what string) error {
	ue := AsUnsupported(err)
	if ue == nil {
		return err
	}
	if ue.MinimumVersion == "" {
		return unsupported(c.feature(), "", "needs "+what+": "+ue.Error(), ue.Err)
	}
	return capNo(c, "needs "+what, ue.Err)
}

var capProbes = [capCount]func(Capability) error{
	CapMultishotPoll:    probeMultishotPoll,
	CapMultishotAccept:  probeMultishotAccept,
	CapMultishotRecv:    probeMultishotRecv,
	CapMultishotTimeout: probeMultishotTimeout,
	CapMultishotRead: func(c Capability) error {
		return Op(sys.OpReadMultishot) // names the opcode and 6.7 itself
	},
	CapCancelFlags: func(c Capability) error {
		return onRing(c, sys.Params{}, func(r *probe) error {
			res, err := r.one(func(s *sys.SQE) error { sqe.CancelAny(s); return nil })
			if err != nil {
				return err
			}
			return resAnswer(c, res.res, unix.ENOENT)
		})
	},
	CapBufRing: func(c Capability) error {
		return RegisterOp(sys.RegisterPbufRing) // names the opcode and 5.19 itself
	},
	CapBufRingMmap: func(c Capability) error {
		// RegisterOp, not Cap: Cap's cache is locked while a probe runs.
		if err := RegisterOp(sys.RegisterPbufRing); err != nil {
			return capBy(c, err, "IORING_REGISTER_PBUF_RING (5.19)")
		}
		return onRing(c, sys.Params{}, func(r *probe) error {
			br := sys.BufReg{RingEntries: 1, Flags: sys.PbufRingMmap}
			_, err := register(r.fd, sys.RegisterPbufRing, &br, 1)
			return answer(c.feature(), c.Since(), err)
		})
	},
	CapBufRingInc: func(c Capability) error {
		if err := RegisterOp(sys.RegisterPbufRing); err != nil {
			return capBy(c, err, "IORING_REGISTER_PBUF_RING (5.19)")
		}
		return onRing(c, sys.Params{}, func(r *probe) error {
			b, _, err := r.page()
			if err != nil {
				return err
			}
			br := sys.BufReg{RingAddr: sys.SliceAddr(b), RingEntries: 1, Flags: sys.PbufRingInc}
			_, err = register(r.fd, sys.RegisterPbufRing, &br, 1)
			return answer(c.feature(), c.Since(), err)
		})
	},
	CapRecvSendBundle: func(c Capability) error {
		f, err := Features()
		if err != nil {
			return notFinal(err)
		}
		if f&sys.FeatRecvSendBundle == 0 {
			return capNo(c, "the kernel does not report IORING_FEAT_RECVSEND_BUNDLE", nil)
		}
		return nil
	},
	CapNopInjectResult: func(c Capability) error {
		return onRing(c, sys.Params{}, func(r *probe) error {
			res, err := r.one(func(s *sys.SQE) error { sqe.NopResult(s, 42); return nil })
			switch {
			case err != nil:
				return err
			case res.res == 42:
				return nil
			case res.res == 0:
				return capNo(c, "the kernel ignores the flag: the NOP completes with 0, not the injected 42", nil)
			}
			return resAnswer(c, res.res)
		})
	},
	CapNopCQE32: func(c Capability) error {
		return onRing(c, sys.Params{Flags: sys.SetupCQE32}, func(r *probe) error {
			res, err := r.one(func(s *sys.SQE) error { sqe.NopCQE32(s, 0x1111, 0x2222); return nil })
			switch {
			case err != nil:
				return err
			case res.res == 0 && res.big == [2]uint64{0x1111, 0x2222}:
				return nil
			case res.res == 0:
				return capNo(c, "the kernel ignores the flag: the 32-byte CQE does not echo off and addr", nil)
			}
			return resAnswer(c, res.res)
		})
	},
	CapSparseFiles: func(c Capability) error {
		return onRing(c, sys.Params{}, func(r *probe) error {
			rr := sys.RsrcRegister{Nr: 1, Flags: sys.RsrcRegisterSparse}
			_, err := register(r.fd, sys.RegisterFiles2, &rr, uint32(sys.SizeOf[sys.RsrcRegister]()))
			return answer(c.feature(), c.Since(), err)
		})
	},
	CapSparseBuffers: func(c Capability) error {
		return onRing(c, sys.Params{}, func(r *probe) error {
			rr := sys.RsrcRegister{Nr: 1, Flags: sys.RsrcRegisterSparse}
			_, err := register(r.fd, sys.RegisterBuffers2, &rr, uint32(sys.SizeOf[sys.RsrcRegister]()))
			return answer(c.feature(), c.Since(), err)
		})
	},
	CapRinglessMsgRing: func(c Capability) error {
		return RegisterOp(sys.RegisterSendMsgRing) // names the opcode and 6.13 itself
	},
	CapSocketCmd: func(c Capability) error {
		return socketCmd(c, func(s *sys.SQE, r *probe, fd int) error { return sqe.SockInq(s, fd) })
	},
	CapSocketGetsockname: func(c Capability) error {
		return socketCmd(c, func(s *sys.SQE, r *probe, fd int) error {
			sa, salen := new(unix.RawSockaddrAny), new(uint32)
			r.pin.Pin(sa)
			r.pin.Pin(salen)
			return sqe.Getsockname(s, fd, sa, salen, false)
		})
	},
	CapNAPIStaticTracking: func(c Capability) error {
		if err := RegisterOp(sys.RegisterNAPI); err != nil {
			return capBy(c, err, "IORING_REGISTER_NAPI (6.9)")
		}
		return onRing(c, sys.Params{}, func(r *probe) error {
			n := sys.NAPI{Opcode: sys.NAPIRegisterOp, OpParam: sys.NAPITrackingStatic}
			_, err := register(r.fd, sys.RegisterNAPI, &n, 1)
			return answer(c.feature(), c.Since(), err)
		})
	},
	CapTimeoutETimeSuccess: func(c Capability) error {
		return onRing(c, sys.Params{}, func(r *probe) error {
			res, err := r.timeout(0, sys.TimeoutETimeSuccess)
			if err != nil {
				return err
			}
			return resAnswer(c, res.res, unix.ETIME)
		})
	},
}

// onRing runs probe on a fresh ring made with p; a ring the kernel will not
// make with p's flags is a "no" for c.
func onRing(c Capability, p sys.Params, probe func(r *probe) error) error {
	r, err := newRingProbe(8, p.Flags)
	if err != nil {
		if p.Flags != 0 && errnoOf(err) == unix.EINVAL {
			return capNo(c, "needs setup flags "+SetupFlagName(p.Flags)+", which the kernel rejects", err)
		}
		return notFinal(unwrapTransient(plainRingFailed(c.feature(), err)))
	}
	defer r.close()
	err = probe(r)
	if err != nil && !isUnsupported(err) {
		if _, ok := err.(transient); !ok {
			err = notFinal(fmt.Errorf("feature: probing %s: %w", c.feature(), err))
		}
	}
	return err
}

// resAnswer maps a CQE result: 0 or one of ok is supported, -EINVAL a "no",
// anything else a failed probe.
func resAnswer(c Capability, res int32, ok ...unix.Errno) error {
	if res >= 0 {
		return nil
	}
	e := unix.Errno(-res)
	for _, o := range ok {
		if e == o {
			return nil
		}
	}
	if e == unix.EINVAL {
		return capNo(c, "", e)
	}
	return notFinal(fmt.Errorf("feature: probing %s: %w", c.feature(), e))
}

// multishotAnswer maps the first CQE of a multishot request: F_MORE is
// supported; -EINVAL, or a success without F_MORE (the flag was ignored),
// a "no"; anything else a failed probe. A multishot timeout succeeds with
// -ETIME.
func multishotAnswer(c Capability, res cqe) error {
	ok := res.res >= 0 || (c == CapMultishotTimeout && res.res == -int32(unix.ETIME))
	switch {
	case ok && res.flags&sys.CQEFMore != 0:
		return nil
	case ok:
		return capNo(c, "the request completed without IORING_CQE_F_MORE: the kernel treats it as single-shot", nil)
	}
	return resAnswer(c, res.res)
}

func probeMultishotPoll(c Capability) error {
	return onRing(c, sys.Params{}, func(r *probe) error {
		efd, err := r.eventfd()
		if err != nil {
			return err
		}
		one := []byte{1, 0, 0, 0, 0, 0, 0, 0}
		if _, err := unix.Write(int(efd), one); err != nil {
			return fmt.Errorf("eventfd write: %w", err)
		}
		res, err := r.one(func(s *sys.SQE) error { return sqe.PollMultishot(s, int(efd), unix.POLLIN) })
		if err != nil {
			return err
		}
		return multishotAnswer(c, res)
	})
}

func probeMultishotAccept(c Capability) error {
	return onRing(c, sys.Params{}, func(r *probe) error {
		ln, err := r.socket(unix.AF_UNIX, unix.SOCK_STREAM)
		if err != nil {
			return err
		}
		// An autobound abstract address: nothing in the file system.
		if err := unix.Bind(ln, &unix.SockaddrUnix{}); err != nil {
			return fmt.Errorf("bind: %w", err)
		}
		if err := unix.Listen(ln, 4); err != nil {
			return fmt.Errorf("listen: %w", err)
		}
		addr, err := unix.Getsockname(ln)
		if err != nil {
			return fmt.Errorf("getsockname: %w", err)
		}
		cl, err := r.socket(unix.AF_UNIX, unix.SOCK_STREAM)
		if err != nil {
			return err
		}
		if err := unix.Connect(cl, addr); err != nil {
			return fmt.Errorf("connect: %w", err)
		}
		res, err := r.one(func(s *sys.SQE) error { return sqe.AcceptMultishot(s, ln, nil, nil, 0) })
		if err != nil {
			return err
		}
		if res.res >= 0 {
			unix.Close(int(res.res)) // the accepted connection
		}
		return multishotAnswer(c, res)
	})
}

func probeMultishotRecv(c Capability) error {
	return onRing(c, sys.Params{}, func(r *probe) error {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("socketpair: %w", err)
		}
		r.fds = append(r.fds, fds[0], fds[1])
		if _, err := unix.Write(fds[1], []byte{'x'}); err != nil {
			return fmt.Errorf("write: %w", err)
		}
		b, err := r.anon(os.Getpagesize())
		if err != nil {
			return err
		}
		const group = 7
		// Two 64-byte buffers in group 7 (PROVIDE_BUFFERS, 5.7).
		res, err := r.one(func(s *sys.SQE) error { return sqe.ProvideBuffers(s, b[:128], 64, 2, group, 0) })
		if err != nil {
			return err
		}
		if res.res < 0 {
			return fmt.Errorf("PROVIDE_BUFFERS: %w", unix.Errno(-res.res))
		}
		res, err = r.one(func(s *sys.SQE) error { return sqe.RecvMultishot(s, fds[0], 0, group) })
		if err != nil {
			return err
		}
		return multishotAnswer(c, res)
	})
}

func probeMultishotTimeout(c Capability) error {
	return onRing(c, sys.Params{}, func(r *probe) error {
		res, err := r.timeout(2, sys.TimeoutMultishot)
		if err != nil {
			return err
		}
		return multishotAnswer(c, res)
	})
}

// timeout runs a TIMEOUT of 1 µs with count and flags and returns its
// first CQE.
func (r *probe) timeout(count, flags uint32) (cqe, error) {
	ts := new(sys.Timespec)
	r.pin.Pin(ts)
	return r.one(func(s *sys.SQE) error { return sqe.Timeout(s, ts, time.Microsecond, count, flags) })
}

// socketCmd tries the URING_CMD that sqe builds on a UDP socket: 0 (or a
// positive result) is supported; EOPNOTSUPP (no socket commands, or not
// this one) and EINVAL (no URING_CMD, before 6.0) a "no".
func socketCmd(c Capability, build func(s *sys.SQE, r *probe, fd int) error) error {
	return onRing(c, sys.Params{}, func(r *probe) error {
		fd, err := r.socket(unix.AF_INET, unix.SOCK_DGRAM)
		if err != nil {
			return err
		}
		res, err := r.one(func(s *sys.SQE) error { return build(s, r, fd) })
		if err != nil {
			return err
		}
		if res.res == -int32(unix.EOPNOTSUPP) {
			return capNo(c, "", unix.EOPNOTSUPP)
		}
		return resAnswer(c, res.res)
	})
}

// socket makes a close-on-exec socket that lives until close.
func (r *probe) socket(domain, typ int) (int, error) {
	fd, err := unix.Socket(domain, typ|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("socket: %w", err)
	}
	r.fds = append(r.fds, fd)
	return fd, nil
}

// cqe is one completion a probe saw; big is set on CQE32 rings.
type cqe struct {
	userData uint64
	res      int32
	flags    sys.CQEFlags
	big      [2]uint64
}

// probeWait bounds how long a probe waits for a completion: a kernel that
// holds a request (a multishot that found nothing to do) must not hang
// the probe. It is far longer than any of the probes' requests take (a
// variable for tests).
var probeWait = 2 * time.Second

var errProbeTimeout = errors.New("feature: the probe's request did not complete in time")

// one submits the request build fills (its user data is set here) and
// waits for its first CQE, for at most probeWait: a TIMEOUT request guards
// the wait, so this works before EXT_ARG (5.11).
func (r *probe) one(build func(s *sys.SQE) error) (cqe, error) {
	const want, guard = 1, 2
	s, err := r.ring.GetSQE()
	if err != nil {
		return cqe{}, err
	}
	if err := build(s); err != nil {
		sqe.Nop(s) // handed out: let it pass
		return cqe{}, err
	}
	s.UserData = want
	ts := new(sys.Timespec)
	r.pin.Pin(ts)
	if s, err = r.ring.GetSQE(); err != nil {
		return cqe{}, err
	}
	if err := sqe.Timeout(s, ts, probeWait, 0, 0); err != nil {
		return cqe{}, err
	}
	s.UserData = guard
	// A kernel that stops submitting at a request that fails its prep
	// (5.10) leaves the guard queued: the next Submit takes it.
	var cqes [4]sys.CQE
	var big [4]sys.CQE32
	for {
		if _, err := r.ring.Submit(); err != nil && errnoOf(err) != unix.EINTR {
			return cqe{}, fmt.Errorf("io_uring_enter: %w", err)
		}
		if _, err := r.ring.WaitCQE(); err != nil {
			return cqe{}, err
		}
		var got []cqe
		if r.p.Flags&sys.SetupCQE32 != 0 {
			for _, c := range big[:r.ring.Reap32(big[:])] {
				got = append(got, cqe{userData: c.UserData, res: c.Res, flags: c.Flags, big: c.BigCQE})
			}
		} else {
			for _, c := range cqes[:r.ring.Reap(cqes[:])] {
				got = append(got, cqe{userData: c.UserData, res: c.Res, flags: c.Flags})
			}
		}
		timedOut := false
		for _, c := range got {
			switch c.userData {
			case want:
				return c, nil
			case guard:
				timedOut = true
			}
		}
		if timedOut {
			return cqe{}, errProbeTimeout
		}
	}
}
